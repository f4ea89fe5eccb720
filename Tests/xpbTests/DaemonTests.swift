import Foundation
import Glibc
import Testing
import XTestSupport

/// `xpb daemon`, the clipboard manager, against real programs that copy and exit: Qt5 and GTK3
/// (the SAVE_TARGETS hand-off), xclip killed, a python-xlib owner that just closes, and xpb's own
/// secrets. Each test runs its own daemon with `XDG_STATE_HOME` in a scratch directory.
///
/// Needs python3-pyqt5, python3-gi + gir1.2-gtk-3.0 and python3-xlib (`scripts/install-deps.sh`).
@Suite(.xServer, .serialized, .timeLimit(.minutes(3)))
struct DaemonTests {
    /// The real owners (Qt, GTK, python-xlib): Tests/Peers/clipboard_apps.py.
    static let apps = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers/clipboard_apps.py").path

    /// A daemon of this test, with its state directory.
    struct Daemon {
        let process: Spawned
        let stateHome: URL

        var log: String { process.result().stderr }

        /// Waits until the daemon's log has `count` lines containing `text`.
        func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while ContinuousClock.now < deadline {
                if log.components(separatedBy: "\n").filter({ $0.contains(text) }).count >= count { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    static func stateHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-daemon-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `xpb daemon` and waits until it manages the clipboard.
    static func startDaemon(
        _ x: XSession, stateHome: URL? = nil, arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Daemon {
        let home = try stateHome ?? Self.stateHome()
        let process = try x.spawn("/usr/bin/env", ["XDG_STATE_HOME=\(home.path)", x.xpbPath, "daemon"] + arguments)
        let daemon = Daemon(process: process, stateHome: home)
        guard await daemon.waitForLog("managing the clipboard", timeout: .seconds(60)) else {
            let result = await x.stop(process)
            Issue.record("xpb daemon did not start: \(result)", sourceLocation: sourceLocation)
            throw HarnessError.failed("daemon did not start")
        }
        return daemon
    }

    /// Runs `body` with a daemon, and stops that daemon (it must exit 0 on SIGTERM) whatever
    /// `body` does: a daemon left running would refuse the next test's.
    static func withDaemon(
        _ x: XSession, stateHome: URL? = nil, arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Daemon) async throws -> Void
    ) async throws {
        let daemon = try await startDaemon(x, stateHome: stateHome, arguments: arguments, sourceLocation: sourceLocation)
        do {
            try await body(daemon)
        } catch {
            await stop(daemon, x, sourceLocation: sourceLocation)
            throw error
        }
        await stop(daemon, x, sourceLocation: sourceLocation)
    }

    /// Stops the daemon with SIGTERM: it must exit 0.
    static func stop(_ daemon: Daemon, _ x: XSession, sourceLocation: SourceLocation = #_sourceLocation) async {
        // Generous: it finishes writing the history first (a 20 MiB entry, hashed by a debug build).
        let result = await daemon.process.stop(grace: .seconds(30))
        await x.stop(daemon.process)
        // The server drops a dead client's selections when it gets to its disconnect: the next
        // test's daemon must not find this one's CLIPBOARD_MANAGER still held.
        let released = (try? await x.waitForNoOwner("CLIPBOARD_MANAGER", timeout: .seconds(10))) ?? false
        #expect(released, "CLIPBOARD_MANAGER still owned after the daemon exited", sourceLocation: sourceLocation)
        #expect(!result.signaled && result.status == 0, "SIGTERM must end xpb daemon with exit 0: \(result)", sourceLocation: sourceLocation)
    }

    static func python(_ x: XSession, _ arguments: [String], timeout: Duration = .seconds(30)) async throws -> RunResult {
        _ = try Tools.required("python3", package: "python3")
        return try await x.run("/usr/bin/python3", [apps] + arguments, timeout: timeout)
    }

    /// Fails the test with the daemon's log when `condition` does not hold.
    static func expectLog(_ daemon: Daemon, _ text: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async {
        let seen = await daemon.waitForLog(text, count: count)
        #expect(seen, "the daemon should have logged \"\(text)\"; its log:\n\(daemon.log)", sourceLocation: sourceLocation)
    }

    @Test("--max-entry-size leaves out representations that would pass it, and keeps the rest")
    func sizeCap() async throws {
        let x = try XSession.require()
        let small = try x.file("small.txt", Data("small enough".utf8))
        let large = try x.file("large.bin", Samples.binary(count: 200_000))  // python-xlib has no BIG-REQUESTS: < 256 KiB
        try await Self.withDaemon(x, arguments: ["--max-entry-size", "100K"]) { daemon in
            let owner = try await Self.python(
                x, ["xlib", "--linger", "1.5", "UTF8_STRING=\(small.path)", "application/octet-stream=\(large.path)"])
            #expect(owner.status == 0, "\(owner)")
            await Self.expectLog(daemon, "took CLIPBOARD over")
            let targets = try await x.targets("CLIPBOARD")
            #expect(targets.contains("UTF8_STRING") && !targets.contains("application/octet-stream"), "\(targets)")
            expectOutput(try await x.xpb(["paste"]), try Data(contentsOf: small))
        }
    }

    // MARK: Real applications

    @Test("a Qt5 program copies HTML and text and exits normally: both stay, byte-exact")
    func qtHandOff() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let html = "<p>Grüße <b>aus</b> Qt</p>"
            let text = "Grüße aus Qt, plain"
            let qt = try await Self.python(x, ["qt", text, html])
            #expect(qt.status == 0 && !qt.signaled, "\(qt)")
            #expect(!qt.stderr.contains("Unable to receive an event from the clipboard manager"), "Qt timed out on the manager: \(qt.stderr)")
            await Self.expectLog(daemon, "saved CLIPBOARD for")

            let pastedHTML = try await x.xpb(["paste", "-t", "text/html"])
            // Qt serves HTML as UTF-8 for text/html.
            #expect(String(decoding: pastedHTML.stdout, as: UTF8.self).contains(html), "\(pastedHTML)")
            expectOutput(try await x.xpb(["paste"]), Data(text.utf8))
        }
    }

    @Test("a GTK3 program with set_can_store exits: its image stays, the PNG byte-exact")
    func gtkImageHandOff() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let served = try x.file("gtk-served.png", Data())
            let gtk = try await Self.python(x, ["gtk-image", served.path])
            #expect(gtk.status == 0 && !gtk.signaled, "\(gtk)")
            await Self.expectLog(daemon, "saved CLIPBOARD for")
            #expect(try await x.owner("CLIPBOARD") != 0, "the image must still be on CLIPBOARD after GTK exits")
            expectOutput(try await x.xpb(["paste", "-t", "image/png"]), try Data(contentsOf: served))
        }
    }

    @Test("an xclip owner of 20 MiB of binary is killed: the data stays, byte-exact")
    func xclipKilled() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let data = Samples.binary(count: 20 << 20)
            // Not x.xclipOwner: its 10 s for xclip to read 20 MiB and take CLIPBOARD is short on
            // a loaded machine. The daemon's line says both that xclip owns it and that it was read.
            let xclip = try x.spawn(x.xclipPath, ["-quiet", "-selection", "clipboard", "-t", "application/octet-stream", "-i"], stdin: .bytes(data))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            _ = xclip.commandPIDs().map { kill($0, SIGKILL) }
            await x.stop(xclip)
            await Self.expectLog(daemon, "took CLIPBOARD over after its owner exited")
            let pasted = try await x.xpb(["paste", "-t", "application/octet-stream"], timeout: .seconds(30))
            expectOutput(pasted, data)
        }
    }

    @Test("an xsel owner lives on while the daemon reads it, and its text stays after it is killed")
    func xselKept() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let text = "from xsel \(UUID().uuidString)"
            let xsel = try x.spawn(x.xselPath, ["-n", "-b", "-i"], stdin: .bytes(Data(text.utf8)))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            // xsel lists MULTIPLE and dies of it: the daemon must not have asked.
            #expect(xsel.commandPIDs(named: "xsel").count == 1, "xsel died of the daemon's read: \(xsel.result())")
            _ = xsel.commandPIDs().map { kill($0, SIGKILL) }
            await x.stop(xsel)
            await Self.expectLog(daemon, "took CLIPBOARD over")
            expectOutput(try await x.xpb(["paste"]), Data(text.utf8))
        }
    }

    @Test("a clipboard cleared on purpose stays empty: the daemon does not put it back")
    func clearIsRespected() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let owner = try await x.xclipOwner("clipboard", Data("to be cleared".utf8))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            expectSuccess(try await x.xpb(["clear"]))
            await Self.expectLog(daemon, "CLIPBOARD was cleared")
            #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(2)))
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await x.owner("CLIPBOARD") == 0, "the daemon took a cleared clipboard back")
            await x.stop(owner)
        }
    }

    @Test("a python-xlib owner of text, HTML and PNG closes without a hand-off: all three stay")
    func xlibOwnerCloses() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let text = try x.file("t.txt", Data("text from xlib".utf8))
            let html = try x.file("h.html", Data("<i>html from xlib</i>".utf8))
            let png = try x.file("i.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Samples.binary(count: 5000))
            let owner = try await Self.python(
                x, ["xlib", "--exit-after-read", "UTF8_STRING=\(text.path)", "text/html=\(html.path)", "image/png=\(png.path)"])
            #expect(owner.status == 0, "\(owner)")
            await Self.expectLog(daemon, "took CLIPBOARD over after its owner exited")
            let targets = try await x.targets("CLIPBOARD")
            for target in ["UTF8_STRING", "text/html", "image/png"] {
                #expect(targets.contains(target), "\(target) must still be offered: \(targets)")
            }
            expectOutput(try await x.xpb(["paste", "-t", "UTF8_STRING"]), try Data(contentsOf: text))
            expectOutput(try await x.xpb(["paste", "-t", "text/html"]), try Data(contentsOf: html))
            expectOutput(try await x.xpb(["paste", "-t", "image/png"]), try Data(contentsOf: png))
        }
    }

    @Test("SAVE_TARGETS from a test owner: without a list every target is saved, with one only those")
    func saveTargets() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let text = try x.file("t.txt", Data("saved text".utf8))
            let html = try x.file("h.html", Data("<b>saved</b>".utf8))

            let all = try await Self.python(x, ["xlib", "--save", "UTF8_STRING=\(text.path)", "text/html=\(html.path)"])
            #expect(all.stdoutText == "owning\nsaved\n", "\(all)")
            var targets = try await x.targets("CLIPBOARD")
            #expect(targets.contains("UTF8_STRING") && targets.contains("text/html"), "\(targets)")
            expectOutput(try await x.xpb(["paste", "-t", "text/html"]), try Data(contentsOf: html))

            let listed = try await Self.python(x, ["xlib", "--save", "text/html", "UTF8_STRING=\(text.path)", "text/html=\(html.path)"])
            #expect(listed.stdoutText == "owning\nsaved\n", "\(listed)")
            targets = try await x.targets("CLIPBOARD")
            #expect(targets.contains("text/html") && !targets.contains("UTF8_STRING"), "only the listed target is kept: \(targets)")
            expectOutput(try await x.xpb(["paste", "-t", "text/html"]), try Data(contentsOf: html))
        }
    }

    @Test("pasteboard-example copy keeps its text once xpb daemon runs")
    func pasteboardExample() async throws {
        let x = try XSession.require()
        let example = try Tools.product("pasteboard-example")
        try await Self.withDaemon(x) { daemon in
            let copied = try await x.run(example, ["copy", "some", "text"])
            #expect(copied.status == 0 && copied.stdoutText.hasPrefix("copied"), "\(copied)")
            await Self.expectLog(daemon, "saved CLIPBOARD for")
            expectOutput(try await x.xpb(["paste"]), Data("some text".utf8))
        }
    }

    // MARK: Secrets

    @Test("a --sensitive copy and a foreign owner with the KDE hint: never read, kept or written")
    func secretsAreNotKept() async throws {
        let x = try XSession.require()
        let stateHome = try Self.stateHome()
        let secret = "hunter2-\(UUID().uuidString)"
        let foreign = "kde-secret-\(UUID().uuidString)"
        let ordinary = "ordinary-\(UUID().uuidString)"
        try await Self.withDaemon(x, stateHome: stateHome) { daemon in
            // A control: ordinary text does reach the state directory, so the grep below can fail.
            let plain = try await x.xclipOwner("clipboard", Data(ordinary.utf8))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            await x.stop(plain)
            await Self.expectLog(daemon, "took CLIPBOARD over")

            let copy = try await x.xpb(["copy", "--sensitive"], stdin: .pipe(Data(secret.utf8)))
            expectSuccess(copy)
            await Self.expectLog(daemon, "is marked secret")
            let cleared = try await x.xpb(["clear"])
            #expect(cleared.status == 0, "\(cleared)")
            #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(2)), "a secret must not be taken over")

            let text = try x.file("s.txt", Data(foreign.utf8))
            let hint = try x.file("hint", Data("secret".utf8))
            let owner = try await Self.python(
                x, ["xlib", "--linger", "1", "UTF8_STRING=\(text.path)", "x-kde-passwordManagerHint=\(hint.path)"])
            #expect(owner.status == 0, "\(owner)")
            await Self.expectLog(daemon, "is marked secret", count: 2)
            #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(2)), "a secret must not outlive its owner")
        }

        // Nothing under the state directory holds either secret; the ordinary text is there.
        let files = FileManager.default.enumerator(atPath: stateHome.path)?.compactMap { $0 as? String } ?? []
        let holdingOrdinary = files.filter {
            FileManager.default.contents(atPath: stateHome.appendingPathComponent($0).path)?.range(of: Data(ordinary.utf8)) != nil
        }
        #expect(!holdingOrdinary.isEmpty, "the ordinary copy must be in the history's files: \(files)")
        let history = try await Self.history(x, stateHome, ["--json"])
        #expect(history.status == 0 && history.stdoutText.contains(ordinary), "\(history)")
        #expect(!history.stdoutText.contains(secret) && !history.stdoutText.contains(foreign), "\(history)")
        for file in files {
            let contents = FileManager.default.contents(atPath: stateHome.appendingPathComponent(file).path) ?? Data()
            #expect(contents.range(of: Data(secret.utf8)) == nil, "\(file) holds the --sensitive secret")
            #expect(contents.range(of: Data(foreign.utf8)) == nil, "\(file) holds the KDE-hinted secret")
        }
    }

    // MARK: History

    static func history(_ x: XSession, _ stateHome: URL, _ arguments: [String]) async throws -> RunResult {
        try await x.run("/usr/bin/env", ["XDG_STATE_HOME=\(stateHome.path)", x.xpbPath, "history"] + arguments)
    }

    @Test("after a restart the newest entry is back on an empty CLIPBOARD, every representation")
    func restartRestores() async throws {
        let x = try XSession.require()
        let stateHome = try Self.stateHome()
        let text = try x.file("t.txt", Data("restored text".utf8))
        let html = try x.file("h.html", Data("<u>restored</u>".utf8))
        try await Self.withDaemon(x, stateHome: stateHome) { daemon in
            let owner = try await Self.python(x, ["xlib", "--exit-after-read", "UTF8_STRING=\(text.path)", "text/html=\(html.path)"])
            #expect(owner.status == 0, "\(owner)")
            await Self.expectLog(daemon, "took CLIPBOARD over")
        }
        // The daemon took its content with it.
        #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(5)))
        let listed = try await Self.history(x, stateHome, ["--json"])
        #expect(listed.status == 0 && listed.stdoutText.contains("restored text"), "\(listed)")

        try await Self.withDaemon(x, stateHome: stateHome) { daemon in
            await Self.expectLog(daemon, "restored the newest entry")
            expectOutput(try await x.xpb(["paste", "-t", "UTF8_STRING"]), try Data(contentsOf: text))
            expectOutput(try await x.xpb(["paste", "-t", "text/html"]), try Data(contentsOf: html))
        }
    }

    @Test("PRIMARY goes to the history only with --primary")
    func primaryOnlyWhenAsked() async throws {
        let x = try XSession.require()
        for recordsPrimary in [false, true] {
            let stateHome = try Self.stateHome()
            let selected = "selected-\(UUID().uuidString)"
            let copied = "copied-\(UUID().uuidString)"
            try await Self.withDaemon(x, stateHome: stateHome, arguments: recordsPrimary ? ["--primary"] : []) { daemon in
                let primary = try await x.xclipOwner("primary", Data(selected.utf8))
                // A CLIPBOARD copy after it: once that is in the history, PRIMARY was dealt with.
                let clipboard = try await x.xclipOwner("clipboard", Data(copied.utf8))
                var listed = ""
                for _ in 0..<200 where !listed.contains(copied) {
                    listed = try await Self.history(x, stateHome, ["--json"]).stdoutText
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(listed.contains(copied), "\(listed)")
                #expect(listed.contains(selected) == recordsPrimary, "PRIMARY recorded: \(listed.contains(selected)), --primary: \(recordsPrimary)")
                await x.stop(clipboard)
                await x.stop(primary)
            }
        }
    }

    @Test("with --primary, a restart restores the newest CLIPBOARD entry, not a newer PRIMARY one")
    func restartRestoresClipboardNotPrimary() async throws {
        let x = try XSession.require()
        let stateHome = try Self.stateHome()
        let copied = "copied-\(UUID().uuidString)"
        let selected = "selected-\(UUID().uuidString)"
        try await Self.withDaemon(x, stateHome: stateHome, arguments: ["--primary"]) { daemon in
            let clipboard = try await x.xclipOwner("clipboard", Data(copied.utf8))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            let primary = try await x.xclipOwner("primary", Data(selected.utf8))
            var listed = ""
            for _ in 0..<200 where !listed.contains(selected) {
                listed = try await Self.history(x, stateHome, ["--json"]).stdoutText
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(listed.contains(selected), "PRIMARY is the newest entry: \(listed)")
            await x.stop(primary)
            await x.stop(clipboard)
            await Self.expectLog(daemon, "took CLIPBOARD over")
        }
        #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(5)))
        try await Self.withDaemon(x, stateHome: stateHome, arguments: ["--primary"]) { daemon in
            await Self.expectLog(daemon, "restored the newest entry")
            expectOutput(try await x.xpb(["paste"]), Data(copied.utf8))
        }
    }

    @Test("kill -9 right after 20 quick copies: the history opens and holds only whole entries")
    func killedMidStream() async throws {
        let x = try XSession.require()
        let stateHome = try Self.stateHome()
        let daemon = try await Self.startDaemon(x, stateHome: stateHome)
        let texts = (1...20).map { "quick copy \($0) " + String(repeating: "x", count: $0 * 1000) }
        for text in texts {
            let copy = try await x.xpb(["copy"], stdin: .pipe(Data(text.utf8)))
            #expect(copy.status == 0, "\(copy)")
        }
        kill(daemon.process.pid, SIGKILL)
        await x.stop(daemon.process)

        let listed = try await Self.history(x, stateHome, ["--json"])
        #expect(listed.status == 0, "the history must open after kill -9: \(listed)")
        let entries = try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]] ?? []
        #expect(!entries.isEmpty && entries.count <= 20, "\(entries.count) entries")
        for entry in entries {
            let text = entry["text"] as? String ?? ""
            #expect(texts.contains(text), "an entry that is no copy: \(text.prefix(40))")
        }
        // And a daemon works on it again.
        try await Self.withDaemon(x, stateHome: stateHome) { _ in }
    }

    // MARK: One per display, signals

    @Test("an idle daemon sleeps on the X socket: no CPU while nothing happens")
    func idleUsesNoCPU() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let owner = try await x.xclipOwner("clipboard", Data("idle".utf8))
            await Self.expectLog(daemon, "kept CLIPBOARD of")
            // The history writer finishes the entry first (a debug build hashes slowly).
            for _ in 0..<20 {
                let start = try CPUTime.processTicks(of: daemon.process.pid)
                try await Task.sleep(for: .milliseconds(500))
                if try CPUTime.processTicks(of: daemon.process.pid) == start { break }
            }
            let before = try CPUTime.processTicks(of: daemon.process.pid)
            try await Task.sleep(for: .seconds(1))
            let after = try CPUTime.processTicks(of: daemon.process.pid)
            // A clock tick is 10 ms: a timer or poll loop shows up, scheduling noise does not.
            #expect(after - before <= 1, "the idle daemon used \(after - before) ticks of CPU in 1 s")
            await x.stop(owner)
        }
    }

    @Test("a second daemon on the same display exits 1 with one line naming the running one")
    func onePerDisplay() async throws {
        let x = try XSession.require()
        try await Self.withDaemon(x) { daemon in
            let second = try await x.run("/usr/bin/env", ["XDG_STATE_HOME=\(daemon.stateHome.path)", x.xpbPath, "daemon"])
            expectXpbError(second, status: 1, "a second xpb daemon")
            #expect(second.stderr.contains("pid \(daemon.process.pid)"), "the message must name the running daemon's pid \(daemon.process.pid): \(second.stderr)")
            #expect(daemon.process.isRunning, "the first daemon must keep running")
        }
    }
}
