import ArgumentParser
import Glibc

/// Where `xpb` starts. The everyday pastes skip ArgumentParser: its set-up (reflection over
/// every subcommand's options) cost more than the paste itself, and shell prompts and editors
/// run `xpb paste` hundreds of times a day. Everything else, help and errors included, goes
/// through the full parser.
@main
enum EntryPoint {
    static func main() {
        if let request = PasteRequest(fastPathArguments: Array(CommandLine.arguments.dropFirst())) {
            do {
                try request.run()
                exit(0)
            } catch {
                exit(error.report())
            }
        }
        XPB.main()
    }
}
