import Foundation
import Synchronization
import Testing
@testable import X11Pasteboard
import XTestSupport

/// The SAVE_TARGETS hand-off (ICCCM §2.6.3) against a clipboard manager written here: a
/// process that exits while owning CLIPBOARD leaves its content with the manager, never a secret.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ClipboardManagerTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture
    let example: String

    init() throws {
        x = try Self.fixture.get()
        example = try Tools.product("pasteboard-example")
    }

    @Test func contentOutlivesAWriterThatExitsWhileAManagerRuns() async throws {
        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        let writer = try await ChildProcess.run(example, ["copy", "kept", "by", "the", "manager"], environment: ["DISPLAY": x.display])
        #expect(writer.status == 0, "\(writer.stderrText)")
        #expect(manager.saveRequests == 1)
        #expect(manager.savedTargets.contains("UTF8_STRING"))
        #expect(!manager.savedTargets.contains("TARGETS") && !manager.savedTargets.contains("MULTIPLE"))
        #expect(try await x.xclipPaste().data == Data("kept by the manager".utf8))
    }

    @Test func sensitiveContentIsNeverHandedOff() async throws {
        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        let writer = try await ChildProcess.run(example, ["copy", "--secret", "hunter2"], environment: ["DISPLAY": x.display])
        #expect(writer.status == 0, "\(writer.stderrText)")
        #expect(manager.saveRequests == 0)
        let paste = try await x.xclipPaste()
        #expect(paste.status != 0 && paste.data.isEmpty, "the secret survived its writer: \(paste)")
    }

    @Test func withoutAManagerTheWriterExitsAtOnce() async throws {
        let started = ContinuousClock.now
        let writer = try await ChildProcess.run(example, ["copy", "nobody", "keeps", "this"], environment: ["DISPLAY": x.display])
        #expect(writer.status == 0, "\(writer.stderrText)")
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(try await x.xclipPaste().status != 0)
    }

    /// `xpb copy --foreground`, owning CLIPBOARD once it returns.
    private func startCopy(_ text: String, _ extra: [String] = []) async throws -> ChildProcess {
        let copy = try ChildProcess(try Tools.product("xpb"), ["copy", "--foreground"] + extra, environment: ["DISPLAY": x.display], stdin: Data(text.utf8))
        let owning = await eventually { (try? await x.xclipPaste().data) == Data(text.utf8) }
        #expect(owning, "xpb copy did not take CLIPBOARD: \(copy.stderrText)")
        return copy
    }

    @Test func xpbCopyTerminatedHandsItsContentToTheManager() async throws {
        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        let copy = try await startCopy("kept after SIGTERM")
        kill(copy.pid, SIGTERM)
        #expect(await copy.waitForExit(timeout: .seconds(6)) == 0, "\(copy.stderrText)")
        #expect(manager.saveRequests == 1)
        #expect(try await x.xclipPaste().data == Data("kept after SIGTERM".utf8))
    }

    @Test func xpbCopyHandsOffToAManagerThatStartedAfterIt() async throws {
        let copy = try await startCopy("copied before the manager ran")
        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        kill(copy.pid, SIGTERM)
        #expect(await copy.waitForExit(timeout: .seconds(6)) == 0, "\(copy.stderrText)")
        #expect(manager.saveRequests == 1, "the manager refused a request dated before it started")
        #expect(try await x.xclipPaste().data == Data("copied before the manager ran".utf8))
    }

    @Test func xpbCopyOfASecretIsNotHandedOff() async throws {
        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        let copy = try await startCopy("hunter2", ["--sensitive"])
        kill(copy.pid, SIGINT)
        #expect(await copy.waitForExit(timeout: .seconds(6)) == 0, "\(copy.stderrText)")
        #expect(manager.saveRequests == 0)
        #expect(try await x.xclipPaste().status != 0, "the secret outlived xpb copy")
    }

    @Test func xpbCopyTerminatedWithoutAManagerExitsAtOnce() async throws {
        let copy = try await startCopy("nobody keeps this")
        let started = ContinuousClock.now
        kill(copy.pid, SIGTERM)
        #expect(await copy.waitForExit(timeout: .seconds(6)) == 0, "\(copy.stderrText)")
        // Well under the hand-off's 5 s: it did not wait for a manager that is not there.
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(try await x.xclipPaste().status != 0)
    }

    @Test func explicitHandOffReportsWhatHappened() async throws {
        // A second connection of this display, spelt differently, so it is not the suite's.
        let clipboard = try #require(Pasteboard(name: .general, create: true, displayName: "unix" + x.display))
        let primary = try #require(Pasteboard(name: .primary, create: true, displayName: "unix" + x.display))
        #expect(primary.handOffToClipboardManager() == .notOwner)
        clipboard.items = []
        #expect(clipboard.handOffToClipboardManager() == .notOwner)
        clipboard.string = "no manager yet"
        #expect(clipboard.handOffToClipboardManager() == .noManager)

        let manager = try FakeClipboardManager(display: x.display)
        defer { manager.stop() }
        clipboard.string = "explicit"
        #expect(await clipboard.async.handOffToClipboardManager() == .handedOff)
        #expect(manager.saveRequests == 1)
        // The manager took CLIPBOARD over with what it saved.
        #expect(clipboard.string == "explicit")
        #expect(try await x.xclipPaste().data == Data("explicit".utf8))

        clipboard.setItems([["public.utf8-plain-text": "pin", "org.nspasteboard.ConcealedType": Data()]])
        #expect(try await x.xclipTargets().contains("x-kde-passwordManagerHint"))
        #expect(clipboard.itemMetadata.first?.isSensitive == true)
        #expect(clipboard.handOffToClipboardManager() == .refusedSensitive)
        #expect(manager.saveRequests == 1)
        #expect(clipboard.string == nil, "a refused secret gives CLIPBOARD up")
    }
}

/// A clipboard manager the way GNOME's and KDE's work: owns CLIPBOARD_MANAGER; on SAVE_TARGETS
/// it converts each listed target of CLIPBOARD, answers, and takes CLIPBOARD over with the copy.
final class FakeClipboardManager: @unchecked Sendable {
    private struct State {
        var saveRequests = 0
        var savedTargets: [String] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    var saveRequests: Int { state.withLock { $0.saveRequests } }
    var savedTargets: [String] { state.withLock { $0.savedTargets } }

    init(display: String) throws {
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                try run(display: display, ready: ready)
            } catch {
                failure.withLock { $0 = "\(error)" }
                ready.signal()
            }
        }
        thread.start()
        ready.wait()
        if let message = failure.withLock({ $0 }) { throw TestSupportError("fake clipboard manager: \(message)") }
    }

    /// Ends the manager; its connection closes, so CLIPBOARD_MANAGER (and anything it took) has
    /// no owner afterwards.
    func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
    }

    private func run(display: String, ready: DispatchSemaphore) throws {
        let connection = try XConnection(displayName: display)
        let manager = connection.atom("CLIPBOARD_MANAGER")
        let clipboard = connection.atom("CLIPBOARD")
        let saveTargets = connection.atom("SAVE_TARGETS")
        let acquired = try connection.serverTime()
        connection.setOwner(of: manager, to: connection.window, time: acquired)
        connection.flush()
        guard connection.owner(of: manager) == connection.window else { throw TestSupportError("CLIPBOARD_MANAGER is taken") }
        ready.signal()
        var keeper: SelectionOwner?
        while !state.withLock({ $0.stopped }) {
            // Wakes every 50 ms to see whether the test is done with it.
            guard let event = try connection.nextEvent(before: .after(.milliseconds(50))) else { continue }
            guard case .selectionRequest(let request) = event, request.selection == manager else {
                connection.events.dispatch(event)
                continue
            }
            // Like Klipper: a request older than our ownership is refused (ICCCM §2.2).
            guard request.target == saveTargets, request.time == .current || !request.time.isBefore(acquired) else {
                connection.sendSelectionNotify(to: request.requestor, selection: manager, target: request.target, property: .none, time: request.time)
                connection.flush()
                continue
            }
            let targets: [UInt] = connection.withProperty(on: request.requestor, request.property, delete: false) { _, bytes in
                PropertyFormat.items32(from: bytes)
            } ?? []
            let reader = SelectionReader(connection: connection, timeout: .seconds(2))
            var entries: [SelectionContent.Entry] = []
            var names: [String] = []
            for target in targets.map(XAtom.init(rawValue:)) {
                guard let name = connection.name(of: target), let (type, bytes) = try? reader.read(clipboard, as: target) else { continue }
                names.append(name)
                entries.append(.init(target: name, value: ServedValue(bytes: bytes, type: connection.name(of: type) ?? name)))
            }
            state.withLock {
                $0.saveRequests += 1
                $0.savedTargets = names
            }
            connection.sendSelectionNotify(to: request.requestor, selection: manager, target: saveTargets, property: request.property, time: request.time)
            let owner = SelectionOwner(connection: connection, selection: clipboard, content: SelectionContent(entries: entries))
            try? owner.acquire()
            keeper = owner
            connection.flush()
        }
        _ = keeper
    }
}
