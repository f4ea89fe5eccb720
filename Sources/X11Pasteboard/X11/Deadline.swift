/// A point in monotonic time after which a wait gives up; `nil` instant means "never".
struct Deadline: Sendable {
    var instant: ContinuousClock.Instant?

    /// A deadline that never passes.
    static let never = Deadline(instant: nil)

    /// A deadline `duration` from now.
    static func after(_ duration: Duration) -> Deadline {
        Deadline(instant: ContinuousClock.now.advanced(by: duration))
    }

    /// The earlier of two deadlines: the event loop sleeps until the nearest one.
    func earlier(_ other: Deadline) -> Deadline {
        switch (instant, other.instant) {
        case (nil, _): return other
        case (_, nil): return self
        case let (a?, b?): return Deadline(instant: min(a, b))
        }
    }

    var hasPassed: Bool {
        guard let instant else { return false }
        return ContinuousClock.now >= instant
    }

    /// The time left in whole milliseconds, rounded up, as `poll(2)` wants it; -1 for "forever".
    var pollTimeout: Int32 {
        guard let instant else { return -1 }
        let left = ContinuousClock.now.duration(to: instant)
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
