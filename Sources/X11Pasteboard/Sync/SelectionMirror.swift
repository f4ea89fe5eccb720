/// Takes selections on one connection with content that came from elsewhere (another
/// selection, another display, another machine) and serves it until someone else copies.
///
/// Each new content supersedes the last on the same selection without the selection passing
/// through "no owner": one copy elsewhere is one change here, which is what a watcher counting
/// changes (and a user) expects.
///
/// - Warning: not thread-safe; use it on the connection's thread.
public final class SelectionMirror {
    /// The connection the selections are owned on.
    public let connection: XConnection
    private var owners: [XAtom: SelectionOwner] = [:]

    /// A mirror on `connection`.
    public init(connection: XConnection) {
        self.connection = connection
    }

    /// Whether a change was made by this mirror (or anything else owning on this connection):
    /// such a change is never mirrored back.
    public func madeChange(_ change: OwnerChange) -> Bool {
        change.owner == connection.window
    }

    /// Takes `selection` and serves `content` as it, replacing what this mirror served there
    /// before (transfers in flight still finish).
    ///
    /// - Throws: `.ownershipRefused`, `.timedOut`, `.connectionLost`.
    public func publish(_ content: SelectionContent, as selection: XAtom) throws(PasteboardError) {
        let owner = SelectionOwner(connection: connection, selection: selection, content: content)
        let previous = owners[selection]
        // The server sends no SelectionClear when a window takes a selection it owns already.
        previous?.supersede()
        do {
            try owner.acquire()
        } catch {
            owners[selection] = nil
            throw error
        }
        owners[selection] = owner
    }

    /// Hands what this mirror serves as CLIPBOARD, if it still does, to the clipboard manager
    /// (SAVE_TARGETS) before the process lets go of it; never secret content. For a mirror
    /// that is being stopped.
    public func handOffToClipboardManager() {
        for owner in owners.values where owner.isOwner { _ = owner.handOffToClipboardManager() }
    }

    /// Whether this mirror still owns `selection`.
    public func owns(_ selection: XAtom) -> Bool {
        owners[selection]?.isOwner ?? false
    }
}

extension SelectionWatcher {
    /// The next owner change of a watched selection, as `nextChange(timeout:)`; also returns nil
    /// as soon as `shouldStop` holds, which is asked whenever the connection is woken
    /// (`XConnection.wakeDescriptor`): work handed over by another thread is picked up at once.
    ///
    /// - Throws: `.connectionLost`.
    public func nextChange(timeout: Duration?, stoppingWhen shouldStop: () -> Bool) throws(PasteboardError) -> OwnerChange? {
        let deadline = timeout.map(Deadline.after) ?? .never
        guard try connection.events.pump(until: { hasQueuedChange || shouldStop() }, deadline: deadline),
            hasQueuedChange
        else { return nil }
        return try nextChange(timeout: .zero)
    }
}

extension XConnection {
    /// Serves every conversation on the connection (owners, reads, watchers) until `done` holds
    /// or `timeout` passes; returns whether `done` held. For work on the connection's thread that
    /// waits for another thread (a bridge's owner waiting for bytes from the network): the
    /// connection keeps answering meanwhile, and a wake-up (`wakeDescriptor`) makes it look at
    /// `done` again.
    ///
    /// - Throws: `.connectionLost`.
    public func serveEvents(until done: () -> Bool, timeout: Duration) throws(PasteboardError) -> Bool {
        try events.pump(until: done, deadline: .after(timeout))
    }
}
