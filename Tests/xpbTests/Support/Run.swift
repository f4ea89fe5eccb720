import Foundation
import Glibc
import Testing
import XTestSupport

/// What a finished command left behind: its exact stdout bytes, its stderr as text, how it ended.
struct RunResult: Sendable, CustomStringConvertible {
    var command: String
    var status: Int32
    /// True when the process ended by a signal (then `status` is the signal number).
    var signaled: Bool
    var stdout: Data
    var stderr: String
    /// True when the harness had to kill the command because it outlived its timeout.
    var timedOut: Bool
    var seconds: Double
    /// The value of `XPB_E2E_TAG` this command (and whatever it forked) carries.
    var tag: String

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    var description: String {
        let shownOut = stdout.count <= 200 ? "\(stdoutText.debugDescription)" : "\(stdout.count) bytes"
        return "`\(command)` -> \(signaled ? "signal" : "exit") \(status)\(timedOut ? " (KILLED after timeout)" : "")"
            + " in \(String(format: "%.2f", seconds)) s; stdout \(shownOut); stderr \(stderr.debugDescription)"
    }
}

/// Where a command's stdin comes from.
enum Stdin: Sendable {
    /// `/dev/null`.
    case none
    /// A regular file holding these bytes.
    case bytes(Data)
    /// A pipe fed by `cat` (the shape of `printf x | xpb copy`): the command runs as the last stage
    /// of `/bin/sh -c 'cat FILE | "$@"'`.
    case pipe(Data)
    /// An existing file.
    case file(URL)
}

/// Which display the command sees.
enum DisplayEnvironment: Sendable {
    /// `DISPLAY` set to the suite's Xvfb.
    case suite
    /// `DISPLAY` set to this value.
    case value(String)
    /// `DISPLAY` removed from the environment.
    case unset
}

enum HarnessError: Error, CustomStringConvertible {
    case missingTool(String)
    case failed(String)

    var description: String {
        switch self {
        case .missingTool(let message), .failed(let message): message
        }
    }
}

/// Environment variable carried by every process the harness starts, so that processes which
/// detached themselves (`xpb copy`, `xclip -i`) can still be found by process id and ended.
let harnessTagVariable = "XPB_E2E_TAG"
/// Set on every process the harness starts, to the id of the suite that started it.
let harnessSuiteVariable = "XPB_E2E_SUITE"

/// A running command the test started and can end: owners such as `xclip -quiet -i`,
/// `xsel -n -i`, `xpb copy --foreground`.
final class Spawned: @unchecked Sendable {
    let command: String
    let tag: String
    let suiteID: String
    private let process: ChildProcess
    private let directory: URL
    private let started: ContinuousClock.Instant
    private let lock = NSLock()
    private var ended = false

    var pid: pid_t { process.pid }

    fileprivate init(_ prepared: Command.Prepared, process: ChildProcess) {
        command = prepared.shown
        tag = prepared.tag
        suiteID = prepared.suiteID
        directory = prepared.directory
        self.process = process
        started = .now
    }

    var isRunning: Bool { process.isRunning }

    /// What the command wrote to stdout so far.
    var stdoutText: String { process.stdoutText }

    /// Waits until the command sleeps in poll with no CPU use (it has set itself up).
    @discardableResult
    func waitUntilIdle() async -> Bool { await process.waitUntilIdle() }

    /// The live processes of this command (the command itself and whatever it forked), whose
    /// executable is named `name` when given.
    func commandPIDs(named name: String? = nil) -> [pid_t] {
        ProcessTable.pids(tagged: harnessTagVariable, value: tag).filter { pid in
            guard let name else { return true }
            return ProcessTable.executable(of: pid).map { URL(fileURLWithPath: $0).lastPathComponent } == name
        }
    }

    /// Waits until the process exits or `timeout` passes; true when it exited.
    @discardableResult
    func waitForExit(timeout: Duration) async -> Bool {
        await process.waitForExit(timeout: timeout) != nil
    }

    /// The result so far; call after the process has exited for the final one.
    func result(timedOut: Bool = false) -> RunResult {
        RunResult(process, command: command, tag: tag, timedOut: timedOut, seconds: Spawned.seconds(ContinuousClock.now - started))
    }

    /// Ends the process (SIGTERM, then SIGKILL after a grace period) and every process it left
    /// behind carrying its tag; returns its result.
    @discardableResult
    func stop(grace: Duration = .seconds(3)) async -> RunResult {
        await process.stop(grace: grace)
        await ProcessTable.end(tagged: harnessTagVariable, value: tag)
        let result = result()
        finish()
        return result
    }

    /// Deletes the command's scratch directory.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if ended { return }
        ended = true
        try? FileManager.default.removeItem(at: directory)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension RunResult {
    /// What `process` left behind so far (status -1 while it runs).
    init(_ process: ChildProcess, command: String, tag: String, timedOut: Bool, seconds: Double) {
        let termination = process.termination
        self.init(
            command: command,
            status: termination.map { if case .signaled(let signal) = $0 { signal } else { $0.status } } ?? -1,
            signaled: termination.map { if case .signaled = $0 { true } else { false } } ?? false,
            stdout: process.stdout,
            stderr: process.stderrText,
            timedOut: timedOut,
            seconds: seconds,
            tag: tag)
    }
}

/// Starts the commands of the end-to-end tests through XTestSupport's `ChildProcess`, which gives
/// them stdout and stderr in files (never pipes, so a process that forks and keeps them open
/// cannot hold the test up), no descriptor of the runner's, an empty signal mask.
enum Command {
    /// A command about to start: its command line, options, tag and scratch directory (its
    /// working directory, and where a piped stdin waits).
    struct Prepared {
        var executable: String
        var arguments: [String]
        var options: ChildProcess.Options
        var directory: URL
        var shown: String
        var tag: String
        var suiteID: String
    }

    static func prepare(
        _ executable: String,
        _ arguments: [String],
        stdin: Stdin,
        display: String?,
        suiteID: String,
        extraEnvironment: [String: String]
    ) throws -> Prepared {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("xpb-e2e-run-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tag = UUID().uuidString

        var options = ChildProcess.Options(unsetting: ["DISPLAY"], workingDirectory: directory.path)
        if let display { options.environment["DISPLAY"] = display }
        options.environment[harnessTagVariable] = tag
        options.environment[harnessSuiteVariable] = suiteID
        for (key, value) in extraEnvironment { options.environment[key] = value }

        var launchArguments = arguments
        var launchPath = executable
        var prefix = ""
        switch stdin {
        case .none:
            options.stdin = .none
        case .bytes(let data):
            options.stdin = .bytes(data)
        case .file(let url):
            options.stdin = .file(url.path)
        case .pipe(let data):
            let file = directory.appendingPathComponent("stdin")
            do {
                try data.write(to: file)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
            launchPath = "/bin/sh"
            launchArguments = ["-c", "cat -- \"$XPB_E2E_STDIN\" | \"$@\"", "sh", executable] + arguments
            options.environment["XPB_E2E_STDIN"] = file.path
            options.stdin = .none
            prefix = "… | "
        }
        let shown = ([(executable as NSString).lastPathComponent] + arguments.map(shellQuoted)).joined(separator: " ")
        return Prepared(
            executable: launchPath, arguments: launchArguments, options: options, directory: directory,
            shown: prefix + shown, tag: tag, suiteID: suiteID)
    }

    /// Starts `executable` with `arguments`; it runs until it exits or is stopped.
    static func spawn(
        _ executable: String,
        _ arguments: [String],
        stdin: Stdin = .none,
        display: String?,
        suiteID: String,
        extraEnvironment: [String: String] = [:]
    ) throws -> Spawned {
        let prepared = try prepare(
            executable, arguments, stdin: stdin, display: display, suiteID: suiteID, extraEnvironment: extraEnvironment)
        do {
            let process = try ChildProcess(prepared.executable, prepared.arguments, options: prepared.options)
            return Spawned(prepared, process: process)
        } catch {
            try? FileManager.default.removeItem(at: prepared.directory)
            throw HarnessError.failed("cannot start \(executable): \(error)")
        }
    }

    /// Runs a command to completion. If it outlives `timeout` it is killed (with everything it
    /// left behind) and the result says `timedOut`.
    static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Stdin = .none,
        display: String?,
        suiteID: String,
        timeout: Duration
    ) async throws -> RunResult {
        let prepared = try prepare(executable, arguments, stdin: stdin, display: display, suiteID: suiteID, extraEnvironment: [:])
        defer { try? FileManager.default.removeItem(at: prepared.directory) }
        let started = ContinuousClock.now
        let process: ChildProcess
        do {
            process = try await ChildProcess.run(
                prepared.executable, prepared.arguments, options: prepared.options, timeout: timeout, grace: .milliseconds(200))
        } catch {
            throw HarnessError.failed("cannot start \(executable): \(error)")
        }
        if process.timedOut { await ProcessTable.end(tagged: harnessTagVariable, value: prepared.tag) }
        return RunResult(
            process, command: prepared.shown, tag: prepared.tag, timedOut: process.timedOut,
            seconds: Spawned.seconds(ContinuousClock.now - started))
    }

    static func shellQuoted(_ argument: String) -> String {
        let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        if plain && !argument.isEmpty { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Finds the processes this harness started through the tag in their environment.
enum ProcessTable {
    /// Live (non-zombie) processes whose environment holds `name=value`.
    static func pids(tagged name: String, value: String) -> [pid_t] {
        let needle = Data("\(name)=\(value)".utf8)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [pid_t] = []
        let me = getpid()
        for entry in entries {
            guard let pid = pid_t(entry), pid != me else { continue }
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), !environ.isEmpty else {
                continue
            }
            var matches = false
            for variable in environ.split(separator: 0) where variable.elementsEqual(needle) {
                matches = true
                break
            }
            guard matches else { continue }
            if let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
               let text = String(data: stat, encoding: .utf8),
               let close = text.lastIndex(of: ")") {
                let state = text[text.index(after: close)...].drop(while: { $0 == " " }).first
                if state == "Z" || state == "X" { continue }
            }
            found.append(pid)
        }
        return found
    }

    /// The executable path of a process, when readable.
    static func executable(of pid: pid_t) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    /// Waits until no live process carries the tag; true when none is left.
    static func waitUntilGone(tagged name: String, value: String, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !pids(tagged: name, value: value).isEmpty {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Ends, by process id, every live process carrying the tag: SIGTERM, then SIGKILL.
    static func end(tagged name: String, value: String) async {
        let first = pids(tagged: name, value: value)
        guard !first.isEmpty else { return }
        for pid in first { kill(pid, SIGTERM) }
        if await waitUntilGone(tagged: name, value: value, timeout: .seconds(2)) { return }
        for pid in pids(tagged: name, value: value) { kill(pid, SIGKILL) }
        _ = await waitUntilGone(tagged: name, value: value, timeout: .seconds(2))
    }
}
