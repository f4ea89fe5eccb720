/// Reports owner changes of selections as XFixes announces them: no polling, and no thread or
/// timer of its own, so a watcher waiting for the next change costs no CPU at all.
///
/// Changes are queued as they arrive, whatever the connection is doing: a change reported
/// while the caller reads the last one's TARGETS from a slow owner is kept for the next call.
///
/// - Warning: not thread-safe; call it from the connection's thread.
public final class SelectionWatcher: Conversation {
    /// The connection the notifications arrive on.
    public let connection: XConnection
    /// The watched selections.
    public let selections: [XAtom]
    private var queued: [OwnerChange] = []
    private var stopped = false

    /// Starts watching; changes from now on are reported, none from before.
    ///
    /// - Throws: `.missingExtension` when the server has no XFixes.
    /// The corresponding XFixes function is `XFixesSelectSelectionInput`.
    public init(connection: XConnection, selections: [XAtom]) throws(PasteboardError) {
        self.connection = connection
        self.selections = selections
        for selection in selections { try connection.watchOwnerChanges(of: selection) }
        connection.events.register(self)
        // Selected before the caller acts on "watching", so no change slips between.
        connection.sync()
    }

    /// The next owner change of a watched selection, oldest first; nil when `timeout` passes
    /// first (nil waits for ever). Other conversations on the connection go on meanwhile.
    ///
    /// - Throws: `.connectionLost`.
    public func nextChange(timeout: Duration? = nil) throws(PasteboardError) -> OwnerChange? {
        let deadline = timeout.map(Deadline.after) ?? .never
        guard try connection.events.pump(until: { !queued.isEmpty }, deadline: deadline) else { return nil }
        return queued.removeFirst()
    }

    /// Whether a change is already waiting, so that a caller can skip work for one that a
    /// newer change of the same selection makes stale.
    public func hasQueuedChange(of selection: XAtom) -> Bool {
        queued.contains { $0.selection == selection }
    }

    /// Whether any change is waiting.
    var hasQueuedChange: Bool { !queued.isEmpty }

    /// Stops queueing changes.
    public func stop() {
        stopped = true
    }

    var isFinished: Bool { stopped }

    func handle(_ event: XServerEvent) -> Bool {
        guard case let .selectionOwnerChange(change) = event, selections.contains(change.selection) else { return false }
        queued.append(change)
        return true
    }
}
