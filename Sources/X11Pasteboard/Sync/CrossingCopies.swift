import Synchronization

/// Where a copy handed over from the other side of a two-way mirror stands: its number among
/// the copies this side received (1, 2, …), and how many of this side's copies the other side
/// had received when it sent it.
public struct CopyStamp: Sendable, Hashable {
    /// The copy's number among those received from the other side.
    public var index: UInt64
    /// How many copies from this side the other side had received when it sent this one.
    public var seen: UInt64

    /// Creates a stamp.
    public init(index: UInt64, seen: UInt64) {
        self.index = index
        self.seen = seen
    }
}

/// One side's count of what crossed between two sides that mirror each other both ways (two
/// displays of `xpb sync`, two bridges), so that copies made on both sides at once end the same
/// on both: each side takes the other's copy unless its own later copy supersedes it, and when
/// two copies crossed (each sent before the other arrived), both keep the same one.
public final class CrossingCopies: Sendable {
    private struct Sent {
        var count: UInt64 = 0
        /// For each selection, the number of the last copy sent and what it had seen.
        var last: [String: CopyStamp] = [:]
    }

    private let received = Atomic<UInt64>(0)
    private let sent = Mutex(Sent())

    /// A count with nothing crossed yet.
    public init() {}

    /// Counts a copy arriving from the other side (in the order they arrive); returns its number.
    public func receivedOne() -> UInt64 {
        received.add(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Records that this side sends a copy of `selection`; returns how many copies from the other
    /// side it had received by then (the copy's `seen`).
    public func sending(_ selection: String) -> UInt64 {
        let seen = received.load(ordering: .acquiring)
        sent.withLock { sent in
            sent.count += 1
            sent.last[selection] = CopyStamp(index: sent.count, seen: seen)
        }
        return seen
    }

    /// Whether to take the other side's copy of `selection` stamped `stamp`. Not when this side
    /// had received it before sending a later copy of its own (which the other side takes); when
    /// the two crossed, only if the other side is the one that wins (`winsCrossing` false).
    public func accepts(_ stamp: CopyStamp, for selection: String, winsCrossing: Bool) -> Bool {
        guard let mine = sent.withLock({ $0.last[selection] }) else { return true }
        if mine.seen >= stamp.index { return false }
        let crossed = mine.index > stamp.seen
        return !crossed || !winsCrossing
    }
}
