import ArgumentParser
import ClipboardHistory
import SystemPackage
import X11Pasteboard

extension XPB.History {
    /// `xpb history restore N` / `--from-menu`: an entry becomes the clipboard again.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an entry the clipboard again, every representation, served in the background.",
            discussion: """
                Like xpb copy, it returns once it owns the selection and serves from a background \
                process until another client copies. --from-menu reads the entry from the first \
                line of stdin as `xpb history --menu` printed it (the #id it starts with: the same entry \
                however many were copied since).
                """)

        @OptionGroup var options: GlobalOptions
        @OptionGroup var history: HistoryOptions

        @Flag(name: .customLong("from-menu"), help: "Read the entry from a line of `xpb history --menu` on stdin.")
        var fromMenu = false

        @Flag(help: "Serve in the foreground instead of detaching.")
        var foreground = false

        @Argument(help: ArgumentHelp("The entry (0 is the newest).", valueName: "n"))
        var index: Int?

        func validate() throws {
            if fromMenu == (index != nil) { throw ValidationError("give an entry number or --from-menu (one of them)") }
        }

        func run() throws {
            try reportingFailures {
                let chosen = try fromMenu ? Restore.chosenID(try FileDescriptorIO.readAll(.standardInput)) : nil
                let store = try history.open(readOnly: true)
                // Large representations stay in their files until a client asks for them.
                let content = try HistoryOptions.mapping {
                    if let chosen { try store.content(id: chosen) } else { try store.content(at: index ?? 0) }
                }
                let connection = try options.connect()
                try SelectionServing.serve(content, on: connection, selection: options.selection, foreground: foreground)
            }
        }

        /// The id a menu line starts with (`#42`, after blanks); a picker closed without a choice
        /// gives nothing.
        static func chosenID(_ input: [UInt8]) throws(CommandFailure) -> Int64 {
            let line = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
            let start = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let digits = start.first == UInt8(ascii: "#") ? start.dropFirst().prefix { (48...57).contains($0) } : []
            guard !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) else {
                throw CommandFailure("nothing was chosen (stdin is empty)", exitCode: 1)
            }
            guard let id = Int64(String(decoding: digits, as: UTF8.self)) else {
                let shown = String(decoding: line.prefix(60), as: UTF8.self)
                throw CommandFailure("'\(shown)' is not a line of `xpb history --menu` (it starts with no #id)", exitCode: 1)
            }
            return id
        }
    }
}
