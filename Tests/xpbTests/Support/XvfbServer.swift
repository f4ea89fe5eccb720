import Foundation
import Glibc

/// A private Xvfb for one test suite. The server picks a free display number itself
/// (`-displayfd`), so parallel suites and parallel test runs never collide; it is ended by its
/// process id.
final class XvfbServer: @unchecked Sendable {
    /// ":N"
    let displayName: String
    /// The launcher's process id (it forwards SIGTERM to Xvfb).
    let pid: pid_t
    /// Xvfb's own process id.
    let serverPID: pid_t?
    private let process: Process
    private let lock = NSLock()
    private var stopped = false

    private init(displayName: String, process: Process) {
        self.displayName = displayName
        self.process = process
        self.pid = process.processIdentifier
        self.serverPID = Self.children(of: process.processIdentifier).first
    }

    /// Process ids whose parent is `parent`.
    static func children(of parent: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
                  let text = String(data: stat, encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && fields[1] == "\(parent)" ? pid : nil
        }
    }

    /// Starts Xvfb and waits (up to `timeout`) until it has written its display number.
    /// `launcher` (see `probe run`) starts Xvfb with no blocked signals, so SIGTERM ends it
    /// cleanly (the test runner's threads block SIGTERM, and posix_spawn hands that on).
    static func start(launcher: String, timeout: Duration = .seconds(10)) throws -> XvfbServer {
        let xvfb = try Tools.required("Xvfb", package: "xvfb")
        let process = Process()
        // Foundation's Process closes every descriptor but 0, 1 and 2 in the child, so the
        // display fd is made inside the child: fd 3 is a copy of stdout (our pipe), and Xvfb's own
        // stdout and stderr go to /dev/null. The launcher forwards SIGTERM to Xvfb and exits as
        // it exits.
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = [
            "run", "/bin/sh", "-c",
            "exec \"$0\" -displayfd 3 -nolisten tcp -noreset -screen 0 640x480x24 3>&1 1>/dev/null 2>/dev/null",
            xvfb,
        ]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // Our copy of the write end must go, or EOF never comes if Xvfb dies.
        try? pipe.fileHandleForWriting.close()

        let fd = pipe.fileHandleForReading.fileDescriptor
        var received = Data()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var failure: String?
        while !received.contains(UInt8(ascii: "\n")) {
            let left = deadline - ContinuousClock.now
            if left <= .zero {
                failure = "Xvfb did not report a display number within \(timeout)"
                break
            }
            var pollfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&pollfd, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                failure = "Xvfb exited before reporting a display number"
                break
            }
            received.append(contentsOf: buffer[0..<count])
        }
        try? pipe.fileHandleForReading.close()

        let line = String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if failure == nil, Int(line) == nil { failure = "Xvfb reported \(line.debugDescription), not a display number" }
        if let failure {
            Self.end(process, server: children(of: process.processIdentifier).first)
            throw HarnessError.failed("\(failure) (\(xvfb) -displayfd 3 -nolisten tcp -noreset -screen 0 640x480x24)")
        }
        return XvfbServer(displayName: ":\(line)", process: process)
    }

    var isRunning: Bool { process.isRunning }

    /// Ends the server by its process id: SIGTERM, then SIGKILL if it is still there after 5 s.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        Self.end(process, server: serverPID)
    }

    deinit { stop() }

    private static func end(_ process: Process, server: pid_t?) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            if let server { kill(server, SIGKILL) }
            kill(pid, SIGKILL)
            let hard = ContinuousClock.now.advanced(by: .seconds(5))
            while process.isRunning && ContinuousClock.now < hard { usleep(10_000) }
        }
    }
}
