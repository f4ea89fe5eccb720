import ArgumentParser
import ClipboardHistory

extension XPB.History {
    /// `xpb history [--json] [--limit N] [--menu]`: the entries, newest first.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the history, newest first (the default subcommand).",
            discussion: """
                Each line: the index (0 is the newest), the time (UTC), the size, and the text on \
                one line (or the type of an entry without text). --menu prints one line per entry \
                for a picker, starting with the entry's stable id (#42, not the index, so that a copy made \
                while the menu is open changes nothing); pipe the chosen line to \
                `xpb history restore --from-menu`.
                """)

        @OptionGroup var history: HistoryOptions

        @OptionGroup var listing: HistoryListingOptions

        func run() throws {
            try reportingFailures {
                let store = try history.open(readOnly: true)
                let entries = try HistoryOptions.mapping { try store.entries(limit: listing.limit) }
                guard !entries.isEmpty else { throw CommandFailure("the history is empty", exitCode: 1) }
                try listing.write(entries)
            }
        }
    }
}
