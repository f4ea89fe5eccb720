import Glibc
import Synchronization
import SystemPackage

/// The executor of a display's session: its jobs run on the loop's thread, between X events,
/// one at a time. A pasteboard call is a task on it; one that waits for an owner suspends, so
/// the calls behind it (and the events of every other conversation) go on.
///
/// It is a task executor too: a blocking call's task starts on it, so no thread of Swift's
/// cooperative pool is needed (a caller blocking such a thread could otherwise starve it).
final class DisplayExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let queue = Mutex<[UnownedJob]>([])
    /// The write end of the loop's wake-up pipe: a queued job wakes the loop's poll.
    private let wake: FileDescriptor
    /// The loop's thread, set once it runs: isolation checks compare against it.
    private let thread = Mutex<pthread_t?>(nil)

    init(wake: FileDescriptor) {
        self.wake = wake
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.append(unowned) }
        // A full pipe is already readable: the loop wakes either way.
        _ = try? wake.writeAll([UInt8(1)])
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Called by `assumeIsolated` outside a job of ours: the loop's thread is the session's.
    func checkIsolated() {
        precondition(isCurrentThread, "a display session was touched off its loop's thread")
    }

    /// Marks the calling thread as the loop's.
    func adoptCurrentThread() {
        thread.withLock { $0 = pthread_self() }
    }

    var isCurrentThread: Bool {
        thread.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Whether a job waits.
    var hasQueuedJobs: Bool { !queue.withLock(\.isEmpty) }

    /// Runs the jobs queued so far (those they queue run on the next call).
    func runQueued() {
        let jobs = queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        for job in jobs { job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor()) }
    }
}
