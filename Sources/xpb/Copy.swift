import ArgumentParser
import SystemPackage
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb copy`: take a selection and serve data from stdin, a file or several files.
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy data to a selection and serve it until another client takes over.",
            discussion: """
                The data comes from FILE or stdin. Its type is sniffed (UTF-8 text, PNG, JPEG, GIF, \
                WebP, BMP, PDF, SVG; anything else is application/octet-stream) unless -t names it. \
                By default xpb returns as soon as it owns the selection and keeps serving from a \
                background process until another client copies something.

                Examples:
                  echo hello | xpb copy
                  xpb copy notes.txt
                  xpb copy -p < snippet.txt                 (PRIMARY)
                  xpb copy -t image/png screenshot.png
                  xpb copy -t text/html=page.html -t text/plain=page.txt
                  xpb copy --paste-once --sensitive < password.txt
                  xpb copy --expire 30 < token.txt
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(
            name: [.customShort("t"), .customLong("type")],
            help: ArgumentHelp(
                "The type of the data (UTI, MIME type, X target or .ext); TYPE=FILE adds a representation from FILE. Repeatable.",
                valueName: "type[=file]"))
        var types: [String] = []

        @Option(
            name: .customLong("files"), parsing: .upToNextOption,
            help: ArgumentHelp("Copy these files the way file managers do (paste them in Nautilus, Dolphin, Thunar).", valueName: "path"))
        var files: [String] = []

        @Flag(help: "Serve in the foreground instead of detaching.")
        var foreground = false

        @Flag(name: .customLong("paste-once"), help: "Exit after the first paste (TARGETS queries do not count).")
        var pasteOnce = false

        @Option(help: ArgumentHelp("Exit after N pastes.", valueName: "n"))
        var loops: Int?

        @Flag(help: "Mark the data as a secret: clipboard managers and histories must not keep it.")
        var sensitive = false

        @Option(help: ArgumentHelp("Clear the selection after this many seconds if it is still ours.", valueName: "seconds"))
        var expire: Double?

        @Argument(help: ArgumentHelp("The file to copy (default: stdin; - also means stdin).", valueName: "file"))
        var file: String?

        func validate() throws {
            if pasteOnce && loops != nil { throw ValidationError("give --paste-once or --loops, not both") }
            if let loops, loops < 1 { throw ValidationError("--loops needs a number of at least 1") }
            if let expire, !(expire > 0) || !expire.isFinite { throw ValidationError("--expire needs a positive number of seconds") }
            if !files.isEmpty && (file != nil || !types.isEmpty) {
                throw ValidationError("--files takes the paths itself; don't combine it with FILE or -t")
            }
            if types.filter({ !$0.contains("=") }).count > 1 {
                throw ValidationError("only one -t TYPE may name the type of the main data; add others as -t TYPE=FILE")
            }
        }

        func run() throws {
            try reportingFailures {
                try CopyRequest(
                    display: options.display, selection: options.selection,
                    content: SelectionContent(representations: try collectRepresentations(), isSensitive: sensitive),
                    foreground: foreground, conversionLimit: pasteOnce ? 1 : loops, expiry: expire
                ).run()
            }
        }

        /// The item's representations: the main data (FILE or stdin) first, then each TYPE=FILE.
        private func collectRepresentations() throws(CommandFailure) -> [(type: UTType, data: [UInt8])] {
            if !files.isEmpty { return [(.fileURL, try fileURIList())] }
            var result: [(type: UTType, data: [UInt8])] = []
            let mainType = types.first { !$0.contains("=") }
            let extra = types.filter { $0.contains("=") }
            if file != nil || mainType != nil || extra.isEmpty {
                let data = try FileDescriptorIO.readFile(file ?? "-")
                let type = try mainType.map { (name) throws(CommandFailure) in try TypeArgumentParsing.resolve(name) }
                    ?? ContentSniffer.sniff(data)
                try CopyRequest.requireConvertible(data, as: type, from: file ?? "stdin")
                result.append((type, data))
            }
            for spec in extra {
                let separator = spec.firstIndex(of: "=")!
                let name = String(spec[..<separator])
                let path = String(spec[spec.index(after: separator)...])
                guard !path.isEmpty else { throw CommandFailure("-t \(spec): the file after = is missing") }
                let (type, data) = (try TypeArgumentParsing.resolve(name), try FileDescriptorIO.readFile(path))
                try CopyRequest.requireConvertible(data, as: type, from: path)
                result.append((type, data))
            }
            return result
        }
    }
}

extension XPB.Copy {
    /// The `file://` URIs of `--files`, one per line, as the translator's file-URL representation
    /// wants them; every path must exist, so a typo fails here rather than in the file manager.
    fileprivate func fileURIList() throws(CommandFailure) -> [UInt8] {
        var uris: [String] = []
        for path in files {
            do {
                _ = try path.withCString { path throws(Errno) in try Stat(path) }
            } catch {
                throw CommandFailure("cannot copy \(path): \(error)")
            }
            uris.append(FileURL.uri(forPath: path))
        }
        return Array(uris.joined(separator: "\n").utf8)
    }
}
