/// Decides when a change of a selection is mirrored: a lone change at once; a burst (a mouse
/// drag sets PRIMARY many times a second) only at its first change and, once it has been quiet
/// for `quiet`, at its last, so the far side ends up with the final content and sees at most
/// two changes per burst.
public struct ChangeCoalescer: Sendable {
    /// How long a selection must stay unchanged for a burst to be over.
    public let quiet: Duration
    private var lastChange: ContinuousClock.Instant?
    /// When the change held back during a burst is due; nil when none is held back.
    public private(set) var pendingDue: ContinuousClock.Instant?

    /// A coalescer that waits `quiet` after a burst.
    public init(quiet: Duration = .milliseconds(150)) {
        self.quiet = quiet
    }

    /// Records a change at `now`; true when it is to be mirrored at once, false when it is held
    /// back (it is then due at `pendingDue`, unless a newer change replaces it).
    public mutating func changed(at now: ContinuousClock.Instant) -> Bool {
        defer { lastChange = now }
        if pendingDue == nil, lastChange.map({ now - $0 >= quiet }) ?? true { return true }
        pendingDue = now + quiet
        return false
    }

    /// Whether the held-back change is due at `now`; if so it is no longer held.
    public mutating func takeDue(at now: ContinuousClock.Instant) -> Bool {
        guard let due = pendingDue, now >= due else { return false }
        pendingDue = nil
        return true
    }

    /// Forgets a held-back change (its selection was cleared, or the mirror stops).
    public mutating func cancel() {
        pendingDue = nil
    }
}
