import ArgumentParser
import ClipboardHistory

extension XPB.History {
    /// `xpb history delete N`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an entry (the entries after it move up by one).")

        @OptionGroup var history: HistoryOptions

        @Argument(help: ArgumentHelp("The entry (0 is the newest).", valueName: "n"))
        var index: Int

        func run() throws {
            try reportingFailures {
                let store = try history.open()
                try HistoryOptions.mapping { try store.delete(at: index) }
            }
        }
    }
}
