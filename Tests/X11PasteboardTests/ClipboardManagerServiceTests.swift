import Foundation
import Glibc
import Synchronization
import Testing
@testable import X11Pasteboard
import XTestSupport

/// `ClipboardManagerService`, the manager's side of SAVE_TARGETS, driven the way `xpb daemon`
/// drives it (its own thread, its loop doing the reads), against the library's own hand-off from
/// a writer that exits. Runs under the sanitizers with the rest of X11PasteboardTests.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ClipboardManagerServiceTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture

    init() throws {
        x = try Self.fixture.get()
    }

    @Test func savesEveryRepresentationBeforeAnswering() async throws {
        let manager = try ServiceThread(display: x.display)
        let example = try Tools.product("pasteboard-example")
        let writer = try await ChildProcess.run(example, ["copy", "kept", "by", "the", "service"], environment: ["DISPLAY": x.display])
        #expect(writer.status == 0, "\(writer.stderrText)")
        // The writer exited only after the answer, and the answer came after the copy was ours.
        #expect(try await x.xclipPaste().data == Data("kept by the service".utf8))
        let (requests, saved) = manager.stop()
        #expect(requests == 1)
        #expect(saved.contains("UTF8_STRING") && !saved.contains("TARGETS"))
    }

    @Test func aSecondServiceIsRefusedAndNamesTheFirst() throws {
        let manager = try ServiceThread(display: x.display)
        defer { _ = manager.stop() }
        let connection = try XConnection(displayName: x.display)
        let running = try #require(ClipboardManagerService.runningManager(on: connection))
        #expect(running.processID == Int(getpid()) && running.name == "test manager")
        #expect(throws: PasteboardError.self) { try ClipboardManagerService(connection: connection).acquire(processID: 1, name: "second") }
    }
}

/// A `ClipboardManagerService` on a thread of its own: every SAVE_TARGETS is carried out by
/// capturing CLIPBOARD and taking it, then answered.
private final class ServiceThread: @unchecked Sendable {
    private let stopped = Atomic<Bool>(false)
    private let results = Mutex<(requests: Int, saved: [String])>((0, []))
    private let finished = DispatchSemaphore(value: 0)
    private let wakeWrite: Int32

    init(display: String) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw TestSupportError("pipe") }
        _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
        wakeWrite = pipeEnds[1]
        let wakeRead = pipeEnds[0]
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Thread { [self] in
            defer {
                close(wakeRead)
                finished.signal()
            }
            do {
                let connection = try XConnection(displayName: display)
                connection.wakeDescriptor = wakeRead
                let service = ClipboardManagerService(connection: connection)
                try service.acquire(processID: Int(getpid()), name: "test manager")
                ready.signal()
                let reader = SelectionReader(connection: connection, timeout: .seconds(2))
                var keeper: SelectionOwner?
                while !stopped.load(ordering: .acquiring) {
                    try connection.events.serve(until: { service.hasPendingRequest || stopped.load(ordering: .acquiring) })
                    guard let request = service.nextRequest() else { continue }
                    let snapshot = try? SelectionSnapshot.capture(connection.atom("CLIPBOARD"), with: reader)
                    if let snapshot {
                        let owner = SelectionOwner(connection: connection, selection: connection.atom("CLIPBOARD"), content: snapshot.content)
                        try owner.acquire()
                        keeper = owner
                        results.withLock { $0 = ($0.requests + 1, snapshot.representations.map(\.target)) }
                    }
                    service.answer(request, saved: snapshot != nil)
                }
                _ = keeper
                service.relinquish()
            } catch {
                failure.withLock { $0 = "\(error)" }
                ready.signal()
            }
        }.start()
        ready.wait()
        if let message = failure.withLock({ $0 }) { throw TestSupportError("service thread: \(message)") }
    }

    /// Ends the thread (its connection closes); returns the requests served and the last targets saved.
    func stop() -> (Int, [String]) {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            finished.wait()
            close(wakeWrite)
        }
        return results.withLock { ($0.requests, $0.saved) }
    }
}
