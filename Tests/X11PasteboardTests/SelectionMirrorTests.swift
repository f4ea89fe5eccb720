import Foundation
import Glibc
import Synchronization
import Testing
@testable import X11Pasteboard
import XTestSupport

/// The mirror `xpb sync` and `xpb bridge` publish through: a new content replaces the last
/// without a moment of "no owner", and its own changes are recognised as such.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SelectionMirrorTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture

    init() throws {
        x = try Self.fixture.get()
    }

    static func text(_ string: String) -> SelectionContent {
        SelectionContent(entries: [.init(target: "UTF8_STRING", value: ServedValue(bytes: Array(string.utf8), type: "UTF8_STRING"))])
    }

    @Test func aNewContentSupersedesTheLastAndIsTheOneServed() throws {
        let connection = try XConnection(displayName: x.display)
        let selection = connection.atom("XPB_MIRROR_A")
        let watcher = try SelectionWatcher(connection: connection, selections: [selection])
        let mirror = SelectionMirror(connection: connection)
        try mirror.publish(Self.text("first"), as: selection)
        try mirror.publish(Self.text("second"), as: selection)
        #expect(mirror.owns(selection))
        // Read through the same connection: its loop serves the mirror's owner meanwhile.
        let snapshot = try #require(try SelectionSnapshot.capture(selection, with: SelectionReader(connection: connection)))
        #expect(snapshot.text == "second", "the newer owner answers, not the superseded one")
        var changes: [OwnerChange] = []
        while let change = try watcher.nextChange(timeout: .milliseconds(200)) { changes.append(change) }
        #expect(changes.count == 2, "two publications, two changes, no clear between: \(changes)")
        #expect(changes.allSatisfy(mirror.madeChange), "both are the mirror's own")
    }

    @Test func anotherClientsCopyIsNotTheMirrors() async throws {
        let connection = try XConnection(displayName: x.display)
        let selection = connection.atom("XPB_MIRROR_B")
        let watcher = try SelectionWatcher(connection: connection, selections: [selection])
        let mirror = SelectionMirror(connection: connection)
        try mirror.publish(Self.text("mirrored"), as: selection)
        // Another client: a connection of its own taking the selection.
        let other = try XConnection(displayName: x.display)
        let copier = SelectionOwner(connection: other, selection: other.atom("XPB_MIRROR_B"), content: Self.text("copied"))
        try copier.acquire()
        var changes: [OwnerChange] = []
        while changes.count < 2, let change = try watcher.nextChange(timeout: .seconds(5)) { changes.append(change) }
        try #require(changes.count == 2, "\(changes)")
        #expect(mirror.madeChange(changes[0]))
        #expect(!mirror.madeChange(changes[1]), "the other client's copy is not the mirror's")
        // The mirror's owner learns of its loss from the SelectionClear its loop handles.
        _ = try watcher.nextChange(timeout: .milliseconds(100))
        #expect(!mirror.owns(selection))
    }

    @Test func aWakeUpEndsTheWaitForAChange() throws {
        let connection = try XConnection(displayName: x.display)
        let watcher = try SelectionWatcher(connection: connection, selections: [connection.atom("XPB_MIRROR_C")])
        var descriptors: [Int32] = [-1, -1]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }
        _ = fcntl(descriptors[0], F_SETFL, O_NONBLOCK)
        connection.wakeDescriptor = descriptors[0]
        let posted = Atomic<Bool>(false)
        let writeEnd = descriptors[1]
        let thread = Thread {
            usleep(100_000)
            posted.store(true, ordering: .releasing)
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        thread.start()
        // No timeout: only the wake-up can end this wait (the suite's time limit catches a hang).
        let change = try watcher.nextChange(timeout: nil, stoppingWhen: { posted.load(ordering: .acquiring) })
        let wasPosted = posted.load(ordering: .acquiring)
        #expect(change == nil)
        #expect(wasPosted)
    }

    @Test func servingEventsAnswersRequestsUntilDone() throws {
        let connection = try XConnection(displayName: x.display)
        let selection = connection.atom("XPB_MIRROR_D")
        let mirror = SelectionMirror(connection: connection)
        try mirror.publish(Self.text("served while waiting"), as: selection)
        var descriptors: [Int32] = [-1, -1]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }
        _ = fcntl(descriptors[0], F_SETFL, O_NONBLOCK)
        connection.wakeDescriptor = descriptors[0]
        let read = Mutex<String?>(nil)
        let display = x.display
        let writeEnd = descriptors[1]
        let thread = Thread {
            let text: String? = {
                guard let other = try? XConnection(displayName: display) else { return nil }
                let reader = SelectionReader(connection: other, timeout: .seconds(3))
                return (try? SelectionSnapshot.capture(other.atom("XPB_MIRROR_D"), with: reader))??.text
            }()
            read.withLock { $0 = text ?? "(failed)" }
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        thread.start()
        // The thread's read is answered only if this loop serves the owner meanwhile.
        let done = try connection.serveEvents(until: { read.withLock { $0 != nil } }, timeout: .seconds(10))
        #expect(done)
        #expect(read.withLock { $0 } == "served while waiting")
    }
}
