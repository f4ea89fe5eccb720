import ArgumentParser
import ClipboardHistory

extension XPB.History {
    /// `xpb history clear`.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete every entry and every file of the history.")

        @OptionGroup var history: HistoryOptions

        func run() throws {
            try reportingFailures {
                let path = history.path
                // Nothing recorded yet: nothing to clear, and no reason to create a database.
                guard HistoryStore.exists(in: path) else { return }
                let store = try history.open()
                try HistoryOptions.mapping { try store.clear() }
            }
        }
    }
}
