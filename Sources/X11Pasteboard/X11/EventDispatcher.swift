/// One party to the traffic of a connection: a read, an owner with its transfers, a watcher,
/// a hand-off. The dispatcher gives it the events that are its and runs its timers.
protocol Conversation: AnyObject {
    /// Takes `event` when it belongs to this conversation; false leaves it for the others.
    /// XFixes owner changes go to every conversation, whatever each answers.
    func handle(_ event: XServerEvent) -> Bool
    /// Runs what is due without an event (timeouts, expiries); returns when to be called again.
    func runDueWork() -> Deadline
    /// A finished conversation is dropped and gets no more events.
    var isFinished: Bool { get }
    /// The server is gone: nothing more will come; a conversation someone waits for ends.
    func connectionLost(_ error: PasteboardError)
}

extension Conversation {
    func runDueWork() -> Deadline { .never }
    func connectionLost(_ error: PasteboardError) {}
}

/// The one event loop of a connection: every event goes to the conversation it belongs to, so
/// one connection reads from several owners, serves many requestors and watches selections at
/// once, and a wait for one answer never starves the others.
///
/// Nothing is dropped silently: a request for a selection nobody here serves is refused at
/// once (the requestor must not wait for a timeout), and any other event that belongs to no
/// conversation is counted in `unclaimedEventCount`.
///
/// Conversations are held weakly: whoever started one keeps it (a reader while it waits, the
/// pasteboard session its owners), and they hold the connection, which holds this.
///
/// - Warning: confined to the connection's thread, like the connection.
public final class EventDispatcher {
    private struct Entry {
        weak var conversation: (any Conversation)?
    }

    unowned let connection: XConnection
    private var entries: [Entry] = []
    private var conversations: [any Conversation] { entries.compactMap(\.conversation) }
    /// Events that belonged to no conversation (late answers to abandoned conversions, the
    /// PropertyNotify of a property we deleted ourselves): counted, so a test can tell a quiet
    /// loop from one that loses events.
    public private(set) var unclaimedEventCount = 0

    init(connection: XConnection) {
        self.connection = connection
    }

    /// Adds a conversation; it gets events until it is finished.
    func register(_ conversation: any Conversation) {
        if !entries.contains(where: { $0.conversation === conversation }) { entries.append(Entry(conversation: conversation)) }
    }

    /// Removes a conversation before it is finished.
    func unregister(_ conversation: any Conversation) {
        entries.removeAll { $0.conversation === conversation }
    }

    /// Tells every conversation that the server is gone, so that nobody waits for it.
    func connectionLost(_ error: PasteboardError) {
        for conversation in conversations { conversation.connectionLost(error) }
    }

    /// Whether a registered conversation matches `predicate` (the hand-off asks whether any
    /// owner still has transfers going).
    func contains(where predicate: (any Conversation) -> Bool) -> Bool {
        conversations.contains(where: predicate)
    }

    /// Gives an event to the conversation it belongs to.
    func dispatch(_ event: XServerEvent) {
        // A copy: a conversation may register another while handling.
        let current = conversations
        switch event {
        case .selectionOwnerChange, .destroyNotify:
            // Every party may care: several watchers, several owners with transfers to one window.
            var taken = false
            for conversation in current where !conversation.isFinished {
                if conversation.handle(event) { taken = true }
            }
            if !taken { unclaimedEventCount += 1 }
        case .wake, .other:
            return
        default:
            for conversation in current where !conversation.isFinished && conversation.handle(event) { return }
            if case let .selectionRequest(request) = event {
                // Not (or no longer) ours: refuse at once rather than let the requestor time out.
                connection.sendSelectionNotify(
                    to: request.requestor, selection: request.selection, target: request.target, property: .none,
                    time: request.time)
                connection.flush()
                return
            }
            unclaimedEventCount += 1
        }
    }

    /// Runs every conversation's timers, drops the finished ones, and returns when the next
    /// timer is due.
    func runDueWork() -> Deadline {
        var next = Deadline.never
        for conversation in conversations where !conversation.isFinished {
            next = next.earlier(conversation.runDueWork())
        }
        entries.removeAll { $0.conversation?.isFinished ?? true }
        return next
    }

    /// Dispatches events until `done` holds or `deadline` passes, running every conversation's
    /// timers meanwhile; returns whether `done` held. A wake-up (`XConnection.wakeDescriptor`)
    /// makes it look at `done` again.
    ///
    /// - Throws: `.connectionLost`.
    @discardableResult
    func pump(until done: () -> Bool, deadline: Deadline = .never) throws(PasteboardError) -> Bool {
        while true {
            let due = runDueWork()
            if done() { return true }
            if deadline.hasPassed { return false }
            if let event = try connection.nextEvent(before: deadline.earlier(due)) {
                dispatch(event)
            }
        }
    }

    /// Serves every conversation on the connection (owners, reads, watchers, a clipboard
    /// manager) until `done` holds, blocking on the X socket in between: a program whose work
    /// arrives as events (`xpb daemon`) waits here at no CPU cost. A wake-up
    /// (`XConnection.wakeDescriptor`) makes it look at `done` again.
    ///
    /// - Throws: `.connectionLost`.
    public func serve(until done: () -> Bool) throws(PasteboardError) {
        try pump(until: done)
    }

    /// Handles the events the server has already sent (after a round trip when `roundTrip`),
    /// so that a change a caller just caused (its own SetSelectionOwner) is counted before it
    /// hears back.
    func dispatchReceived(roundTrip: Bool) throws(PasteboardError) {
        if roundTrip { connection.sync() }
        while let event = try connection.nextEvent(before: .after(.zero)) { dispatch(event) }
        _ = runDueWork()
    }
}
