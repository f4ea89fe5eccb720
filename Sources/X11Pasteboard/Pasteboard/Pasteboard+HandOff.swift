extension Pasteboard {
    /// How a hand-off of CLIPBOARD to the clipboard manager (`SAVE_TARGETS`) ended.
    public typealias HandOffResult = X11Pasteboard.HandOffResult
}
