public import Foundation
import CTestShims
import Glibc
import Subprocess
import SystemPackage

/// A process started for a test: the one way every test target starts processes.
///
/// Whichever way it is started, a child gets
/// - stdout and stderr in files, never pipes, so a process that forks and keeps them open
///   cannot hold a test up;
/// - stdin from `/dev/null`, from a regular file holding given bytes, or from a given file;
/// - an empty signal mask and the default disposition of every signal: the test runner's threads
///   block SIGTERM, and a child that inherited that mask would ignore the SIGTERM that should end
///   it;
/// - no descriptor of the runner beyond 0, 1 and 2: a parallel suite's Xvfb socket, or a pipe
///   another test waits on for EOF, never leaks into a child (nor into what it forks);
/// - its own process group, so a test can never signal the runner by accident;
/// - the runner's environment with `LC_ALL=C.UTF-8` and the changes the test asks for.
///
/// Two ways to start one:
/// - `init` starts a child that runs on (an owner, a watcher, Xvfb) with `posix_spawn`. The
///   child is reaped only by this object (`waitpid` on its pid), so until `status` has seen it
///   exit its pid cannot be taken by another process, and `signal(_:)` and `terminate()` end it
///   by process id safely.
/// - `run` runs a command to its end through swift-subprocess (`Subprocess.run`, which gives
///   the child the same state: it closes every descriptor from 3 up and resets the signal mask and
///   dispositions), killing it after a timeout; it returns the finished child.
public final class ChildProcess: @unchecked Sendable {
    /// Where a child's stdin comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// A regular file holding these bytes.
        case bytes(Data)
        /// An existing file.
        case file(String)
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this code.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// The shell's number for it: the exit code, or 128 + the signal.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// How to start a child, beyond its command line.
    public struct Options: Sendable {
        /// Added to (or replacing) the runner's environment.
        public var environment: [String: String]
        /// Removed from the runner's environment (before `environment` is added).
        public var unsetting: [String]
        /// What the child reads.
        public var stdin: Input
        /// The directory the child starts in; nil keeps the runner's.
        public var workingDirectory: String?

        public init(
            environment: [String: String] = [:], unsetting: [String] = [], stdin: Input = .none,
            workingDirectory: String? = nil
        ) {
            self.environment = environment
            self.unsetting = unsetting
            self.stdin = stdin
            self.workingDirectory = workingDirectory
        }
    }

    /// The child's process id.
    public let pid: Int32
    /// The command line, for failure messages.
    public let command: String
    /// True when `run` had to end the child because it outlived its timeout.
    public let timedOut: Bool
    private let directory: URL
    private let lock = NSLock()
    private var ended: Termination?
    /// Xvfb started with `-terminate` outlives this object: it ends with the runner.
    var leavesRunning = false

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: added to (or replacing) this process's environment.
    ///   - stdin: the bytes the child reads; nil gives it `/dev/null`.
    public convenience init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) throws {
        try self.init(executable, arguments, options: Options(environment: environment, stdin: stdin.map(Input.bytes) ?? .none))
    }

    /// Starts `executable` with `arguments` as `options` say.
    public init(_ executable: String, _ arguments: [String], options: Options) throws {
        let launch = try Launch(executable, arguments, options)
        do {
            pid = try launch.spawn()
        } catch {
            launch.discard()
            throw error
        }
        launch.closeDescriptors()
        command = launch.command
        directory = launch.directory
        timedOut = false
    }

    private init(finished launch: Launch, pid: pid_t, termination: Termination, timedOut: Bool) {
        self.pid = pid
        command = launch.command
        directory = launch.directory
        ended = termination
        self.timedOut = timedOut
    }

    deinit {
        if !leavesRunning { terminate() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the child wrote to stdout so far.
    public var stdout: Data { (try? Data(contentsOf: directory.appendingPathComponent("stdout"))) ?? Data() }
    /// Its stdout as UTF-8 text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// What the child wrote to stderr so far.
    public var stderr: Data { (try? Data(contentsOf: directory.appendingPathComponent("stderr"))) ?? Data() }
    /// Its stderr as UTF-8 text.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// How the child ended, once it has (reaping it).
    public var termination: Termination? { lock.withLock { reapLocked() } }

    /// The exit status once the child has exited (128 + signal for a signal), reaping it.
    public var status: Int32? { termination?.status }

    /// Whether the child still runs.
    public var isRunning: Bool { termination == nil }

    /// `waitpid` without blocking; the caller holds `lock`.
    private func reapLocked() -> Termination? {
        if let ended { return ended }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let signal = raw & 0x7f
        ended = signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
        return ended
    }

    /// Sends `signal` to the child unless it has exited; false when it had. The pid is still the
    /// child's when this sends: only this object reaps it.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        lock.withLock {
            guard reapLocked() == nil else { return false }
            kill(pid, signal)
            return true
        }
    }

    /// Waits until the child exits or `timeout` passes; returns its status, nil on timeout.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let status { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return status
    }

    /// Waits until stdout holds at least `count` lines or `timeout` passes; returns the lines.
    public func waitForLines(_ count: Int, timeout: Duration) async -> [String] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let lines = stdoutText.split(separator: "\n").map(String.init)
            if lines.count >= count || ContinuousClock.now >= deadline || !isRunning { return lines }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the child's main thread sleeps in poll(2) and has used no CPU for `quiet`, or
    /// `timeout` passes; returns whether it got there.
    ///
    /// For a child whose start-up ends in a wait for events (`xpb watch`, once it has subscribed
    /// and synced): a fixed pause is too short when the machine is loaded (parallel suites, a
    /// sanitizer build), and the child then misses what the test does next. Its round trips
    /// during start-up also wait in poll, but for far less than `quiet`.
    @discardableResult
    public func waitUntilIdle(quiet: Duration = .milliseconds(150), timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var idleSince: (instant: ContinuousClock.Instant, ticks: Int)?
        while ContinuousClock.now < deadline, isRunning {
            let task = "/proc/\(pid)/task/\(pid)"
            if let stat = try? String(contentsOfFile: "\(task)/stat", encoding: .utf8),
                let ticks = try? CPUTime.ticksOf(stat),
                let wchan = try? String(contentsOfFile: "\(task)/wchan", encoding: .utf8),
                Self.state(ofStat: stat) == "S", wchan.contains("poll")
            {
                if let since = idleSince, since.ticks == ticks {
                    if ContinuousClock.now - since.instant >= quiet { return true }
                } else {
                    idleSince = (ContinuousClock.now, ticks)
                }
            } else {
                idleSince = nil
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The state letter of a `/proc/…/stat` line (R, S, D, Z…).
    private static func state(ofStat stat: String) -> Character? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    /// Ends the child by its process id: SIGTERM, then SIGKILL after a second.
    public func terminate() {
        terminate(grace: .seconds(1))
    }

    /// Ends the child by its process id: SIGTERM, then SIGKILL if it is still there after
    /// `grace`. Blocks the calling thread; `stop(grace:)` is the same without blocking.
    public func terminate(grace: Duration) {
        guard signal(SIGTERM) else { return }
        let deadline = ContinuousClock.now.advanced(by: grace)
        while isRunning, ContinuousClock.now < deadline { usleep(5000) }
        guard signal(SIGKILL) else { return }
        for _ in 0..<1000 where isRunning { usleep(5000) }
    }

    /// Ends the child by its process id (SIGTERM, then SIGKILL if it is still there after
    /// `grace`) and returns how it ended.
    @discardableResult
    public func stop(grace: Duration = .seconds(1)) async -> Termination? {
        if signal(SIGTERM), await waitForExit(timeout: grace) == nil, signal(SIGKILL) {
            await waitForExit(timeout: .seconds(5))
        }
        return termination
    }

    /// Runs a command to its end (killed after `timeout`) and returns it, finished.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        timeout: Duration = .seconds(10)
    ) async throws -> ChildProcess {
        try await run(
            executable, arguments, options: Options(environment: environment, stdin: stdin.map(Input.bytes) ?? .none),
            timeout: timeout)
    }

    /// Runs a command to its end and returns it, finished. If it outlives `timeout` it gets
    /// SIGTERM, and SIGKILL after `grace`; `timedOut` says so.
    ///
    /// Runs through swift-subprocess: the child's stdout and stderr are the files, so its exit
    /// (seen through a pidfd) ends the run even when it left a process behind that holds them.
    public static func run(
        _ executable: String, _ arguments: [String], options: Options, timeout: Duration = .seconds(10),
        grace: Duration = .seconds(1)
    ) async throws -> ChildProcess {
        let launch = try Launch(executable, arguments, options)
        var platformOptions = PlatformOptions()
        platformOptions.processGroupID = 0
        // What a cancelled run does: the timeout below cancels it.
        platformOptions.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: grace)]
        let configuration = Configuration(
            executable: .path(FilePath(executable)),
            arguments: Arguments(arguments),
            environment: .custom(
                Dictionary(uniqueKeysWithValues: launch.environment.compactMap { key, value in
                    Environment.Key(rawValue: key).map { ($0, value) }
                })),
            workingDirectory: options.workingDirectory.map { FilePath($0) },
            platformOptions: platformOptions)
        // Subprocess closes the three descriptors once the child has them.
        let (stdin, stdout, stderr) = (launch.stdin, launch.stdout, launch.stderr)
        let running = Task { () async throws -> (pid_t, Termination) in
            let result = try await Subprocess.run(
                configuration,
                input: .fileDescriptor(FileDescriptor(rawValue: stdin), closeAfterSpawningProcess: true),
                output: .fileDescriptor(FileDescriptor(rawValue: stdout), closeAfterSpawningProcess: true),
                error: .fileDescriptor(FileDescriptor(rawValue: stderr), closeAfterSpawningProcess: true))
            let termination: Termination =
                switch result.terminationStatus {
                case .exited(let code): .exited(code)
                case .signaled(let signal): .signaled(signal)
                }
            return (result.processIdentifier.value, termination)
        }
        let timer = Task { () -> Bool in
            do { try await Task.sleep(for: timeout) } catch { return false }
            running.cancel()
            return true
        }
        let outcome: (pid: pid_t, termination: Termination)
        do {
            outcome = try await withTaskCancellationHandler { try await running.value } onCancel: { running.cancel() }
        } catch {
            timer.cancel()
            launch.discard(closing: false)
            throw TestSupportError("cannot run \(launch.command): \(error)")
        }
        timer.cancel()
        return ChildProcess(finished: launch, pid: outcome.pid, termination: outcome.termination, timedOut: await timer.value)
    }
}

/// What both ways of starting a child share: its scratch directory, its three descriptors
/// (opened close-on-exec, so no other spawn can inherit them), its environment.
private struct Launch {
    let executable: String
    let arguments: [String]
    let command: String
    let environment: [String: String]
    let workingDirectory: String?
    let directory: URL
    let stdin: Int32
    let stdout: Int32
    let stderr: Int32

    init(_ executable: String, _ arguments: [String], _ options: ChildProcess.Options) throws {
        self.executable = executable
        self.arguments = arguments
        command = ([executable] + arguments).joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        for name in options.unsetting { environment.removeValue(forKey: name) }
        environment["LC_ALL"] = "C.UTF-8"
        for (key, value) in options.environment { environment[key] = value }
        self.environment = environment
        workingDirectory = options.workingDirectory

        directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var opened: [Int32] = []
        func open(_ path: String, _ flags: Int32) throws -> Int32 {
            let descriptor = Glibc.open(path, flags | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                opened.forEach { _ = close($0) }
                throw TestSupportError("cannot open \(path) for \(executable): \(reason)")
            }
            opened.append(descriptor)
            return descriptor
        }
        do {
            switch options.stdin {
            case .none:
                stdin = try open("/dev/null", O_RDONLY)
            case .bytes(let data):
                let path = directory.appendingPathComponent("stdin").path
                try data.write(to: URL(fileURLWithPath: path))
                stdin = try open(path, O_RDONLY)
            case .file(let path):
                stdin = try open(path, O_RDONLY)
            }
            stdout = try open(directory.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC)
            stderr = try open(directory.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func closeDescriptors() {
        for descriptor in [stdin, stdout, stderr] { close(descriptor) }
    }

    /// Undoes the launch after a failed start.
    func discard(closing: Bool = true) {
        if closing { closeDescriptors() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the child with `posix_spawn`; returns its pid.
    func spawn() throws -> pid_t {
        func check(_ result: Int32, _ what: String) throws {
            guard result == 0 else {
                throw TestSupportError("cannot start \(executable): \(what): \(String(cString: strerror(result)))")
            }
        }
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let workingDirectory {
            try check(posix_spawn_file_actions_addchdir_np(&actions, workingDirectory), "chdir \(workingDirectory)")
        }
        // dup2 clears close-on-exec on 0, 1 and 2; everything else goes.
        try check(posix_spawn_file_actions_adddup2(&actions, stdin, 0), "dup2 stdin")
        try check(posix_spawn_file_actions_adddup2(&actions, stdout, 1), "dup2 stdout")
        try check(posix_spawn_file_actions_adddup2(&actions, stderr, 2), "dup2 stderr")
        try check(posix_spawn_file_actions_addclosefrom_np(&actions, 3), "closefrom 3")

        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        try check(posix_spawnattr_setsigmask(&attributes, &empty), "empty signal mask")
        // Every signal to its default (SIGKILL and SIGSTOP cannot be, and need not).
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        try check(posix_spawnattr_setsigdefault(&attributes, &all), "default signal dispositions")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "own process group")
        try check(
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)),
            "spawn flags")

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, executable, &actions, &attributes, argv, envp), "posix_spawn")
        return pid
    }
}

/// A harness failure (a tool missing, a server that would not start), with a clear message.
public struct TestSupportError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates an error with a message.
    public init(_ description: String) { self.description = description }
}

/// Finds the programs the tests drive.
public enum Tools {
    /// An executable from PATH.
    ///
    /// - Throws: `TestSupportError` naming the Debian package when it is not installed.
    public static func required(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestSupportError("`\(name)` is not installed (Debian/Ubuntu package: \(package))")
    }

    /// An executable of this package, from the products directory the test runner lives in;
    /// `XPB_PRODUCT_<NAME>` (for example `XPB_PRODUCT_XPB`) points at another build.
    public static func product(_ name: String) throws -> String {
        let override = "XPB_PRODUCT_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        if let path = ProcessInfo.processInfo.environment[override], !path.isEmpty { return path }
        var candidates: [String] = []
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent(name).path)
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name).path)
        if let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) { return found }
        throw TestSupportError("\(name) was not built (looked at \(candidates.joined(separator: ", "))); run `swift build` first")
    }
}
