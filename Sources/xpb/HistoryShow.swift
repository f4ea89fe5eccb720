import ArgumentParser
import ClipboardHistory
import UniformTypes
import X11Pasteboard

extension XPB.History {
    /// `xpb history show N [-t TYPE]`: one representation of an entry to stdout.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an entry's text, or the representation of TYPE, to stdout.",
            discussion: """
                TYPE is a UTI, MIME type, X target or .ext, as for xpb paste; an exact target name \
                (text/html, image/png, UTF8_STRING) picks that representation byte for byte.
                """)

        @OptionGroup var history: HistoryOptions

        @Option(name: [.customShort("t"), .customLong("type")], help: ArgumentHelp("The representation to write (default: the text).", valueName: "type"))
        var type: String?

        @Argument(help: ArgumentHelp("The entry (0 is the newest).", valueName: "n"))
        var index: Int

        func run() throws {
            try reportingFailures {
                let store = try history.open(readOnly: true)
                // Only the representations that can answer are read: a missing file of
                // another one does not stand in the way.
                let outline = try HistoryOptions.mapping { try store.outline(at: index) }
                let candidates = try Show.candidates(in: outline, type: type)
                let snapshot = try HistoryOptions.mapping { try store.snapshot(at: index, targets: candidates) }
                let bytes = try Show.bytes(of: snapshot, type: type, index: index, offered: outline)
                try writeToStdout(bytes)
            }
        }

        /// The bytes `type` names in `snapshot` (its text when nil): an exact target first, then a
        /// representation of that UTI, then one that conforms to it.
        static func bytes(
            of snapshot: SelectionSnapshot, type: String?, index: Int, offered outline: [SelectionSnapshot.Representation]? = nil
        ) throws(CommandFailure) -> [UInt8] {
            let offered = (outline ?? snapshot.representations).map(\.target).joined(separator: ", ")
            guard let type else {
                if let text = snapshot.text { return Array(text.utf8) }
                throw CommandFailure("history entry \(index) has no text; choose one of its types with -t: \(offered)", exitCode: 1)
            }
            if let exact = snapshot.representation(forTarget: type) { return exact.bytes }
            let wanted = try TypeArgumentParsing.resolve(type)
            if wanted.conforms(to: .plainText), let text = snapshot.text, snapshot.representations.contains(where: { $0.uniformType?.conforms(to: wanted) == true }) {
                return Array(text.utf8)
            }
            if let match = snapshot.representations.first(where: { $0.uniformType == wanted })
                ?? snapshot.representations.first(where: { $0.uniformType?.conforms(to: wanted) == true })
            {
                return match.bytes
            }
            throw CommandFailure("history entry \(index) has no \(type); it has: \(offered)", exitCode: 1)
        }

        /// The targets of `outline` that `bytes(of:type:index:)` may answer `type` with: the
        /// text ones, an exact target, and those of that UTI or conforming to it.
        static func candidates(in outline: [SelectionSnapshot.Representation], type: String?) throws(CommandFailure) -> Set<String> {
            let textTargets: Set<String> = ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT"]
            let targets = Set(outline.map(\.target))
            guard let type else { return targets.intersection(textTargets) }
            if targets.contains(type) { return [type] }
            let wanted = try TypeArgumentParsing.resolve(type)
            var chosen = Set(outline.filter { $0.uniformType?.conforms(to: wanted) == true }.map(\.target))
            if wanted.conforms(to: .plainText) { chosen.formUnion(targets.intersection(textTargets)) }
            return chosen
        }
    }
}
