import ArgumentParser
import Glibc
import X11Pasteboard

/// Where `xpb` starts. Run as `xclip`, `xsel`, `pbcopy` or `pbpaste` (the links `make install`
/// makes), it takes that tool's arguments. The everyday copies and pastes skip ArgumentParser:
/// its set-up (reflection over every subcommand's options) cost more than the copy or paste
/// itself, and editors, `pass` and tmux run them hundreds of times a day. Everything else, help
/// and errors included, goes through the full parser.
@main
enum EntryPoint {
    static func main() {
        // Every step of a command needs the server: losing it ends xpb with one line.
        XConnection.lossEndsProcess = true
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let personality = CommandLine.arguments.first.flatMap(Personality.init(programPath:)) {
            personality.run(arguments)
        }
        do {
            if let copy = try CopyRequest(fastPathArguments: arguments) {
                try copy.run()
                exit(0)
            }
        } catch {
            exit(error.report())
        }
        if let request = PasteRequest(fastPathArguments: arguments) {
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
