import ArgumentParser
import ClipboardHistory

extension XPB.History {
    /// `xpb history search WORDS [--json]`: entries whose text holds every word.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find entries whose text holds every word (each also as a prefix), newest first.",
            discussion: "The indexes printed are the entries' places in the whole history, for show and restore.")

        @OptionGroup var history: HistoryOptions

        @Flag(help: "Print a JSON array, as `xpb history --json` does.")
        var json = false

        @Flag(help: "Print one line per entry for a picker, as `xpb history --menu` does.")
        var menu = false

        @Option(help: ArgumentHelp("Show at most N entries.", valueName: "n"))
        var limit: Int?

        @Argument(help: ArgumentHelp("The words to find.", valueName: "words"))
        var words: [String]

        func validate() throws {
            if json && menu { throw ValidationError("give --json or --menu, not both") }
            if words.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) { throw ValidationError("give at least one word to search for") }
            if let limit, limit < 1 { throw ValidationError("--limit needs a number of at least 1") }
        }

        func run() throws {
            try reportingFailures {
                let store = try history.open(readOnly: true)
                let query = words.joined(separator: " ")
                let entries = try HistoryOptions.mapping { try store.search(query, limit: limit) }
                guard !entries.isEmpty else { throw CommandFailure("no history entry matches '\(query)'", exitCode: 1) }
                if json {
                    try HistoryListing.write(HistoryListing.json(entries))
                } else if menu {
                    try HistoryListing.write(HistoryListing.menu(entries))
                } else {
                    try HistoryListing.write(HistoryListing.table(entries))
                }
            }
        }
    }
}
