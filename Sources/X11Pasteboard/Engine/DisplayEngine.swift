import Glibc
import Synchronization

/// The one X connection of a display, run on its own thread, that every `Pasteboard` of that
/// display shares.
///
/// Xlib connections are not thread-safe, and an owner must answer requests whenever they come,
/// so the connection lives on a dedicated thread that blocks in `poll(2)` on the X socket and on
/// a wake-up pipe. Calls from other threads queue a job, write a byte to the pipe and wait for
/// the job's answer (blocking) or are resumed by it (async).
final class DisplayEngine: Sendable {
    typealias Job = @Sendable (DisplayLoop) -> Void

    /// The display, as given or from `$DISPLAY`.
    let displayName: String
    /// Change counts and change streams of the watched selections.
    let hub = ChangeHub()
    private let jobs = Mutex<[Job]>([])
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let threadID = Mutex<pthread_t?>(nil)
    // Touched only on the engine thread (set once it runs), for jobs that queue jobs.
    nonisolated(unsafe) private var confinedLoop: DisplayLoop?

    private static let engines = Mutex<[String: DisplayEngine]>([:])

    /// The engine of `displayName` (nil: `$DISPLAY`), opening its connection the first time.
    /// A display that cannot be opened is not remembered, so a later call tries again.
    static func engine(for displayName: String?) throws(PasteboardError) -> DisplayEngine {
        let key = displayName ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        return try engines.withLock { (engines) throws(PasteboardError) -> DisplayEngine in
            if let engine = engines[key] { return engine }
            let engine = try DisplayEngine(connection: XConnection(displayName: displayName))
            engines[key] = engine
            return engine
        }
    }

    /// Every engine opened so far (the exit hand-off visits them).
    static var all: [DisplayEngine] { engines.withLock { Array($0.values) } }

    private init(connection: XConnection) {
        displayName = connection.displayName
        var descriptors: [Int32] = [-1, -1]
        precondition(pipe(&descriptors) == 0, "cannot create the pasteboard wake-up pipe: \(String(cString: strerror(errno)))")
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = descriptors[0]
        wakeWrite = descriptors[1]
        let handOver = Confined(connection)
        EngineThread.start { [self] in
            threadID.withLock { $0 = pthread_self() }
            Self.nameCurrentThread("xpb " + handOver.value.displayName)
            run(DisplayLoop(connection: handOver.value, hub: hub))
        }
    }

    /// Names the thread ("xpb :0") so that top, ps and the tests can tell it apart
    /// (pthread_setname_np is not visible from Swift's Glibc module; the thread's comm file is
    /// the same thing). Linux keeps 15 bytes.
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    private var isEngineThread: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: The thread

    private func run(_ loop: DisplayLoop) -> Never {
        confinedLoop = loop
        loop.connection.wakeDescriptor = wakeRead
        // Events that arrive while a job waits for its own answer (a conversion, a timestamp)
        // still reach the owners and the watcher.
        loop.connection.eventHandlers.append { [unowned loop] event in loop.dispatch(event) }
        while true {
            let batch = jobs.withLock { jobs in
                defer { jobs.removeAll() }
                return jobs
            }
            for job in batch { job(loop) }
            let deadline = loop.runDueWork()
            if !jobs.withLock(\.isEmpty) { continue }
            if let event = loop.connection.nextEvent(before: deadline) { _ = loop.dispatch(event) }
        }
    }

    private func enqueue(_ job: @escaping Job) {
        jobs.withLock { $0.append(job) }
        var byte: UInt8 = 1
        // A full pipe is already readable: the thread wakes either way.
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: Handing work over

    /// Runs `body` on the engine thread and waits for its answer.
    func blocking<T: Sendable>(_ body: @escaping @Sendable (DisplayLoop) throws(PasteboardError) -> T) throws(PasteboardError) -> T {
        if isEngineThread, let loop = confinedLoop { return try body(loop) }
        let semaphore = Semaphore()
        let answer = Answer<T>()
        enqueue { loop in
            answer.result = Self.capture(body, loop)
            semaphore.signal()
        }
        semaphore.wait()
        return try answer.result!.get()
    }

    /// Runs `body` on the engine thread; the caller is resumed with its answer.
    func awaiting<T: Sendable>(_ body: @escaping @Sendable (DisplayLoop) throws(PasteboardError) -> T) async throws(PasteboardError) -> T {
        let result: Result<T, PasteboardError> = await withCheckedContinuation { continuation in
            enqueue { loop in continuation.resume(returning: Self.capture(body, loop)) }
        }
        return try result.get()
    }

    private static func capture<T>(
        _ body: (DisplayLoop) throws(PasteboardError) -> T, _ loop: DisplayLoop
    ) -> Result<T, PasteboardError> {
        do {
            return .success(try body(loop))
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

/// The answer of a blocking job: written by the engine thread before it signals, read after.
private final class Answer<T>: @unchecked Sendable {
    var result: Result<T, PasteboardError>?
}
