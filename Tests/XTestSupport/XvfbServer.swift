internal import CX11
import Foundation
import Glibc
import Synchronization

/// A private Xvfb. The server picks a free display number itself (`-displayfd`), so parallel
/// test runs never collide; it is ended by its process id.
public final class XvfbServer: @unchecked Sendable {
    /// ":N"
    public let displayName: String
    /// Xvfb's process id.
    public let pid: Int32
    private let lock = NSLock()
    private var stopped = false
    /// The never-closed connections of `endsWithThisProcess` servers (as addresses, which
    /// LeakSanitizer follows all the same): held so that `make sanitize` does not report them as
    /// leaks.
    private static let keptConnections = Mutex<[UInt]>([])

    private init(displayName: String, pid: Int32) {
        self.displayName = displayName
        self.pid = pid
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
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                xvfb, ["-displayfd", "3", "-nolisten", "tcp", endsWithThisProcess ? "-terminate" : "-noreset", "-screen", "0", "640x480x24"],
                environment: ProcessInfo.processInfo.environment, stdin: "/dev/null", stdout: "/dev/null",
                stderr: "/dev/null", extraDescriptor: (writeEnd, 3))
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        // Our copy of the write end must go, or EOF never comes if Xvfb dies.
        close(writeEnd)
        defer { close(readEnd) }

        var received: [UInt8] = []
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !received.contains(UInt8(ascii: "\n")), ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(readEnd, &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        let line = String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard Int(line) != nil else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            throw TestSupportError("Xvfb did not report a display number (got \(line.debugDescription))")
        }
        let server = XvfbServer(displayName: ":\(line)", pid: pid)
        if endsWithThisProcess {
            guard let connection = XOpenDisplay(server.displayName) else {
                server.stop()
                throw TestSupportError("cannot connect to the new Xvfb \(server.displayName)")
            }
            keptConnections.withLock { $0.append(UInt(bitPattern: connection)) }
            server.stopped = true
        }
        return server
    }

    /// Ends the server: SIGTERM, then SIGKILL if it is still there after 5 s.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<500 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    deinit { stop() }
}
