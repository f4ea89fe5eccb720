import ArgumentParser
import Glibc
import X11Pasteboard

/// Where `xpb` starts. The everyday pastes skip ArgumentParser: its set-up (reflection over
/// every subcommand's options) cost more than the paste itself, and shell prompts and editors
/// run `xpb paste` hundreds of times a day. Everything else, help and errors included, goes
/// through the full parser.
@main
enum EntryPoint {
    static func main() {
        // Every step of a command needs the server: losing it ends xpb with one line.
        XConnection.lossEndsProcess = true
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
