public import FoundationEssentials

/// One change of a pasteboard's selection, as XFixes reported it.
public struct PasteboardChange: Sendable, Hashable {
    /// What happened to the selection.
    public enum Kind: String, Sendable, Hashable {
        /// A client (possibly this process) took the selection.
        case ownerChanged = "owner-changed"
        /// Nobody owns the selection any more: it was cleared, or its owner's window or
        /// connection went away.
        case cleared
    }

    /// What happened.
    public var kind: Kind
    /// The pasteboard that changed.
    public var name: Pasteboard.Name
    /// The pasteboard's `changeCount` after this change.
    public var changeCount: Int
    /// The new owner's window; `.none` when cleared.
    public var owner: XWindow
    /// Why XFixes reported it (a new owner, the owner's window destroyed, its client gone).
    public var reason: OwnerChange.Reason
    /// The X server time of the change.
    public var serverTime: XTimestamp
    /// When this process learnt of the change.
    public var date: Date
    /// The change is this process's own write (or its own clear).
    public var isLocal: Bool

    /// Creates a change event (tests and bridges replay them).
    public init(
        kind: Kind, name: Pasteboard.Name, changeCount: Int, owner: XWindow, reason: OwnerChange.Reason,
        serverTime: XTimestamp, date: Date, isLocal: Bool
    ) {
        self.kind = kind
        self.name = name
        self.changeCount = changeCount
        self.owner = owner
        self.reason = reason
        self.serverTime = serverTime
        self.date = date
        self.isLocal = isLocal
    }
}
