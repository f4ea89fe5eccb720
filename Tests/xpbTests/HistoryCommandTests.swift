import ClipboardHistory
import Foundation
import Testing
import X11Pasteboard

/// `xpb history` and its subcommands against a real history directory and a private Xvfb: the
/// history is seeded through the library, from snapshots captured from real owners (xclip and
/// `xpb copy`), as the daemon records them.
@Suite(.xServer, .serialized, .timeLimit(.minutes(3)))
struct HistoryCommandTests {
    /// A history directory of its own, removed when the test ends.
    final class History {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-history-e2e-\(UUID().uuidString)").path
        lazy var store: HistoryStore = try! HistoryStore(directory: path)
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Records a snapshot of UTF8_STRING `text`.
        @discardableResult
        func recordText(_ text: String, at time: Double? = nil) throws -> SelectionSnapshot {
            let snapshot = SelectionSnapshot(representations: [
                .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array(text.utf8))
            ])
            try store.record(snapshot, at: time.map(Date.init(timeIntervalSince1970:)) ?? Date())
            return snapshot
        }
    }

    /// `xpb history ARGS --directory DIR`.
    func runHistory(
        _ x: XSession, _ arguments: [String], _ directory: String, stdin: Stdin = .none
    ) async throws -> RunResult {
        try await x.xpb(["history"] + arguments + ["--directory", directory], stdin: stdin, timeout: .seconds(60))
    }

    /// Every representation of the CLIPBOARD owner, as the daemon takes them.
    func captureClipboard(_ x: XSession) throws -> SelectionSnapshot {
        let reader = SelectionReader(connection: try XConnection(displayName: x.display), timeout: .seconds(10))
        return try #require(try SelectionSnapshot.capture(reader.connection.atom("CLIPBOARD"), with: reader))
    }

    @Test("restore: HTML and text captured from an xpb copy come back byte-exact after their owner is gone")
    func restoreHTMLAndText() async throws {
        let x = try XSession.require()
        let history = History()
        let html = Data("<p>Grüße <b>bold</b> 日本語</p>".utf8)
        let text = Samples.unicode
        let htmlFile = try x.file("page.html", html)
        let textFile = try x.file("page.txt", text)
        expectSuccess(try await x.xpb(["copy", "-t", "text/html=\(htmlFile.path)", "-t", "text/plain=\(textFile.path)"]))
        let snapshot = try captureClipboard(x)
        #expect(snapshot.representation(forTarget: "text/html")?.bytes == Array(html))
        try history.store.record(snapshot)

        // Someone else copies, and the original owner goes.
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data("something else".utf8))))
        expectOutput(try await x.xpb(["paste"]), Data("something else".utf8))

        expectSuccess(try await runHistory(x, ["restore", "0"], history.path))
        // The command has returned; a background process serves every representation.
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "text/html", "-o"]), html)
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), text)
        expectOutput(try await x.xpb(["paste"]), text)
        expectOutput(try await x.xpb(["paste", "-t", "text/html"]), html)
        #expect(try await x.targets("CLIPBOARD").filter { !["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"].contains($0) }
            == snapshot.representations.map(\.target))
    }

    @Test("restore: 20 MiB of binary captured from xclip comes back byte-exact (stored as a file)")
    func restoreLargeBinary() async throws {
        let x = try XSession.require()
        let history = History()
        let blob = Samples.binary(count: 20 << 20)
        let owner = try await x.xclipOwner("clipboard", blob, target: "application/octet-stream")
        let snapshot = try captureClipboard(x)
        await x.stop(owner)
        #expect(snapshot.representation(forTarget: "application/octet-stream")?.bytes.count == blob.count)
        #expect(try history.store.record(snapshot))
        #expect(FileManager.default.subpathsOrEmpty(history.path + "/blobs").count == 2, "one folder, one file")

        expectSuccess(try await runHistory(x, ["restore", "0"], history.path))
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "application/octet-stream", "-o"], timeout: .seconds(60)), blob)
        expectOutput(try await runHistory(x, ["show", "0", "-t", "application/octet-stream"], history.path), blob)
    }

    @Test("list, --json, --limit and --menu: newest first, numbered from 0")
    func listing() async throws {
        let x = try XSession.require()
        let history = History()
        try history.recordText("first line\nsecond line", at: 1_700_000_000.5)
        try history.store.record(
            SelectionSnapshot(representations: [.init(target: "image/png", type: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47])]),
            at: Date(timeIntervalSince1970: 1_700_000_100))
        try history.recordText("newest \"quoted\"", at: 1_700_000_200)

        let table = try await runHistory(x, [], history.path)
        expectSuccess(table)
        let lines = table.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("0  2023-11-14T22:16:40Z") && lines[0].hasSuffix("newest \"quoted\""), "\(lines)")
        #expect(lines[1].hasPrefix("1  ") && lines[1].contains("[public.png, 4 B]"), "\(lines)")
        #expect(lines[2].hasPrefix("2  ") && lines[2].hasSuffix("first line second line"), "\(lines)")

        let json = try await runHistory(x, ["--json"], history.path)
        expectSuccess(json)
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(array.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(array.map { $0["text"] as? String } == ["newest \"quoted\"", nil, "first line\nsecond line"])
        #expect(array[1]["text"] == nil, "no text key for an entry without text")
        #expect(array[2]["time"] as? String == "2023-11-14T22:13:20.500Z")
        #expect(array[1]["types"] as? [String] == ["public.png"])
        #expect(array[1]["size"] as? Int == 4)
        #expect(array[0]["types"] as? [String] == ["public.utf8-plain-text"])

        let limited = try await runHistory(x, ["--json", "--limit", "1"], history.path)
        #expect(try (JSONSerialization.jsonObject(with: limited.stdout) as? [Any])?.count == 1)

        let menu = try await runHistory(x, ["--menu"], history.path)
        let ids = array.map { $0["id"] as? Int ?? -1 }
        expectOutput(
            menu, Data("#\(ids[0])  newest \"quoted\"\n#\(ids[1])  [public.png, 4 B]\n#\(ids[2])  first line second line\n".utf8))
    }

    @Test("a --menu line piped to restore --from-menu restores that entry (the dmenu/fzf pipe)")
    func menuRoundTrip() async throws {
        let x = try XSession.require()
        let history = History()
        try history.recordText("older entry")
        try history.recordText("newer entry")
        let menu = try await runHistory(x, ["--menu"], history.path)
        let chosen = try #require(menu.stdoutText.split(separator: "\n").last)  // what a picker prints
        let olderID = try history.store.entries()[1].id
        #expect(chosen == "#\(olderID)  older entry")
        // Copies recorded while the menu is open shift the indexes, not the ids.
        try history.recordText("copied while the menu was open")
        try history.recordText("and another")
        expectSuccess(try await runHistory(x, ["restore", "--from-menu"], history.path, stdin: .pipe(Data((chosen + "\n").utf8))))
        expectOutput(try await x.xpb(["paste"]), Data("older entry".utf8))
        // An entry deleted meanwhile: one line, exit 1, the clipboard untouched.
        expectSuccess(try await runHistory(x, ["delete", "3"], history.path))
        let stale = try await runHistory(x, ["restore", "--from-menu"], history.path, stdin: .pipe(Data((chosen + "\n").utf8)))
        #expect(stale.status == 1 && stale.stderr == "xpb: history entry #\(olderID) is gone (deleted, or dropped as the history grew)\n", "\(stale)")
        // A picker closed without a choice prints nothing.
        expectXpbError(try await runHistory(x, ["restore", "--from-menu"], history.path, stdin: .pipe(Data())))
        expectXpbError(try await runHistory(x, ["restore", "--from-menu"], history.path, stdin: .pipe(Data("garbage\n".utf8))))
        expectOutput(try await x.xpb(["paste"]), Data("older entry".utf8))
    }

    @Test("show N [-t TYPE], search WORDS [--json], delete N, clear")
    func showSearchDeleteClear() async throws {
        let x = try XSession.require()
        let history = History()
        try history.recordText("the quick brown fox")
        try history.store.record(SelectionSnapshot(representations: [
            .init(target: "text/html", type: "text/html", bytes: Array("<i>lazy dog</i>".utf8)),
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("lazy dog".utf8)),
        ]))
        try history.recordText("a quick dog")

        expectOutput(try await runHistory(x, ["show", "1"], history.path), Data("lazy dog".utf8))
        expectOutput(try await runHistory(x, ["show", "1", "-t", "text/html"], history.path), Data("<i>lazy dog</i>".utf8))
        expectOutput(try await runHistory(x, ["show", "1", "-t", "public.html"], history.path), Data("<i>lazy dog</i>".utf8))
        expectXpbError(try await runHistory(x, ["show", "0", "-t", "image/png"], history.path))

        let search = try await runHistory(x, ["search", "quick"], history.path)
        expectSuccess(search)
        #expect(search.stdoutText.split(separator: "\n").map { $0.prefix(1) } == ["0", "2"])
        let json = try await runHistory(x, ["search", "dog", "--json"], history.path)
        let found = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(found.map { $0["index"] as? Int } == [0, 1])
        #expect(found.map { $0["text"] as? String } == ["a quick dog", "lazy dog"])
        expectXpbError(try await runHistory(x, ["search", "cat"], history.path))

        expectSuccess(try await runHistory(x, ["delete", "1"], history.path))
        let after = try await runHistory(x, ["--json"], history.path)
        let texts = try #require(try JSONSerialization.jsonObject(with: after.stdout) as? [[String: Any]]).map { $0["text"] as? String }
        #expect(texts == ["a quick dog", "the quick brown fox"])

        expectSuccess(try await runHistory(x, ["clear"], history.path))
        expectXpbError(try await runHistory(x, [], history.path), "an empty history")
        #expect(try history.store.count() == 0)
    }

    @Test("show -t TYPE reads only that representation: another one's missing file is no failure")
    func showReadsOnlyWhatIsAsked() async throws {
        let x = try XSession.require()
        let history = History()
        try history.store.record(SelectionSnapshot(representations: [
            .init(target: "image/png", type: "image/png", bytes: [UInt8](repeating: 0x89, count: 100 << 10)),
            .init(target: "text/html", type: "text/html", bytes: Array("<b>caption</b>".utf8)),
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("caption".utf8)),
        ]))
        for file in subpathsOrEmptyFiles(history.path + "/blobs") { unlink(file) }
        expectOutput(try await runHistory(x, ["show", "0"], history.path), Data("caption".utf8))
        expectOutput(try await runHistory(x, ["show", "0", "-t", "text/html"], history.path), Data("<b>caption</b>".utf8))
        expectOutput(try await runHistory(x, ["show", "0", "-t", "public.html"], history.path), Data("<b>caption</b>".utf8))
        expectOutput(try await runHistory(x, ["show", "0", "-t", "UTF8_STRING"], history.path), Data("caption".utf8))
        let image = try await runHistory(x, ["show", "0", "-t", "image/png"], history.path)
        expectXpbError(image, status: 2, "the image's file is gone")
        #expect(image.stderr.contains("history entry 0 is damaged"), "\(image)")
    }

    @Test("listing, showing and restoring never wait for the writer's lock (the daemon mid-write)")
    func readersDoNotWaitForTheWriter() async throws {
        let x = try XSession.require()
        let history = History()
        try history.recordText("read while locked")
        let held = open(history.path + "/lock", O_RDWR | O_CLOEXEC)
        #expect(held >= 0 && flock(held, LOCK_EX) == 0)
        defer { close(held) }
        // Each would time out (60 s) if it waited for the lock held until the test ends.
        expectSuccess(try await runHistory(x, ["--limit", "1"], history.path))
        expectOutput(try await runHistory(x, ["show", "0"], history.path), Data("read while locked".utf8))
        expectSuccess(try await runHistory(x, ["search", "read"], history.path))
        expectSuccess(try await runHistory(x, ["restore", "0"], history.path))
        expectOutput(try await x.xpb(["paste"]), Data("read while locked".utf8))
    }

    @Test("a missing history, an empty one and bad indexes: one xpb: line, exit 1")
    func errors() async throws {
        let x = try XSession.require()
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-no-history-\(UUID().uuidString)").path
        for arguments in [[], ["--json"], ["show", "0"], ["restore", "0"], ["search", "x"], ["delete", "0"]] {
            let result = try await runHistory(x, arguments, missing)
            expectXpbError(result, "\(arguments) on a missing history")
            #expect(result.stderr.contains("no history in \(missing)"))
        }
        expectSuccess(try await runHistory(x, ["clear"], missing), "clearing nothing is fine")
        #expect(!FileManager.default.fileExists(atPath: missing), "reading commands create nothing")

        let history = History()
        _ = history.store
        for arguments in [[], ["--menu"], ["show", "0"], ["restore", "0"], ["delete", "0"]] {
            let result = try await runHistory(x, arguments, history.path)
            expectXpbError(result, "\(arguments) on an empty history")
            #expect(result.stderr == "xpb: the history is empty\n")
        }
        try history.recordText("only")
        for arguments in [["show", "1"], ["restore", "7"], ["delete", "1"]] {
            let result = try await runHistory(x, arguments, history.path)
            expectXpbError(result, "\(arguments): bad index")
            #expect(result.stderr == "xpb: no history entry \(arguments[1]): the history has 1 entry (0)\n")
        }
        // A negative number reads as an option: ArgumentParser's usage error (exit 64).
        #expect(try await runHistory(x, ["show", "-1"], history.path).status == 64)
    }

    @Test("the default directory is $XDG_STATE_HOME/xpb")
    func defaultDirectory() async throws {
        let x = try XSession.require()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = try HistoryStore(directory: state + "/xpb")
        try store.record(SelectionSnapshot(representations: [.init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("from XDG".utf8))]))
        let process = try x.spawnWithEnvironment(["history", "show", "0"], ["XDG_STATE_HOME": state])
        _ = await process.waitForExit(timeout: .seconds(30))
        let result = await x.stop(process)
        #expect(result.status == 0 && result.stdoutText == "from XDG", "\(result)")
    }
}

extension XSession {
    /// Starts xpb with extra environment variables.
    fileprivate func spawnWithEnvironment(_ arguments: [String], _ environment: [String: String]) throws -> Spawned {
        try Command.spawn(xpbPath, arguments, display: display, suiteID: suiteID, extraEnvironment: environment)
    }
}

extension FileManager {
    fileprivate func subpathsOrEmpty(_ path: String) -> [String] { (try? subpathsOfDirectory(atPath: path)) ?? [] }
}

/// Every regular file under `path`.
private func subpathsOrEmptyFiles(_ path: String) -> [String] {
    FileManager.default.subpathsOrEmpty(path).map { path + "/" + $0 }.filter { file in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
