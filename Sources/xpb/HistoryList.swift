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

        @Flag(help: "Print a JSON array: index, id, time (ISO 8601), size, types (UTIs), targets, text.")
        var json = false

        @Flag(help: "Print one line per entry for dmenu, rofi or fzf: #id, then a preview.")
        var menu = false

        @Option(help: ArgumentHelp("Show at most N entries.", valueName: "n"))
        var limit: Int?

        func validate() throws {
            if json && menu { throw ValidationError("give --json or --menu, not both") }
            if let limit, limit < 1 { throw ValidationError("--limit needs a number of at least 1") }
        }

        func run() throws {
            try reportingFailures {
                let store = try history.open(readOnly: true)
                let entries = try HistoryOptions.mapping { try store.entries(limit: limit) }
                guard !entries.isEmpty else { throw CommandFailure("the history is empty", exitCode: 1) }
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
