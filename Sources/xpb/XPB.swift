import ArgumentParser

/// The `xpb` command: copy, paste and inspect X selections from the shell.
struct XPB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xpb",
        abstract: "Copy, paste and inspect the X11 clipboard (CLIPBOARD, PRIMARY, SECONDARY, any selection).",
        discussion: """
            Examples:
              echo hello | xpb copy              copy text to the clipboard
              xpb paste                          print the clipboard as UTF-8 text
              xpb copy -t image/png shot.png     copy an image
              xpb paste -t .png > shot.png       paste it back
              xpb types                          list what the clipboard offers
              xpb clear -p                       empty the PRIMARY selection
              xpb daemon                         keep the clipboard when the program that copied exits
            """,
        version: "0.1.0",
        subcommands: [Copy.self, Paste.self, Types.self, TypeInfo.self, Clear.self, Watch.self, Daemon.self, History.self, Sync.self, Bridge.self]
    )
}
