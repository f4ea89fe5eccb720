import ArgumentParser
import ClipboardHistory

/// How `xpb history` and `xpb history search` print entries: a table, JSON or picker lines, at
/// most `--limit` of them.
struct HistoryListingOptions: ParsableArguments {
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

    /// Writes `entries` in the chosen form.
    func write(_ entries: [HistoryEntry]) throws(CommandFailure) {
        if json {
            try HistoryListing.write(HistoryListing.json(entries))
        } else if menu {
            try HistoryListing.write(HistoryListing.menu(entries))
        } else {
            try HistoryListing.write(HistoryListing.table(entries))
        }
    }
}
