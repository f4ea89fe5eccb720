import Foundation
import Testing
import UniformTypes
@testable import X11Pasteboard
import XTestSupport

/// A program that uses the library outlives its X server: calls fail with `PasteboardError`,
/// change streams end, nothing exits, and the next call after a server is back reconnects.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServerLossTests {
    /// An Xvfb on a fixed display of its own, far above the numbers `-displayfd` hands out to
    /// the other suites, so that none takes it over while it is down.
    private func xvfb(_ display: String) async throws -> ChildProcess {
        let xvfb = try Tools.required("Xvfb", package: "xvfb")
        let server = try ChildProcess(xvfb, [display, "-nolisten", "tcp", "-noreset"])
        let socket = "/tmp/.X11-unix/X" + display.dropFirst()
        #expect(await eventually { FileManager.default.fileExists(atPath: socket) && server.isRunning })
        return server
    }

    @Test func callsFailAndLaterOnesReconnect() async throws {
        var number = Int.random(in: 700..<990)
        while FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") { number += 1 }
        let display = ":\(number)"
        let server = try await xvfb(display)
        let pasteboard = try #require(Pasteboard(name: .general, create: true, displayName: display))
        try await pasteboard.async.setString("before")
        #expect(try await pasteboard.async.string == "before")
        var changes = pasteboard.changes.makeAsyncIterator()

        server.terminate()
        let started = ContinuousClock.now
        // The report of our own copy may still come first; then the stream ends.
        var reported = 0
        while await next(&changes, timeout: .seconds(5)) != nil, reported < 3 { reported += 1 }
        #expect(reported < 3)
        #expect(ContinuousClock.now - started < .seconds(4), "the change stream must end, not time out")
        await #expect(throws: PasteboardError.self) { try await pasteboard.async.string }
        #expect(pasteboard.string == nil)
        #expect(pasteboard.changeCount == 0)

        // A server on the same display again: the next call opens a new connection.
        let again = try await xvfb(display)
        defer { again.terminate() }
        let back = await eventually(timeout: .seconds(10)) { (try? await pasteboard.async.setString("after")) != nil }
        #expect(back, "no call succeeded on the new server")
        #expect(pasteboard.string == "after")
    }

    @Test func aProgramWhoseServerDiesExitsNormally() async throws {
        let server = try XvfbServer.start()
        let example = try Tools.product("pasteboard-example")
        let watcher = try ChildProcess(example, ["watch"], environment: ["DISPLAY": server.displayName])
        defer { watcher.terminate() }
        // One change it reports shows that it watches (a copy before it subscribed goes unseen).
        let xclip = try Tools.required("xclip", package: "xclip")
        var reported = false
        for attempt in 0..<2 where !reported {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await ChildProcess.run(
                xclip, ["-i", "-selection", "clipboard"], environment: ["DISPLAY": server.displayName],
                stdin: Data("copy \(attempt)".utf8))
            reported = await eventually(timeout: .seconds(3)) { watcher.stdoutText.contains("#") }
        }
        #expect(reported, "the example reported no change: \(watcher.stdoutText) \(watcher.stderrText)")
        server.stop()
        let status = await watcher.waitForExit(timeout: .seconds(10))
        #expect(status == 0, "exit status \(String(describing: status)); stderr: \(watcher.stderrText)")
        #expect(watcher.stdoutText.contains("the X server went away"), "\(watcher.stdoutText)")
        #expect(!watcher.stderrText.contains("XIO"), "Xlib's report must not appear: \(watcher.stderrText)")
    }
}
