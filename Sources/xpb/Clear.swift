import ArgumentParser
import X11Pasteboard

extension XPB {
    /// `xpb clear`: leave a selection with no owner.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Clear a selection: afterwards nothing owns it.",
            discussion: """
                Examples:
                  xpb clear
                  xpb clear -p
                """
        )

        @OptionGroup var options: GlobalOptions

        func run() throws {
            try reportingFailures {
                let connection = try options.connect()
                try connection.clear(connection.atom(options.selection))
            }
        }
    }
}
