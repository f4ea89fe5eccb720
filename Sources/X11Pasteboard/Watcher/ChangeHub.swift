import FoundationEssentials
import Synchronization

/// The change counts of the watched selections of one display and the streams that observe them.
///
/// The display's loop records XFixes notifications; any thread reads counts and subscribes.
final class ChangeHub: Sendable {
    private struct Watched {
        var changeCount = 0
        var subscribers: [UInt64: AsyncStream<PasteboardChange>.Continuation] = [:]
    }

    private struct State {
        var watched: [Pasteboard.Name: Watched] = [:]
        var nextSubscriber: UInt64 = 0
        /// The connection is gone: new streams end at once.
        var finished = false
    }

    private let state = Mutex(State())

    /// Counts changes of the selection `name` from now on (the engine asks XFixes for them).
    func startCounting(_ name: Pasteboard.Name) {
        state.withLock { state in
            if state.watched[name] == nil { state.watched[name] = Watched() }
        }
    }

    func changeCount(of name: Pasteboard.Name) -> Int {
        state.withLock { $0.watched[name]?.changeCount ?? 0 }
    }

    /// A new stream of the changes of `name` from now on; it ends when its consumer stops.
    func changes(of name: Pasteboard.Name) -> AsyncStream<PasteboardChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PasteboardChange.self)
        let id = state.withLock { state -> UInt64? in
            if state.finished { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.watched[name, default: Watched()].subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watched[name]?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Counts one XFixes notification of the selection `name` and tells every subscriber.
    func record(_ change: OwnerChange, of name: Pasteboard.Name, isLocal: Bool) {
        // A destroyed window or a closed client leaves the selection without owner, whatever
        // the event's owner field says.
        let cleared = change.owner == .none || change.reason != .newOwner
        let delivery: (PasteboardChange, [AsyncStream<PasteboardChange>.Continuation])? = state.withLock { state in
            var watched = state.watched[name, default: Watched()]
            watched.changeCount += 1
            state.watched[name] = watched
            let event = PasteboardChange(
                kind: cleared ? .cleared : .ownerChanged, name: name, changeCount: watched.changeCount,
                owner: cleared ? .none : change.owner, reason: change.reason, serverTime: change.timestamp,
                date: Date(), isLocal: isLocal)
            return (event, Array(watched.subscribers.values))
        }
        guard let (event, subscribers) = delivery else { return }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Ends every stream: the display's connection is gone.
    func finishAll() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { for name in state.watched.keys { state.watched[name]?.subscribers.removeAll() } }
            return state.watched.values.flatMap { $0.subscribers.values }
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
