import ArgumentParser
import ClipboardHistory

extension XPB.History {
    /// `xpb history search WORDS [--json]`: entries whose text holds every word.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find entries whose text holds every word (each also as a prefix), newest first.",
            discussion: "The indexes printed are the entries' places in the whole history, for show and restore.")

        @OptionGroup var history: HistoryOptions

        @OptionGroup var listing: HistoryListingOptions

        @Argument(help: ArgumentHelp("The words to find.", valueName: "words"))
        var words: [String]

        func validate() throws {
            if words.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) { throw ValidationError("give at least one word to search for") }
        }

        func run() throws {
            try reportingFailures {
                let store = try history.open(readOnly: true)
                let query = words.joined(separator: " ")
                let entries = try HistoryOptions.mapping { try store.search(query, limit: listing.limit) }
                guard !entries.isEmpty else { throw CommandFailure("no history entry matches '\(query)'", exitCode: 1) }
                try listing.write(entries)
            }
        }
    }
}
