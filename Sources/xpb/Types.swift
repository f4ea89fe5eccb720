import ArgumentParser
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb types`: what the owner of a selection offers.
    struct Types: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the types a selection offers: ATOM, UTI and MIME type, one per line.",
            discussion: """
                Protocol targets (TARGETS, TIMESTAMP, MULTIPLE, SAVE_TARGETS, DELETE) are left out. \
                The MIME column is empty for targets that have no MIME type (STRING, TEXT).

                Examples:
                  xpb types
                  xpb types -p --json
                """
        )

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Print a JSON array of {\"atom\", \"uti\", \"mime\"} objects.")
        var json = false

        func run() throws {
            try reportingFailures {
                let connection = try options.connect()
                let reader = SelectionReader(connection: connection)
                let offered = try offer(reader, connection.atom(options.selection)).targets
                let rows = offered.map { target in
                    (atom: target,
                     uti: TargetOffer.shownType(forTarget: target)?.identifier ?? "",
                     mime: XTargetCrosswalk.mimeType(forTarget: target) ?? "")
                }
                var output = ""
                if json {
                    output = JSONValue.array(rows.map {
                        .object([JSONMember("atom", .string($0.atom)), JSONMember("uti", .string($0.uti)), JSONMember("mime", .string($0.mime))])
                    }).serialized + "\n"
                } else {
                    output = rows.map { "\($0.atom)\t\($0.uti)\t\($0.mime)\n" }.joined()
                }
                try writeToStdout(Array(output.utf8))
            }
        }
    }
}
