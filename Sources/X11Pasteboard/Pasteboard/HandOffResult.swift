extension Pasteboard {
    /// How a hand-off of CLIPBOARD to the clipboard manager (`SAVE_TARGETS`) ended.
    public enum HandOffResult: Sendable, Hashable {
        /// The manager said it saved the content, and every transfer it asked for finished.
        case handedOff
        /// This process does not own CLIPBOARD: nothing to hand off.
        case notOwner
        /// No clipboard manager runs (`CLIPBOARD_MANAGER` has no owner).
        case noManager
        /// The content is sensitive: it was not handed off, and CLIPBOARD was given up instead.
        case refusedSensitive
        /// The manager answered that it could not save the content.
        case refusedByManager
        /// The manager went away before answering.
        case managerWentAway
        /// The manager did not answer in time.
        case timedOut
        /// The display could not be reached.
        case failed(PasteboardError)
    }
}
