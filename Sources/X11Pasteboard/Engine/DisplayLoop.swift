import Glibc
import Synchronization
import SystemPackage

/// The event loop of one display: its X connection, on a thread of its own, that every
/// `Pasteboard` of that display shares.
///
/// Xlib connections are not thread-safe, and an owner must answer requests whenever they come,
/// so the connection lives on a dedicated thread that blocks in `poll(2)` on the X socket and on
/// a wake-up pipe. Calls from other threads queue a job, write a byte to the pipe and wait for
/// the job's answer (blocking) or are resumed by it (async).
///
/// When the X server goes away the loop ends: queued and later jobs fail with
/// `.connectionLost`, change streams finish, and the next call opens a new loop, so a program
/// that uses the library survives its server and reconnects when one is back.
final class DisplayLoop: Sendable {
    typealias Job = @Sendable (DisplaySession) -> Void

    /// The display, as given or from `$DISPLAY`.
    let displayName: String
    /// Change counts and change streams of the watched selections.
    let hub = ChangeHub()
    private let jobs = Mutex<(queue: [Job], ended: Bool)>(([], false))
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    private let threadID = Mutex<pthread_t?>(nil)
    /// The registry key, so that a loop that ended makes room for a new one.
    private let key: String
    // Touched only on the loop's thread (set once it runs), for jobs that queue jobs.
    nonisolated(unsafe) private var confinedSession: DisplaySession?

    private static let loops = Mutex<[String: DisplayLoop]>([:])

    /// The loop of `displayName` (nil: `$DISPLAY`), opening its connection the first time, or
    /// again after the last one was lost. A display that cannot be opened is not remembered, so
    /// a later call tries again.
    static func engine(for displayName: String?) throws(PasteboardError) -> DisplayLoop {
        let key = displayName ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        return try loops.withLock { (loops) throws(PasteboardError) -> DisplayLoop in
            if let loop = loops[key] { return loop }
            let loop = try DisplayLoop(connection: XConnection(displayName: displayName), key: key)
            loops[key] = loop
            return loop
        }
    }

    /// Every loop running now (the exit hand-off visits them).
    static var all: [DisplayLoop] { loops.withLock { Array($0.values) } }

    private init(connection: XConnection, key: String) throws(PasteboardError) {
        displayName = connection.displayName
        self.key = key
        do {
            (wakeRead, wakeWrite) = try FileDescriptor.pipe()
            for descriptor in [wakeRead, wakeWrite] {
                _ = fcntl(descriptor.rawValue, F_SETFL, fcntl(descriptor.rawValue, F_GETFL) | O_NONBLOCK)
                _ = fcntl(descriptor.rawValue, F_SETFD, FD_CLOEXEC)
            }
        } catch {
            throw PasteboardError(.connectionLost, "cannot create the pasteboard wake-up pipe: \(error)")
        }
        let handOver = Confined(connection)
        EngineThread.start { [self] in
            threadID.withLock { $0 = pthread_self() }
            EngineThread.nameCurrent("xpb " + handOver.value.displayName)
            run(DisplaySession(connection: handOver.value, hub: hub))
        }
    }

    private var isLoopThread: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: The thread

    private func run(_ session: DisplaySession) {
        confinedSession = session
        session.connection.wakeDescriptor = wakeRead.rawValue
        do {
            while true {
                for job in takeJobs() { job(session) }
                let deadline = session.connection.events.runDueWork()
                if !jobs.withLock(\.queue.isEmpty) { continue }
                try session.connection.checkAlive()
                if let event = try session.connection.nextEvent(before: deadline) {
                    session.connection.events.dispatch(event)
                }
            }
        } catch {
            end(session, error)
        }
    }

    /// The server is gone: later calls get a new loop, and nothing waits for this one.
    private func end(_ session: DisplaySession, _ error: PasteboardError) {
        Self.loops.withLock { loops in
            if loops[key] === self { loops[key] = nil }
        }
        let pending = jobs.withLock { state in
            state.ended = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        // Each fails at its first step that needs the server.
        for job in pending { job(session) }
        hub.finishAll()
        confinedSession = nil
        // Both ends of the wake-up pipe stay open until the loop is gone: a caller that queued
        // a job just before the end still writes its byte, which must not raise SIGPIPE.
    }

    deinit {
        try? wakeRead.close()
        try? wakeWrite.close()
    }

    private func takeJobs() -> [Job] {
        jobs.withLock { state in
            defer { state.queue.removeAll() }
            return state.queue
        }
    }

    /// Queues a job; false when the loop has ended.
    private func enqueue(_ job: @escaping Job) -> Bool {
        guard jobs.withLock({ state in
            if state.ended { return false }
            state.queue.append(job)
            return true
        }) else { return false }
        // A full pipe is already readable: the thread wakes either way.
        _ = try? wakeWrite.writeAll([UInt8(1)])
        return true
    }

    // MARK: Handing work over

    /// Runs `body` on the loop's thread and waits for its answer.
    func blocking<T: Sendable>(_ body: @escaping @Sendable (DisplaySession) throws(PasteboardError) -> T) throws(PasteboardError) -> T {
        if isLoopThread, let session = confinedSession { return try Self.capture(body, session).get() }
        let semaphore = Semaphore()
        let answer = Answer<T>()
        let queued = enqueue { session in
            answer.result = Self.capture(body, session)
            semaphore.signal()
        }
        guard queued else { throw lostError }
        semaphore.wait()
        return try answer.result!.get()
    }

    /// Runs `body` on the loop's thread; the caller is resumed with its answer.
    func awaiting<T: Sendable>(_ body: @escaping @Sendable (DisplaySession) throws(PasteboardError) -> T) async throws(PasteboardError) -> T {
        let result: Result<T, PasteboardError> = await withCheckedContinuation { continuation in
            let queued = enqueue { session in continuation.resume(returning: Self.capture(body, session)) }
            if !queued { continuation.resume(returning: .failure(lostError)) }
        }
        return try result.get()
    }

    private var lostError: PasteboardError {
        PasteboardError(.connectionLost, "lost the connection to the X server \"\(displayName)\"")
    }

    /// A job's answer; whatever it made of a connection that broke under it is a failure.
    private static func capture<T>(
        _ body: (DisplaySession) throws(PasteboardError) -> T, _ session: DisplaySession
    ) -> Result<T, PasteboardError> {
        do {
            try session.connection.checkAlive()
            let value = try body(session)
            try session.connection.checkAlive()
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

/// A value handed from one thread to another that uses it alone from then on.
private struct Confined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The answer of a blocking job: written by the loop's thread before it signals, read after.
private final class Answer<T>: @unchecked Sendable {
    var result: Result<T, PasteboardError>?
}
