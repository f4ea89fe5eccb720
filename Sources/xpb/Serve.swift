import SystemPackage
import X11Pasteboard

/// How `xpb copy` and `xpb history restore` hold a selection: take it, detach into the
/// background (unless `foreground`), and serve `content` until another client takes over or a
/// termination signal arrives, then hand what was served to the clipboard manager if one runs.
enum SelectionServing {
    static func serve(
        _ content: SelectionContent, on connection: XConnection, selection: String,
        configuration: SelectionOwner.Configuration = .init(), foreground: Bool
    ) throws {
        let owner = SelectionOwner(
            connection: connection, selection: connection.atom(selection), content: content, configuration: configuration)
        try owner.acquire()
        if !foreground { try Detach.intoBackground(keeping: FileDescriptor(rawValue: connection.fileDescriptor)) }
        connection.wakeDescriptor = TerminationSignals.catchIntoPipe()
        if try owner.serve(stoppingWhen: { TerminationSignals.wasReceived }) == .stopped {
            // Told to stop while still serving: what was copied stays with the
            // clipboard manager, if one runs (never a --sensitive copy).
            _ = owner.handOffToClipboardManager()
        }
    }
}
