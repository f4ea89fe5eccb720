import Glibc
import Synchronization
import SystemPackage
import X11Pasteboard

/// The sending half of a bridge stream: frames queued by any thread and written in order by a
/// thread of its own, so that neither the X loop nor the stream reader ever blocks on a slow
/// peer (two bridges writing large frames to each other at once would otherwise deadlock).
final class FrameWriter: Sendable {
    private let queue = Mutex<[(head: [UInt8], tail: [UInt8])]>([])
    private let ready = CountingSemaphore()
    private let descriptor: Int32
    private let failed: @Sendable () -> Void

    /// A writer to `descriptor`; after a failed write (the peer went away) it calls `failed`
    /// and writes nothing more.
    init(descriptor: Int32, failed: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.failed = failed
        DetachedThread.start { [self] in drain() }
    }

    /// Queues `frame`.
    func send(_ frame: BridgeFrame) {
        let parts = frame.encodedParts()
        queue.withLock { $0.append(parts) }
        ready.signal()
    }

    private func drain() {
        while true {
            ready.wait()
            guard let parts = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            let written = parts.head.withUnsafeBytes { FileDescriptorIO.writeAll(descriptor, $0) }
                && parts.tail.withUnsafeBytes { FileDescriptorIO.writeAll(descriptor, $0) }
            if !written {
                failed()
                return
            }
        }
    }
}

/// What this side announced without sending: the last snapshot of each selection, by copy
/// (origin, generation), for the far side's requests (answered from the stream's thread).
final class AnnouncedContent: Sendable {
    private let latest = Mutex<[String: (origin: UInt64, generation: UInt64, snapshot: SelectionSnapshot)]>([:])

    /// Keeps `snapshot` as `selection`'s content, replacing the last.
    func keep(_ snapshot: SelectionSnapshot, origin: UInt64, generation: UInt64, as selection: String) {
        latest.withLock { $0[selection] = (origin, generation, snapshot) }
    }

    /// The bytes of `target` in copy (origin, generation) of `selection`; nil once replaced.
    func bytes(origin: UInt64, generation: UInt64, selection: String, target: String) -> [UInt8]? {
        latest.withLock { latest in
            guard let kept = latest[selection], kept.origin == origin, kept.generation == generation else { return nil }
            return kept.snapshot.representation(forTarget: target)?.bytes
        }
    }
}

/// Pastes on this side of content that stayed on the far side: a request goes out, and the
/// owner waits for the data frame the stream's thread receives (bounded by the paste timeout)
/// while the X loop goes on serving every other request and watching: a large paste crossing
/// the network holds up nothing but itself.
///
/// Only bytes someone waits for are kept, and only while they wait: a peer sending data frames
/// nobody asked for (or answering too late) cannot make this side hold on to them.
final class RemoteFetches: Sendable {
    private struct Key: Hashable {
        var origin: UInt64
        var generation: UInt64
        var selection: String
        var target: String
    }

    private struct State {
        /// How many pastes wait for each key (two pastes of one target at once share an answer).
        var waiting: [Key: Int] = [:]
        /// Answers to waited-for keys; dropped with the last paste waiting for them.
        var arrived: [Key: [UInt8]?] = [:]
        /// The stream ended: nothing more will come.
        var closed = false
    }

    private let state = Mutex(State())
    private let writer: FrameWriter
    private let inbox: Mailbox<Publication>

    init(writer: FrameWriter, inbox: Mailbox<Publication>) {
        self.writer = writer
        self.inbox = inbox
    }

    /// Asks the far side for `target` and serves `connection` until its bytes come or `timeout`
    /// passes; nil when the far side no longer has them or did not answer in time. Runs on the
    /// connection's thread (inside a conversion). Whatever the inbox brings meanwhile (the far
    /// side's next copy) is handed to `takeInbox` at once, not after the paste.
    func fetch(
        origin: UInt64, generation: UInt64, selection: String, target: String, timeout: Duration, serving connection: XConnection,
        takeInbox: () -> Void
    ) -> [UInt8]? {
        let key = Key(origin: origin, generation: generation, selection: selection, target: target)
        guard state.withLock({ state in
            if state.closed { return false }
            state.waiting[key, default: 0] += 1
            return true
        }) else { return nil }
        defer {
            state.withLock { state in
                let left = state.waiting[key, default: 1] - 1
                state.waiting[key] = left == 0 ? nil : left
                if left == 0 { state.arrived[key] = nil }
            }
        }
        writer.send(.request(origin: origin, generation: generation, selection: selection, target: target))
        let deadline = ContinuousClock.now + timeout
        var answer: [UInt8]??
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var closed = false
            let woken = (try? connection.serveEvents(until: {
                (answer, closed) = state.withLock { ($0.arrived[key], $0.closed) }
                return answer != nil || closed || inbox.hasMessages
            }, timeout: left)) ?? false
            if let answer { return answer }
            guard woken, !closed else { return nil }
            takeInbox()
        }
    }

    /// Refuses every paste waiting or to come: the stream ended.
    func close() {
        state.withLock { $0.closed = true }
        inbox.wake()
    }

    /// Hands over a data frame's bytes (from the stream's thread) and wakes the X loop; bytes
    /// nobody waits for are dropped at once.
    func deliver(origin: UInt64, generation: UInt64, selection: String, target: String, bytes: [UInt8]?) {
        let key = Key(origin: origin, generation: generation, selection: selection, target: target)
        let wanted = state.withLock { state in
            guard state.waiting[key] != nil else { return false }
            state.arrived[key] = .some(bytes)
            return true
        }
        if wanted { inbox.wake() }
    }
}
