import ClipboardHistory
import Foundation
import Glibc
import Testing
import X11Pasteboard
import XTestSupport

/// The history store against a real SQLite file in a temporary directory.
@Suite struct HistoryStoreTests {
    /// A fresh directory under /tmp, removed when the test ends.
    final class Scratch {
        let path: String
        init() {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-history-\(UUID().uuidString)").path
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var history: String { path + "/state/xpb" }
    }

    static func text(_ string: String) -> SelectionSnapshot {
        SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array(string.utf8)),
            .init(target: "text/plain;charset=utf-8", type: "text/plain;charset=utf-8", bytes: Array(string.utf8)),
        ])
    }

    static func binary(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed &* 17 &+ ($0 >> 9)) }
    }

    /// Every file under `path`, recursively.
    static func files(under path: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path + "/" + name)
            }
        }
        return found
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        _ = stat(path, &status)
        return status.st_mode & 0o777
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(HistoryStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/xpb")
        #expect(HistoryStore.defaultDirectory(environment: ["HOME": "/home/ann"]) == "/home/ann/.local/state/xpb")
        // The XDG spec: a relative path is invalid and ignored.
        #expect(HistoryStore.defaultDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h/"]) == "/h/.local/state/xpb")
    }

    @Test func recordsNewestFirstWithEveryRepresentation() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        #expect(try store.newest() == nil)
        #expect(try store.entries().isEmpty)
        let html = SelectionSnapshot(representations: [
            .init(target: "text/html", type: "text/html", bytes: Array("<b>bold</b>".utf8)),
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("bold".utf8)),
            .init(target: "TIMESTAMP_LIKE", type: "INTEGER", format: 32, bytes: [1, 0, 0, 0]),
        ])
        #expect(try store.record(Self.text("first"), at: Date(timeIntervalSince1970: 1000)))
        #expect(try store.record(html, at: Date(timeIntervalSince1970: 2000)))
        let entries = try store.entries()
        #expect(entries.map(\.index) == [0, 1])
        #expect(entries.map(\.text) == ["bold", "first"])
        #expect(entries[0].targets == ["text/html", "UTF8_STRING", "TIMESTAMP_LIKE"])
        #expect(entries[0].types.prefix(2) == ["public.html", "public.utf8-plain-text"])
        #expect(entries[0].size == 11 + 4 + 4)
        #expect(entries[0].time == Date(timeIntervalSince1970: 2000))
        #expect(try store.snapshot(at: 0) == html)
        #expect(try store.newest() == html)
        #expect(try store.snapshot(at: 1) == Self.text("first"))
        #expect(try store.entries(limit: 1).count == 1)
        // A second store on the same directory (another process) sees the same.
        #expect(try HistoryStore(directory: scratch.history).entries() == entries)
    }

    @Test func anEqualEntryMovesToTheTopInsteadOfBeingStoredTwice() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        try store.record(Self.text("a"), at: Date(timeIntervalSince1970: 1))
        try store.record(Self.text("b"), at: Date(timeIntervalSince1970: 2))
        #expect(try store.record(Self.text("b"), at: Date(timeIntervalSince1970: 3)))
        #expect(try store.entries().map(\.text) == ["b", "a"])
        #expect(try store.entries()[0].time == Date(timeIntervalSince1970: 3))
        try store.record(Self.text("a"), at: Date(timeIntervalSince1970: 4))
        #expect(try store.entries().map(\.text) == ["a", "b"])
        // Same text, different representations: a different entry.
        try store.record(SelectionSnapshot(representations: [.init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("a".utf8))]))
        #expect(try store.count() == 3)
    }

    @Test func refusesSensitiveAndEmptySnapshotsAndWritesNoneOfTheirBytes() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 16))
        let secret = "hunter2-correct-horse-battery-staple"
        let kde = SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array(secret.utf8)),
            .init(target: "x-kde-passwordManagerHint", type: "x-kde-passwordManagerHint", bytes: Array("secret".utf8)),
        ])
        let concealed = SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array((secret + "-2").utf8)),
            .init(target: "org.nspasteboard.ConcealedType", type: "org.nspasteboard.ConcealedType", bytes: []),
        ])
        #expect(kde.isSensitive && concealed.isSensitive)
        #expect(try store.record(kde) == false)
        #expect(try store.record(concealed) == false)
        #expect(try store.record(SelectionSnapshot(representations: [])) == false)
        #expect(try store.record(SelectionSnapshot(representations: [.init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: [])])) == false)
        try store.record(Self.text("harmless"))
        #expect(try store.entries().map(\.text) == ["harmless"])
        let needle = Data("hunter2".utf8)
        let files = Self.files(under: scratch.path)
        #expect(files.contains { $0.hasSuffix("history.sqlite") })
        for file in files {
            let contents = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(contents.range(of: needle) == nil, "the secret is in \(file)")
        }
    }

    @Test func largeRepresentationsLiveInContentAddressedFilesDeletedWhenUnused() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 1024))
        let big = Self.binary(300_000, seed: 1)
        let image = SelectionSnapshot(representations: [.init(target: "image/png", type: "image/png", bytes: big)])
        let sameBytesOtherTarget = SelectionSnapshot(representations: [.init(target: "image/x-png", type: "image/x-png", bytes: big)])
        try store.record(image)
        try store.record(sameBytesOtherTarget)
        try store.record(Self.text("small"))
        let blobs = Self.files(under: scratch.history + "/blobs")
        // One file for both entries, named by the SHA-256 of the bytes, under its first two digits.
        #expect(blobs.count == 1)
        let name = try #require(blobs.first.map { URL(fileURLWithPath: $0) })
        #expect(name.lastPathComponent.count == 64)
        #expect(name.deletingLastPathComponent().lastPathComponent == String(name.lastPathComponent.prefix(2)))
        #expect(try Data(contentsOf: name) == Data(big))
        #expect(try store.snapshot(at: 2) == image)
        #expect(try store.snapshot(at: 1) == sameBytesOtherTarget)
        try store.delete(at: 2)
        #expect(Self.files(under: scratch.history + "/blobs").count == 1, "still used by the other entry")
        try store.delete(at: 1)
        #expect(Self.files(under: scratch.history + "/blobs").isEmpty)
        #expect(try store.entries().map(\.text) == ["small"])
    }

    @Test func contentServesFilesLazilyAndOutlivesTheEntry() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 1024))
        let big = Self.binary(100_000, seed: 9)
        let recorded = SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("caption".utf8)),
            .init(target: "image/png", type: "image/png", bytes: big),
            .init(target: "XPB_PAIRS", type: "INTEGER", format: 32, bytes: [1, 0, 0, 0]),
        ])
        try store.record(recorded)
        let content = try store.content(at: 0)
        #expect(!content.isSensitive)
        // The entry and its file go; the content still serves what was recorded.
        try store.delete(at: 0)
        #expect(Self.files(under: scratch.history + "/blobs").isEmpty)
        let served = content.entries.map { entry in entry.produce().map { [$0.type: $0.bytes] } }
        #expect(content.entries.map(\.target) == ["UTF8_STRING", "image/png", "XPB_PAIRS"])
        #expect(served == recorded.representations.map { [$0.type: $0.bytes] })
        #expect(content.entries[2].produce()?.format == 32)
        #expect(throws: HistoryError.self) { try store.content(at: 0) }
    }

    @Test func oldestEntriesGoFirstPastTheCountOrByteLimit() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(maxEntries: 3, maxTotalBytes: 10_000, inlineThreshold: 1000))
        for n in 0..<5 { try store.record(Self.text("n\(n)")) }
        #expect(try store.entries().map(\.text) == ["n4", "n3", "n2"])
        // Two 4 KiB entries fit in 10 000 bytes with the small ones; a third pushes the oldest out,
        // and their files go with them.
        try store.record(SelectionSnapshot(representations: [.init(target: "A", type: "A", bytes: Self.binary(4000, seed: 1))]))
        try store.record(SelectionSnapshot(representations: [.init(target: "B", type: "B", bytes: Self.binary(4000, seed: 2))]))
        #expect(try store.entries().map(\.targets) == [["B"], ["A"], ["UTF8_STRING", "text/plain;charset=utf-8"]])
        try store.record(SelectionSnapshot(representations: [.init(target: "C", type: "C", bytes: Self.binary(4000, seed: 3))]))
        #expect(try store.entries().map(\.targets) == [["C"], ["B"]])
        #expect(Self.files(under: scratch.history + "/blobs").count == 2)
        // Larger than the whole history may be: refused, nothing dropped.
        #expect(try store.record(SelectionSnapshot(representations: [.init(target: "D", type: "D", bytes: Self.binary(10_001, seed: 4))])) == false)
        #expect(try store.count() == 2)
    }

    @Test func searchFindsEveryWordAsAPrefixWithHistoryIndexes() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        try store.record(Self.text("the quick brown fox"))
        try store.record(Self.text("lazy dogs sleep"))
        try store.record(Self.text("a quick dog"))
        try store.record(SelectionSnapshot(representations: [.init(target: "image/png", type: "image/png", bytes: [1, 2, 3])]))
        #expect(try store.search("quick").map(\.text) == ["a quick dog", "the quick brown fox"])
        #expect(try store.search("quick").map(\.index) == [1, 3])
        #expect(try store.search("dog").map(\.index) == [1, 2])
        #expect(try store.search("QUICK fox").map(\.index) == [3])
        #expect(try store.search("cat").isEmpty)
        // Query syntax in the words is taken literally, not as FTS5 operators.
        #expect(try store.search("\"quick OR -fox* (").isEmpty)
        #expect(try store.search("  ").isEmpty)
        try store.delete(at: 1)
        #expect(try store.search("quick").map(\.text) == ["the quick brown fox"])
        #expect(try store.search("quick").map(\.index) == [2])
    }

    @Test func deleteAndClearAndBadIndexes() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 10))
        for n in 0..<3 { try store.record(Self.text("entry number \(n)")) }
        try store.delete(at: 1)
        #expect(try store.entries().map(\.text) == ["entry number 2", "entry number 0"])
        #expect(throws: HistoryError.self) { try store.delete(at: 2) }
        do {
            _ = try store.snapshot(at: 5)
            Issue.record("no error for a bad index")
        } catch let error as HistoryError {
            #expect(error.isMissingEntry)
            #expect(error.message == "no history entry 5: the history has 2 entries (0 to 1)")
        }
        #expect(throws: HistoryError.self) { try store.snapshot(at: -1) }
        try store.clear()
        #expect(try store.entries().isEmpty)
        #expect(Self.files(under: scratch.history + "/blobs").isEmpty)
        #expect(try store.search("entry").isEmpty)
        #expect((try? store.snapshot(at: 0)) == nil)
        do {
            try store.delete(at: 0)
        } catch let error as HistoryError {
            #expect(error.message == "the history is empty")
        }
    }

    @Test func directoryIsPrivateAndEveryFileToo() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 10))
        try store.record(Self.text("a text longer than ten bytes"))
        #expect(Self.mode(scratch.history) == 0o700)
        #expect(Self.mode(scratch.history + "/blobs") == 0o700)
        let files = Self.files(under: scratch.history)
        #expect(files.contains { $0.hasSuffix("-wal") })
        #expect(files.contains { $0.contains("/blobs/") })
        for file in files { #expect(Self.mode(file) == 0o600, "\(file) has mode \(String(Self.mode(file), radix: 8))") }
        for directory in FileManager.default.subpathsOrEmpty(scratch.history + "/blobs") {
            let path = scratch.history + "/blobs/" + directory
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                #expect(Self.mode(path) == 0o700)
            }
        }
    }

    @Test func openingAndReadingNeverWaitForTheWritersLock() throws {
        let scratch = Scratch()
        let seeded = try HistoryStore(directory: scratch.history)
        try seeded.record(Self.text("listed while the daemon writes"))
        // Another process (the daemon, mid-write) holds the writer's lock until this test is done.
        let held = open(scratch.history + "/lock", O_RDWR | O_CLOEXEC)
        #expect(held >= 0)
        #expect(flock(held, LOCK_EX) == 0)
        let released = Atomic(false)
        // Released in 20 s if an open waits for it (the failure), else once the test is done.
        let releaser = Thread {
            sleep(20)
            released.set(true)
            close(held)
        }
        releaser.start()
        let reader = try HistoryStore(directory: scratch.history, readOnly: true)
        #expect(try reader.entries().map(\.text) == ["listed while the daemon writes"])
        #expect(try reader.snapshot(at: 0) == Self.text("listed while the daemon writes"))
        #expect(!released.value, "a read-only open waited for the writer's lock")
        // A read-write open skips the sweep of unused files rather than wait for it.
        let writer = try HistoryStore(directory: scratch.history)
        #expect(try writer.count() == 1)
        #expect(!released.value, "a read-write open waited for the writer's lock to sweep")
        #expect(throws: HistoryError.self) { try reader.delete(at: 0) }
    }

    @Test func deleteAndClearLeaveNoDeletedWordOnDisk() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        // A second connection, as `xpb history` next to the daemon.
        let reader = try HistoryStore(directory: scratch.history, readOnly: true)
        for n in 0..<20 { try store.record(Self.text("filler entry number \(n) with common words")) }
        let secret = "zqxwvplumbago"
        try store.record(Self.text("my password is \(secret) do not keep"))
        for n in 20..<25 { try store.record(Self.text("filler entry number \(n) with common words")) }
        #expect(try reader.search(secret).count == 1)
        func filesHolding(_ word: String) -> [String] {
            Self.files(under: scratch.history).filter { file in
                guard let data = FileManager.default.contents(atPath: file) else { return false }
                return data.range(of: Data(word.utf8)) != nil
            }
        }
        #expect(!filesHolding(secret).isEmpty, "the word is on disk before the delete")
        try store.delete(at: 5)
        #expect(try reader.search(secret).isEmpty)
        #expect(try store.count() == 25)
        #expect(filesHolding(secret) == [], "the deleted entry's word is still on disk")

        let other = "yqjfrobnicate"
        try store.record(Self.text("another \(other) entry"))
        #expect(!filesHolding(other).isEmpty)
        try store.clear()
        #expect(filesHolding(other) == [], "a cleared entry's word is still on disk")
        #expect(filesHolding("filler") == [])
    }

    @Test func aBridgesOriginMarkerIsNeverKept() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        var bridged = Self.text("from the far side")
        bridged.representations.append(.init(target: "_XPB_BRIDGE_ORIGIN", type: "_XPB_BRIDGE_ORIGIN", bytes: Array("origin 7 gen 3".utf8)))
        #expect(try store.record(bridged))
        #expect(try store.snapshot(at: 0) == Self.text("from the far side"))
        #expect(try store.entries()[0].targets == ["UTF8_STRING", "text/plain;charset=utf-8"])
        // The same text copied locally is the same entry.
        try store.record(Self.text("from the far side"))
        #expect(try store.count() == 1)
        // A snapshot of nothing but the marker is nothing to keep.
        #expect(try !store.record(SelectionSnapshot(representations: [
            .init(target: "_XPB_BRIDGE_ORIGIN", type: "_XPB_BRIDGE_ORIGIN", bytes: [1, 2, 3])
        ])))
    }

    @Test func aMissingFileSpoilsOnlyItsOwnRepresentation() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history, limits: .init(inlineThreshold: 100))
        let image = Self.binary(1000, seed: 4)
        try store.record(SelectionSnapshot(representations: [
            .init(target: "image/png", type: "image/png", bytes: image),
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("caption".utf8)),
        ]))
        for file in Self.files(under: scratch.history + "/blobs") { unlink(file) }
        #expect(try store.snapshot(at: 0, targets: ["UTF8_STRING"]).text == "caption")
        #expect(try store.outline(at: 0).map(\.target) == ["image/png", "UTF8_STRING"])
        #expect(throws: HistoryError.self) { try store.snapshot(at: 0) }
        #expect(throws: HistoryError.self) { try store.snapshot(at: 0, targets: ["image/png"]) }
    }

    @Test func contentByIDOutlivesNewerEntries() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        try store.record(Self.text("picked"))
        let id = try store.entries()[0].id
        try store.record(Self.text("copied while the menu was open"))
        #expect(try store.content(id: id).entries.map(\.target) == ["UTF8_STRING", "text/plain;charset=utf-8"])
        try store.delete(at: 1)
        do {
            _ = try store.content(id: id)
            Issue.record("no error for a deleted id")
        } catch let error as HistoryError {
            #expect(error.isMissingEntry)
            #expect(error.message == "history entry #\(id) is gone (deleted, or dropped as the history grew)")
        }
    }

    @Test func textIsCutOnACharacterBoundaryForListings() throws {
        let scratch = Scratch()
        let store = try HistoryStore(directory: scratch.history)
        let long = String(repeating: "é", count: HistoryStore.textLimit)  // two bytes each
        try store.record(Self.text(long))
        let text = try #require(try store.entries()[0].text)
        #expect(text.utf8.count == HistoryStore.textLimit)
        #expect(text.allSatisfy { $0 == "é" })
        #expect(try store.snapshot(at: 0) == Self.text(long), "the representations stay whole")
    }

    /// A writer SIGKILLed while it records in a loop (files and rows): the history opens, every
    /// entry it lists is whole, and no file is left that no entry uses.
    @Test func killNineMidWriteLosesAtMostTheEntryBeingWritten() async throws {
        let scratch = Scratch()
        let writer = try Tools.product("history-writer")
        for round in 0..<3 {
            let child = try ChildProcess(writer, [scratch.history])
            let lines = await child.waitForLines(15 + round * 7, timeout: .seconds(60))
            #expect(lines.count >= 15, "the writer stopped: \(child.stderrText)")
            _ = child.signal(SIGKILL)
            _ = await child.waitForExit(timeout: .seconds(10))
            let committed = Set(lines.compactMap(Int.init))

            let store = try HistoryStore(directory: scratch.history)
            let entries = try store.entries()
            let listed = entries.compactMap { $0.text.flatMap { Int($0.dropFirst("entry ".count)) } }
            // Each round starts from 0 again: equal entries move to the top, so the count is the
            // largest round's.
            #expect(Set(listed).isSuperset(of: committed), "a committed entry was lost")
            #expect(listed.count == entries.count)
            for (index, entry) in entries.enumerated() {
                let n = listed[index]
                let snapshot = try store.snapshot(at: index)
                #expect(snapshot.text == "entry \(n)")
                if n % 2 == 1 {
                    let bytes = snapshot.representation(forTarget: "application/octet-stream")?.bytes
                    #expect(bytes == HistoryStoreTests.writerPattern(n), "entry \(entry.index) (n = \(n)) is damaged")
                }
            }
            let blobs = Self.files(under: scratch.history + "/blobs")
            #expect(blobs.count == Set(listed.filter { $0 % 2 == 1 }).count, "unused or partial files left: \(blobs)")
        }
    }

    /// Another process recording all the while (the daemon): opening, listing and reading the
    /// history never fails, never sees a partial entry, and never deletes the writer's files.
    @Test func readersWorkWhileAnotherProcessRecords() async throws {
        let scratch = Scratch()
        let child = try ChildProcess(try Tools.product("history-writer"), [scratch.history])
        _ = await child.waitForLines(3, timeout: .seconds(60))
        var rounds = 0
        while rounds < 30 && child.isRunning {
            let store = try HistoryStore(directory: scratch.history)  // sweeps unused files each time
            let newest = try #require(try store.entries(limit: 1).first)
            let n = try #require(newest.text.flatMap { Int($0.dropFirst("entry ".count)) })
            let snapshot = try store.snapshot(at: 0)
            // The newest may have moved on between the two reads: check whatever entry came back.
            let m = try #require(snapshot.text.flatMap { Int($0.dropFirst("entry ".count)) })
            #expect(m >= n)
            if m % 2 == 1 {
                #expect(snapshot.representation(forTarget: "application/octet-stream")?.bytes == Self.writerPattern(m))
            }
            rounds += 1
        }
        #expect(child.isRunning, "the writer failed: \(child.stderrText)")
        _ = child.signal(SIGKILL)
        _ = await child.waitForExit(timeout: .seconds(10))
        #expect(rounds == 30)
    }

    /// The writer's 200 KiB for entry n.
    static func writerPattern(_ n: Int) -> [UInt8] {
        (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n &* 7 &+ ($0 >> 8)) }
    }
}

extension FileManager {
    fileprivate func subpathsOrEmpty(_ path: String) -> [String] { (try? subpathsOfDirectory(atPath: path)) ?? [] }
}

/// A flag shared with another thread.
final class Atomic: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool
    init(_ value: Bool) { stored = value }
    var value: Bool { lock.withLock { stored } }
    func set(_ value: Bool) { lock.withLock { stored = value } }
}
