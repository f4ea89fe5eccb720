import Glibc

/// A point in monotonic time after which a wait gives up; a nil instant means "never".
///
/// Nanoseconds of CLOCK_MONOTONIC rather than `ContinuousClock.Instant`: that type's layout is
/// not fixed at compile time, so every class holding a deadline (each read, each owner) had its
/// metadata laid out at run time, a tenth of a small paste's work.
struct Deadline: Sendable {
    /// Nanoseconds on CLOCK_MONOTONIC (ContinuousClock's clock on Linux).
    var instant: UInt64?

    /// A deadline that never passes.
    static let never = Deadline(instant: nil)

    /// A deadline `duration` from now.
    static func after(_ duration: Duration) -> Deadline {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let (sum, overflow) = Self.now.addingReportingOverflow(UInt64(clamping: nanoseconds))
        return Deadline(instant: overflow ? nil : sum)
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
        return Self.now >= instant
    }

    /// The time left in whole milliseconds, rounded up, as `poll(2)` wants it; -1 for "forever".
    var pollTimeout: Int32 {
        guard let instant else { return -1 }
        let now = Self.now
        if instant <= now { return 0 }
        return Int32(clamping: (instant - now + 999_999) / 1_000_000)
    }

    private static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
