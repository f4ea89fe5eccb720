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
                let offered = try offeredTargets(reader, connection.atom(options.selection))
                let rows = offered.map { target in
                    (atom: target,
                     uti: (XTargetCrosswalk.type(forTarget: target) ?? UTType(tag: target, tagClass: .xAtom, conformingTo: nil))?.identifier ?? "",
                     mime: XTargetCrosswalk.mimeType(forTarget: target) ?? "")
                }
                var output = ""
                if json {
                    output = "[" + rows.map {
                        "{\"atom\":\(JSONText.quote($0.atom)),\"uti\":\(JSONText.quote($0.uti)),\"mime\":\(JSONText.quote($0.mime))}"
                    }.joined(separator: ",") + "]\n"
                } else {
                    output = rows.map { "\($0.atom)\t\($0.uti)\t\($0.mime)\n" }.joined()
                }
                try writeToStdout(Array(output.utf8))
            }
        }
    }
}

/// JSON string quoting without Foundation.
enum JSONText {
    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
