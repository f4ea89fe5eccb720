import Foundation
import Testing
@testable import X11Pasteboard
import XTestSupport

/// `xpb watch` as users run it: JSON lines, plain lines, --count, --exec, PRIMARY coalescing,
/// no CPU while idle.
@Suite(.serialized, .timeLimit(.minutes(2))) struct WatchCommandTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture
    let xpb: String

    init() throws {
        x = try Self.fixture.get()
        xpb = try Tools.product("xpb")
    }

    private func watch(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(xpb, ["watch"] + arguments, environment: ["DISPLAY": x.display])
    }

    /// Waits until the watcher has subscribed: it syncs after its XFixes request, then sleeps
    /// in poll until the first change. (A fixed 300 ms was too short under `make sanitize`.)
    private func settle(_ watcher: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) async {
        let idle = await watcher.waitUntilIdle()
        #expect(idle, "xpb watch did not settle: \(watcher.stderrText)", sourceLocation: sourceLocation)
    }

    @Test func jsonLinesForChangesAndClearsThenExitsAfterCount() async throws {
        let clipboard = x.pasteboard(.general)
        clipboard.string = "before the watch started"  // must not be reported
        let watcher = try watch(["clipboard", "PRIMARY", "--json", "--count", "3"])
        defer { watcher.terminate() }
        await settle(watcher)
        let owner = try await x.xclipCopy(Data("hello".utf8), on: clipboard)
        _ = await watcher.waitForLines(1, timeout: .seconds(5))
        x.pasteboard(.primary).setData(Data([0x89, 0x50, 0x4E, 0x47]), forPasteboardType: "public.png")
        _ = await watcher.waitForLines(2, timeout: .seconds(5))
        owner.terminate()
        #expect(await watcher.waitForExit(timeout: .seconds(5)) == 0, "\(watcher.stderrText)")
        let lines = watcher.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(lines)")
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects[0]["selection"] as? String == "CLIPBOARD")
        #expect(objects[0]["event"] as? String == "owner-changed")
        #expect(objects[0]["changeCount"] as? Int == 1)
        #expect(objects[0]["types"] as? [String] == ["public.utf8-plain-text"])
        #expect((objects[0]["owner"] as? Int ?? 0) > 0)
        #expect(objects[1]["selection"] as? String == "PRIMARY")
        #expect(objects[1]["changeCount"] as? Int == 1)
        #expect(objects[1]["types"] as? [String] == ["public.png"])
        #expect(objects[2]["selection"] as? String == "CLIPBOARD")
        #expect(objects[2]["event"] as? String == "cleared")
        #expect(objects[2]["changeCount"] as? Int == 2)
        #expect(objects[2]["owner"] as? Int == 0)
        #expect(objects[2]["types"] as? [String] == [])
        // Keys in the documented order, one object per line.
        #expect(lines[0].hasPrefix("{\"changeCount\":1,\"selection\":\"CLIPBOARD\",\"event\":\"owner-changed\",\"owner\":"))
    }

    @Test func plainLinesAreReadable() async throws {
        let watcher = try watch(["-s", "--count", "2"])
        defer { watcher.terminate() }
        await settle(watcher)
        let secondary = x.pasteboard(.secondary)
        secondary.string = "s"
        // Types are fetched after each change: let the watch see this owner before it goes.
        _ = await watcher.waitForLines(1, timeout: .seconds(5))
        secondary.items = []
        #expect(await watcher.waitForExit(timeout: .seconds(5)) == 0, "\(watcher.stderrText)")
        let lines = watcher.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(lines)")
        #expect(lines[0].hasPrefix("SECONDARY #1 owner-changed by 0x"))
        #expect(lines[0].hasSuffix(": public.utf8-plain-text"))
        #expect(lines[1] == "SECONDARY #2 cleared")
    }

    @Test func execRunsTheCommandWithTheContentAndEnvironment() async throws {
        let clipboard = x.pasteboard(.general)
        let watcher = try watch(["--count", "2", "--exec", "printf '%s|%s|' \"$XPB_SELECTION\" \"$XPB_CHANGE_COUNT\"; cat; echo"])
        defer { watcher.terminate() }
        await settle(watcher)
        clipboard.string = "first copy"
        _ = await watcher.waitForLines(2, timeout: .seconds(5))
        clipboard.setData(Data([1, 2, 3]), forPasteboardType: "com.example.bytes")
        #expect(await watcher.waitForExit(timeout: .seconds(5)) == 0, "\(watcher.stderrText)")
        let lines = watcher.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("CLIPBOARD|1|first copy"), "\(lines)")
        #expect(watcher.stdout.range(of: Data("CLIPBOARD|2|".utf8) + Data([1, 2, 3]) + Data("\n".utf8)) != nil, "\(lines)")
    }

    @Test func primaryBurstsRunTheCommandOnce() async throws {
        let primary = x.pasteboard(.primary)
        let watcher = try watch(["primary", "--count", "5", "--exec", "printf 'ran %s:' \"$XPB_CHANGE_COUNT\"; cat; echo"])
        defer { watcher.terminate() }
        await settle(watcher)
        // Back to back, as a drag makes them: each write is its own ownership change.
        for step in 1...5 { primary.string = "drag \(step)" }
        #expect(await watcher.waitForExit(timeout: .seconds(5)) == 0, "\(watcher.stderrText)")
        let runs = watcher.stdoutText.split(separator: "\n").filter { $0.hasPrefix("ran ") }
        // Once, with the last content; a loaded machine may space one write past the quiet
        // window, which gives a second run at most.
        #expect(runs.last == "ran 5:drag 5" && runs.count <= 2, "\(watcher.stdoutText)")
        #expect(watcher.stdoutText.split(separator: "\n").filter { $0.hasPrefix("PRIMARY #") }.count == 5)
    }

    @Test func idleWatchUsesNoCPU() async throws {
        let watcher = try watch(["clipboard", "primary"])
        defer { watcher.terminate() }
        await settle(watcher)
        let before = try CPUTime.processTicks(of: watcher.pid)
        try await Task.sleep(for: .seconds(3))
        let after = try CPUTime.processTicks(of: watcher.pid)
        #expect(after - before <= 1, "xpb watch used \(after - before) ticks in 3 s of idle")
        #expect(watcher.isRunning && watcher.stdoutText.isEmpty)
    }

    @Test func noDisplayIsOneClearError() async throws {
        let watcher = try await ChildProcess.run(xpb, ["watch"], environment: ["DISPLAY": ":4094"])
        #expect(watcher.status != 0 && watcher.status != nil)
        #expect(watcher.stderrText.hasPrefix("xpb: ") && watcher.stdoutText.isEmpty, "\(watcher.stderrText)")
    }
}
