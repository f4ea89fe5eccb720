/// Reports owner changes of selections as XFixes announces them: no polling, and no thread or
/// timer of its own, so a watcher waiting for the next change costs no CPU at all.
///
/// - Warning: not thread-safe; call it from the connection's thread.
public final class SelectionWatcher {
    /// The connection the notifications arrive on.
    public let connection: XConnection
    /// The watched selections.
    public let selections: [XAtom]

    /// Starts watching; changes from now on are reported, none from before.
    ///
    /// - Throws: `.missingExtension` when the server has no XFixes.
    /// The corresponding XFixes function is `XFixesSelectSelectionInput`.
    public init(connection: XConnection, selections: [XAtom]) throws(PasteboardError) {
        self.connection = connection
        self.selections = selections
        for selection in selections { try connection.watchOwnerChanges(of: selection) }
        // Selected before the caller acts on "watching", so no change slips between.
        connection.sync()
    }

    /// The next owner change of a watched selection; nil when `timeout` passes first (nil waits
    /// for ever). Other events on the connection go to its other parties.
    public func nextChange(timeout: Duration? = nil) -> OwnerChange? {
        let deadline = timeout.map(Deadline.after) ?? .never
        while let event = connection.nextEvent(before: deadline) {
            if case let .selectionOwnerChange(change) = event, selections.contains(change.selection) {
                return change
            }
            connection.route(event)
        }
        return nil
    }
}
