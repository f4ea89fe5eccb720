import Glibc
import Synchronization
import SystemPackage

/// The event loop of one display: its X connection, on a thread of its own, that every
/// `Pasteboard` of that display shares.
///
/// Xlib connections are not thread-safe, and an owner must answer requests whenever they come,
/// so the connection lives on a dedicated thread that blocks in `poll(2)` on the X socket and on
/// a wake-up pipe. Between events the thread runs the session's jobs (`DisplayExecutor`): each
/// pasteboard call is a task on the session, and one that waits for an owner suspends, so
/// other calls go on meanwhile. Blocking calls wait for their task; async ones await it.
///
/// When the X server goes away the loop ends: reads in flight and later calls fail with
/// `.connectionLost`, change streams finish, and the next call opens a new loop, so a program
/// that uses the library survives its server and reconnects when one is back.
final class DisplayLoop: Sendable {
    /// The display, as given or from `$DISPLAY`.
    let displayName: String
    /// Change counts and change streams of the watched selections.
    let hub = ChangeHub()
    /// The state every call works on, isolated to this loop's thread.
    let session: DisplaySession
    private let executor: DisplayExecutor
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    /// Calls in flight, and whether the loop has ended; a lost loop serves its calls in flight
    /// before its thread ends, and takes no new ones.
    private let calls = Mutex<(inFlight: Int, ended: Bool)>((0, false))
    /// The registry key, so that a loop that ended makes room for a new one.
    private let key: String

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

    private init(connection: sending XConnection, key: String) throws(PasteboardError) {
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
        executor = DisplayExecutor(wake: wakeWrite)
        session = DisplaySession(connection: connection, hub: hub, executor: executor)
        // From here on the connection is the loop thread's alone.
        DetachedThread.start { [self] in run(session.connection) }
    }

    deinit {
        try? wakeRead.close()
        try? wakeWrite.close()
    }

    // MARK: The thread

    private func run(_ connection: XConnection) {
        executor.adoptCurrentThread()
        DetachedThread.nameCurrent("xpb " + displayName)
        connection.wakeDescriptor = wakeRead.rawValue
        connection.events.register(session)
        do {
            while true {
                executor.runQueued()
                let deadline = connection.events.runDueWork()
                if executor.hasQueuedJobs { continue }
                try connection.checkAlive()
                if let event = try connection.nextEvent(before: deadline) { connection.events.dispatch(event) }
            }
        } catch {
            end(connection, error)
        }
    }

    /// The server is gone: later calls get a new loop; the calls in flight get their failures.
    private func end(_ connection: XConnection, _ error: PasteboardError) {
        Self.loops.withLock { loops in
            if loops[key] === self { loops[key] = nil }
        }
        connection.events.connectionLost(error)
        hub.finishAll()
        // Their tasks still need this thread: serve them, without X, until none is left.
        var descriptor = [pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0)]
        while true {
            executor.runQueued()
            // A call that resumed may have started a read since: it fails at once too.
            connection.events.connectionLost(error)
            _ = connection.events.runDueWork()
            if executor.hasQueuedJobs { continue }
            let finished = calls.withLock { calls in
                if calls.inFlight == 0 && !executor.hasQueuedJobs { calls.ended = true }
                return calls.ended
            }
            if finished { return }
            _ = poll(&descriptor, 1, 1000)
            var drained = [UInt8](repeating: 0, count: 64)
            _ = try? drained.withUnsafeMutableBytes { try wakeRead.read(into: $0) }
        }
    }

    /// Counts a call in; false once the loop has ended.
    private func enter() -> Bool {
        calls.withLock { calls in
            if calls.ended { return false }
            calls.inFlight += 1
            return true
        }
    }

    private func leave() {
        calls.withLock { $0.inFlight -= 1 }
        // The loop may be waiting for the last call to end.
        _ = try? wakeWrite.writeAll([UInt8(1)])
    }

    // MARK: Handing work over

    /// Runs `body` on the session and waits for its answer. Not from the loop's own thread,
    /// which the answer needs.
    func blocking<T: Sendable>(
        _ body: @escaping @Sendable (isolated DisplaySession) async throws(PasteboardError) -> T
    ) throws(PasteboardError) -> T {
        if executor.isCurrentThread {
            throw PasteboardError(.protocolViolation, "a blocking pasteboard call from inside the pasteboard's own work")
        }
        guard enter() else { throw lostError }
        defer { leave() }
        let semaphore = CountingSemaphore()
        let answer = Answer<T>()
        let session = self.session
        Task(executorPreference: executor) {
            answer.result = await Self.capture(body, session)
            semaphore.signal()
        }
        semaphore.wait()
        return try answer.result!.get()
    }

    /// Runs `body` on the session; the caller suspends until its answer.
    func awaiting<T: Sendable>(
        _ body: @escaping @Sendable (isolated DisplaySession) async throws(PasteboardError) -> T
    ) async throws(PasteboardError) -> T {
        guard enter() else { throw lostError }
        defer { leave() }
        return try await Self.capture(body, session).get()
    }

    private var lostError: PasteboardError {
        PasteboardError.connectionLost(displayName)
    }

    /// A call's answer; whatever it made of a connection that broke under it is a failure.
    private static func capture<T>(
        _ body: (isolated DisplaySession) async throws(PasteboardError) -> T, _ session: isolated DisplaySession
    ) async -> Result<T, PasteboardError> {
        do {
            try session.connection.checkAlive()
            let value = try await body(session)
            try session.connection.checkAlive()
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

/// The answer of a blocking call: written by its task before it signals, read after.
private final class Answer<T>: @unchecked Sendable {
    var result: Result<T, PasteboardError>?
}
