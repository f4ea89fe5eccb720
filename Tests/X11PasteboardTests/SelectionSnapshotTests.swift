import Foundation
import Synchronization
import Testing
import UniformTypes
@testable import X11Pasteboard
import XTestSupport

/// Capturing every representation of an owner and serving them again, byte for byte: what the
/// clipboard manager, sync and bridges rely on.
@Suite(.serialized, .timeLimit(.minutes(2))) struct SelectionSnapshotTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture

    init() throws {
        x = try Self.fixture.get()
    }

    /// Serves `content` as `selection` from a connection and a thread of its own until `stop()`.
    final class ThreadOwner: @unchecked Sendable {
        private let stopping = Atomic<Bool>(false)
        private let done = Atomic<Bool>(false)
        private let display: String
        private let selection: String

        init(display: String, selection: String, content: SelectionContent) throws {
            self.display = display
            self.selection = selection
            let connection = try XConnection(displayName: display)
            let owner = SelectionOwner(connection: connection, selection: connection.atom(selection), content: content)
            try owner.acquire()
            // The connection and its owner move to the thread and are used only there.
            nonisolated(unsafe) let moved = owner
            let thread = Thread { [self] in
                _ = try? moved.serve(stoppingWhen: { self.stopping.load(ordering: .acquiring) })
                done.store(true, ordering: .releasing)
            }
            thread.start()
        }

        /// Clears the selection from another client: the owner's SelectionClear ends its loop.
        func stop() async {
            stopping.store(true, ordering: .releasing)
            if let clearing = try? XConnection(displayName: display), let now = try? clearing.serverTime() {
                clearing.setOwner(of: clearing.atom(selection), to: .none, time: now)
                clearing.flush()
            }
            _ = await eventually { done.load(ordering: .acquiring) }
        }
    }

    private func reader() throws -> SelectionReader {
        SelectionReader(connection: try XConnection(displayName: x.display), timeout: .seconds(3))
    }

    @Test func aQtStyleOwnerIsCapturedThroughMULTIPLEAndServedAgainIdentically() async throws {
        let pasteboard = x.pasteboard(.init("XPB_SNAPSHOT_A"))
        pasteboard.setItems([[UTType.html.identifier: "<b>bold</b>", UTType.utf8PlainText.identifier: "bold"]])
        let reader = try reader()
        let selection = reader.connection.atom("XPB_SNAPSHOT_A")
        let snapshot = try #require(try SelectionSnapshot.capture(selection, with: reader, viaMultiple: true))
        let sideBySide = try #require(try SelectionSnapshot.capture(selection, with: reader))
        #expect(sideBySide == snapshot, "both ways of reading must agree")
        #expect(snapshot.representation(forTarget: "text/html")?.bytes == Array("<b>bold</b>".utf8))
        #expect(snapshot.representation(forTarget: "UTF8_STRING")?.bytes == Array("bold".utf8))
        #expect(snapshot.representation(forTarget: "STRING")?.type == "STRING")
        #expect(snapshot.representation(forTarget: "TARGETS") == nil, "protocol targets are the server's business")
        #expect(snapshot.text == "bold")
        #expect(!snapshot.isSensitive)

        // The original goes; the snapshot, served again, is the same to a new reader.
        pasteboard.setItems([])
        let again = try ThreadOwner(display: x.display, selection: "XPB_SNAPSHOT_A", content: snapshot.content)
        let recaptured = try #require(try SelectionSnapshot.capture(selection, with: reader))
        await again.stop()
        #expect(recaptured == snapshot)
        #expect(recaptured.representations.map(\.target) == snapshot.representations.map(\.target), "same targets, same order")
    }

    @Test func formatAndTypeSurviveTheRoundTrip() async throws {
        let original = SelectionSnapshot(representations: [
            .init(target: "XPB_NUMBERS", type: "INTEGER", format: 32, bytes: [1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f]),
            .init(target: "XPB_SHORTS", type: "XPB_PAIRS", format: 16, bytes: [1, 2, 3, 4]),
            .init(target: "text/plain", type: "text/plain", bytes: Array("plain".utf8)),
        ])
        let owner = try ThreadOwner(display: x.display, selection: "XPB_SNAPSHOT_B", content: original.content)
        let reader = try reader()
        let captured = try SelectionSnapshot.capture(reader.connection.atom("XPB_SNAPSHOT_B"), with: reader)
        await owner.stop()
        #expect(captured == original)
    }

    @Test func xclipsBinaryComesThroughINCRWithoutMULTIPLE() async throws {
        // Binary with every byte value, NULs included (made fast: random bytes one by one take
        // seconds in a debug build).
        let blob = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        let pasteboard = x.pasteboard(.secondary)
        let xclip = try await x.xclipCopy(blob, selection: "secondary", type: "application/octet-stream", on: pasteboard)
        defer { xclip.terminate() }
        let reader = try reader()
        let snapshot = try #require(try SelectionSnapshot.capture(reader.connection.atom("SECONDARY"), with: reader))
        #expect(snapshot.representations.map(\.target) == ["application/octet-stream"])
        #expect(snapshot.representations.first?.bytes == Array(blob))
        #expect(snapshot.size == blob.count)
    }

    @Test func xselSurvivesACaptureAndItsTextComesBack() async throws {
        // xsel lists MULTIPLE but dies on it (BadAtom): a capture must not send it.
        let xsel = try Tools.required("xsel", package: "xsel")
        let clipboard = x.pasteboard(.general)
        let before = clipboard.changeCount
        let owner = try ChildProcess(xsel, ["-n", "-b", "-i"], environment: ["DISPLAY": x.display], stdin: Data("from xsel".utf8))
        defer { owner.terminate() }
        #expect(await eventually { clipboard.changeCount > before }, "xsel did not take CLIPBOARD: \(owner.stderrText)")
        let reader = try reader()
        let snapshot = try #require(try SelectionSnapshot.capture(reader.connection.atom("CLIPBOARD"), with: reader))
        #expect(snapshot.text == "from xsel")
        #expect(snapshot.representation(forTarget: "UTF8_STRING")?.bytes == Array("from xsel".utf8))
        try await Task.sleep(for: .milliseconds(200))
        #expect(owner.isRunning, "xsel died of the capture: \(owner.stderrText)")
    }

    @Test func representationsPastTheSizeLimitAreLeftOut() async throws {
        let big = [UInt8](repeating: 7, count: 2 << 20)
        let content = SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("small".utf8)),
            .init(target: "application/octet-stream", type: "application/octet-stream", bytes: big),
            .init(target: "text/html", type: "text/html", bytes: Array("<i>small</i>".utf8)),
            .init(target: "image/png", type: "image/png", bytes: big),
        ]).content
        let owner = try ThreadOwner(display: x.display, selection: "XPB_SNAPSHOT_C", content: content)
        let reader = try reader()
        let selection = reader.connection.atom("XPB_SNAPSHOT_C")
        let capped = try #require(try SelectionSnapshot.capture(selection, with: reader, sizeLimit: 1 << 20))
        #expect(capped.representations.map(\.target) == ["UTF8_STRING", "text/html"])
        // Two representations that fit alone but not together: one is left out, and no more
        // than the limit is ever kept.
        let shared = try #require(try SelectionSnapshot.capture(selection, with: reader, sizeLimit: 3 << 20))
        #expect(shared.size <= 3 << 20)
        #expect(shared.representations.map(\.target).contains("UTF8_STRING"))
        #expect(shared.representations.filter { $0.bytes.count == big.count }.count == 1, "\(shared.representations.map(\.target))")
        let whole = try #require(try SelectionSnapshot.capture(selection, with: reader))
        await owner.stop()
        #expect(whole.representations.map(\.target) == ["UTF8_STRING", "application/octet-stream", "text/html", "image/png"])
    }

    @Test(arguments: [
        (ConcealedContent.hintTarget, "secret", true),
        (ConcealedContent.hintTarget, "public", false),
        (UTType.concealed.identifier, "", true),
    ])
    func secretContentIsNeverRead(hintTarget: String, hintValue: String, isSecret: Bool) async throws {
        let password = "hunter2-\(UUID().uuidString)"
        let reads = Atomic<Int>(0)
        let content = SelectionContent(entries: [
            .init(target: "UTF8_STRING") {
                reads.add(1, ordering: .relaxed)
                return ServedValue(bytes: Array(password.utf8), type: "UTF8_STRING")
            },
            .init(target: hintTarget, value: ServedValue(bytes: Array(hintValue.utf8), type: hintTarget)),
        ])
        let owner = try ThreadOwner(display: x.display, selection: "XPB_SNAPSHOT_D", content: content)
        let reader = try reader()
        let snapshot = try SelectionSnapshot.capture(reader.connection.atom("XPB_SNAPSHOT_D"), with: reader)
        await owner.stop()
        if isSecret {
            #expect(snapshot == nil)
            #expect(reads.load(ordering: .relaxed) == 0, "the secret itself was converted")
        } else {
            #expect(snapshot?.text == password)
        }
    }

    @Test func anAnnouncedSizeReservesNoMoreThanTheLimitOrTheCap() {
        #expect(SelectionRead.reservation(forAnnounced: 3 << 20, limit: .max) == 3 << 20)
        #expect(SelectionRead.reservation(forAnnounced: 3 << 20, limit: 1 << 20) == 1 << 20)
        // An owner's INCR header may claim 4 GiB: its word alone reserves 256 MiB at most.
        #expect(SelectionRead.reservation(forAnnounced: Int(UInt32.max), limit: .max) == 256 << 20)
    }

    @Test func noOwnerIsAnError() throws {
        let reader = try reader()
        #expect(throws: PasteboardError.self) { try SelectionSnapshot.capture(reader.connection.atom("XPB_SNAPSHOT_NOBODY"), with: reader) }
    }
}
