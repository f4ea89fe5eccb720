internal import CX11
import Foundation
import Glibc
import Synchronization

/// A private Xvfb. The server picks a free display number itself (`-displayfd`), so parallel
/// test runs never collide; it is a `ChildProcess`, ended by its process id.
public final class XvfbServer: @unchecked Sendable {
    /// ":N"
    public let displayName: String
    /// Xvfb's process id.
    public var pid: Int32 { process.pid }
    private let process: ChildProcess
    private let lock = NSLock()
    private var stopped = false
    /// The never-closed connections of `endsWithThisProcess` servers (as addresses, which
    /// LeakSanitizer follows all the same): held so that `make sanitize` does not report them as
    /// leaks.
    private static let keptConnections = Mutex<[UInt]>([])

    private init(displayName: String, process: ChildProcess) {
        self.displayName = displayName
        self.process = process
    }

    /// Starts Xvfb and waits (up to `timeout`) until it has written its display number.
    ///
    /// - Parameter endsWithThisProcess: the server runs until this process ends, however it ends
    ///   (a crash included): it is started with `-terminate` and holds a connection of ours that
    ///   is never closed, so it exits when the last client goes. Use it when connections that
    ///   live as long as the process (a `Pasteboard`'s) use the display: Xlib ends a process
    ///   whose server goes away. Otherwise `-noreset` keeps the server (and its atoms) between
    ///   clients, and `stop()` ends it.
    public static func start(timeout: Duration = .seconds(10), endsWithThisProcess: Bool = false) throws -> XvfbServer {
        let xvfb = try Tools.required("Xvfb", package: "xvfb")
        // Xvfb writes the display number to its stdout (a file, like every child's) once it
        // accepts connections, and closes it.
        let process = try ChildProcess(
            xvfb, ["-displayfd", "1", "-nolisten", "tcp", endsWithThisProcess ? "-terminate" : "-noreset", "-screen", "0", "640x480x24"])
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var text = ""
        while !text.contains("\n"), process.isRunning, ContinuousClock.now < deadline {
            usleep(5000)
            text = process.stdoutText
        }
        text = process.stdoutText
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.contains("\n"), Int(line) != nil else {
            process.terminate(grace: .zero)
            throw TestSupportError(
                "Xvfb did not report a display number (got \(line.debugDescription)); its stderr: \(process.stderrText)")
        }
        let server = XvfbServer(displayName: ":\(line)", process: process)
        if endsWithThisProcess {
            guard let connection = XOpenDisplay(server.displayName) else {
                server.stop()
                throw TestSupportError("cannot connect to the new Xvfb \(server.displayName)")
            }
            keptConnections.withLock { $0.append(UInt(bitPattern: connection)) }
            server.stopped = true
            process.leavesRunning = true
        }
        return server
    }

    /// Ends the server: SIGTERM, then SIGKILL if it is still there after 5 s.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        process.terminate(grace: .seconds(5))
    }

    deinit { stop() }
}
