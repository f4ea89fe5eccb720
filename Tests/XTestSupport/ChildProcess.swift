public import Foundation
import Glibc

/// A process started for a test, with stdout and stderr captured in files (never pipes, so a
/// process that forks and keeps them open cannot hold a test up), ended by its process id.
///
/// Started with `posix_spawn` and an empty signal mask: the test runner's threads block
/// SIGTERM, and a child that inherits that mask ignores the SIGTERM that should end it.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The command line, for failure messages.
    public let command: String
    private let directory: URL
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: added to (or replacing) this process's environment.
    ///   - stdin: the bytes the child reads; nil gives it `/dev/null`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stdinPath = directory.appendingPathComponent("stdin").path
        try (stdin ?? Data()).write(to: URL(fileURLWithPath: stdinPath))
        command = ([executable] + arguments).joined(separator: " ")

        var merged = ProcessInfo.processInfo.environment
        merged["LC_ALL"] = "C.UTF-8"
        for (key, value) in environment { merged[key] = value }
        pid = try Self.spawn(
            executable, arguments, environment: merged,
            stdin: stdin == nil ? "/dev/null" : stdinPath,
            stdout: directory.appendingPathComponent("stdout").path,
            stderr: directory.appendingPathComponent("stderr").path)
    }

    deinit {
        terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the child wrote to stdout so far.
    public var stdout: Data { (try? Data(contentsOf: directory.appendingPathComponent("stdout"))) ?? Data() }
    /// Its stdout as UTF-8 text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// What the child wrote to stderr so far.
    public var stderrText: String {
        String(decoding: (try? Data(contentsOf: directory.appendingPathComponent("stderr"))) ?? Data(), as: UTF8.self)
    }

    /// The exit status once the child has exited (128 + signal for a signal), reaping it.
    public var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let signal = raw & 0x7f
        exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return exitStatus
    }

    /// Whether the child still runs.
    public var isRunning: Bool { status == nil }

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
        guard status == nil else { return }
        kill(pid, SIGTERM)
        for _ in 0..<200 where status == nil { usleep(5000) }
        if status == nil {
            kill(pid, SIGKILL)
            for _ in 0..<1000 where status == nil { usleep(5000) }
        }
    }

    /// Runs a command to its end (killed after `timeout`) and returns it, finished.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        timeout: Duration = .seconds(10)
    ) async throws -> ChildProcess {
        let child = try ChildProcess(executable, arguments, environment: environment, stdin: stdin)
        if await child.waitForExit(timeout: timeout) == nil { child.terminate() }
        return child
    }

    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String, stdout: String,
        stderr: String, extraDescriptor: (source: Int32, target: Int32)? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let extraDescriptor { posix_spawn_file_actions_adddup2(&actions, extraDescriptor.source, extraDescriptor.target) }
        // Test suites run in parallel and Foundation's Process on Linux learns that a child
        // exited when a socket it gave that child closes: a child of ours that inherited such a
        // socket would make another test's command look hung until ours ended.
        _ = spawnFileActionsAddCloseFrom(&actions, (extraDescriptor?.target ?? 2) + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // Its own process group, so a test can never signal the runner by accident.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw TestSupportError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
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

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the Glibc module does not
/// import: the child closes every descriptor from `lowest` up before it executes.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnFileActionsAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
