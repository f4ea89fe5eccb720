import Foundation
import Glibc
import Testing

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
    private let process: Process
    private let outputDirectory: URL
    private let started: ContinuousClock.Instant
    private let lock = NSLock()
    private var ended = false

    var pid: pid_t { process.processIdentifier }

    fileprivate init(command: String, tag: String, suiteID: String, process: Process, outputDirectory: URL) {
        self.command = command
        self.tag = tag
        self.suiteID = suiteID
        self.process = process
        self.outputDirectory = outputDirectory
        self.started = .now
    }

    var isRunning: Bool { process.isRunning }

    /// The live processes of this command other than the launcher (the command itself and
    /// whatever it forked), whose executable is named `name` when given.
    func commandPIDs(named name: String? = nil) -> [pid_t] {
        ProcessTable.pids(tagged: harnessTagVariable, value: tag).filter { pid in
            guard pid != process.processIdentifier else { return false }
            guard let name else { return true }
            return ProcessTable.executable(of: pid).map { URL(fileURLWithPath: $0).lastPathComponent } == name
        }
    }

    /// Waits until the process exits or `timeout` passes; true when it exited.
    @discardableResult
    func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The result so far; call after the process has exited for the final one.
    func result(timedOut: Bool = false) -> RunResult {
        let running = process.isRunning
        let stdout = (try? Data(contentsOf: outputDirectory.appendingPathComponent("stdout"))) ?? Data()
        let stderrData = (try? Data(contentsOf: outputDirectory.appendingPathComponent("stderr"))) ?? Data()
        return RunResult(
            command: command,
            status: running ? -1 : process.terminationStatus,
            signaled: running ? false : process.terminationReason == .uncaughtSignal,
            stdout: stdout,
            stderr: String(decoding: stderrData, as: UTF8.self),
            timedOut: timedOut,
            seconds: Self.seconds(ContinuousClock.now - started),
            tag: tag
        )
    }

    /// Ends the process (SIGTERM, then SIGKILL after a grace period) and every process it left
    /// behind carrying its tag; returns its result.
    @discardableResult
    func stop(grace: Duration = .seconds(3)) async -> RunResult {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !(await waitForExit(timeout: grace)) {
                kill(process.processIdentifier, SIGKILL)
                await waitForExit(timeout: .seconds(5))
            }
        }
        await ProcessTable.end(tagged: harnessTagVariable, value: tag)
        let result = result()
        finish()
        return result
    }

    /// Deletes the captured output files.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if ended { return }
        ended = true
        try? FileManager.default.removeItem(at: outputDirectory)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

enum Command {
    /// Starts `executable` with `arguments`; stdout and stderr go to files (never pipes, so a
    /// process that forks and keeps them open cannot hold the test up).
    static func spawn(
        _ executable: String,
        _ arguments: [String],
        stdin: Stdin = .none,
        display: String?,
        suiteID: String,
        launcher: String? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws -> Spawned {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("xpb-e2e-run-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tag = UUID().uuidString

        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DISPLAY")
        if let display { environment["DISPLAY"] = display }
        environment[harnessTagVariable] = tag
        environment[harnessSuiteVariable] = suiteID
        environment["LC_ALL"] = "C.UTF-8"
        for (key, value) in extraEnvironment { environment[key] = value }

        let process = Process()
        process.environment = environment
        process.currentDirectoryURL = directory

        var launchArguments = arguments
        var launchPath = executable
        switch stdin {
        case .none:
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        case .bytes(let data):
            let file = directory.appendingPathComponent("stdin")
            try data.write(to: file)
            process.standardInput = try FileHandle(forReadingFrom: file)
        case .file(let url):
            process.standardInput = try FileHandle(forReadingFrom: url)
        case .pipe(let data):
            let file = directory.appendingPathComponent("stdin")
            try data.write(to: file)
            launchPath = "/bin/sh"
            launchArguments = ["-c", "cat -- \"$XPB_E2E_STDIN\" | \"$@\"", "sh", executable] + arguments
            environment["XPB_E2E_STDIN"] = file.path
            process.environment = environment
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        }
        if let launcher {
            // See `probe run`: keeps Foundation's private exit-tracking socket out of the command.
            launchArguments = ["run", launchPath] + launchArguments
            launchPath = launcher
        }
        process.executableURL = URL(fileURLWithPath: launchPath)
        process.arguments = launchArguments

        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        defer {
            try? stdoutHandle.close()
            try? stderrHandle.close()
        }

        let shown = ([(executable as NSString).lastPathComponent] + arguments.map(shellQuoted)).joined(separator: " ")
        let prefix: String
        switch stdin {
        case .pipe: prefix = "… | "
        default: prefix = ""
        }
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw HarnessError.failed("cannot start \(executable): \(error)")
        }
        return Spawned(command: prefix + shown, tag: tag, suiteID: suiteID, process: process, outputDirectory: directory)
    }

    /// Runs a command to completion. If it outlives `timeout` it is killed (with everything it
    /// left behind) and the result says `timedOut`.
    static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Stdin = .none,
        display: String?,
        suiteID: String,
        launcher: String? = nil,
        timeout: Duration
    ) async throws -> RunResult {
        let spawned = try spawn(executable, arguments, stdin: stdin, display: display, suiteID: suiteID, launcher: launcher)
        defer { spawned.finish() }
        if await spawned.waitForExit(timeout: timeout) {
            return spawned.result()
        }
        var result = await spawned.stop(grace: .milliseconds(200))
        result.timedOut = true
        return result
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
