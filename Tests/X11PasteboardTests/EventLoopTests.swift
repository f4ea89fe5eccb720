import Foundation
import Synchronization
import Testing
import UniformTypes
@testable import X11Pasteboard
import XTestSupport

/// One connection, many conversations: serving while reading from an owner that never
/// answers, several targets in one round trip, and a loop that fails instead of spinning.
@Suite(.serialized, .timeLimit(.minutes(2))) struct EventLoopTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture

    init() throws {
        x = try Self.fixture.get()
    }

    /// A client that takes `selection` and then reads no event at all: every request to it
    /// goes unanswered until it is closed.
    private func silentOwner(of selection: String) throws -> XConnection {
        let silent = try XConnection(displayName: x.display)
        let atom = silent.atom(selection)
        silent.setOwner(of: atom, to: silent.window, time: try silent.serverTime())
        #expect(silent.owner(of: atom) == silent.window)
        return silent
    }

    @Test func primaryIsServedWhileCLIPBOARDIsReadFromASilentOwner() async throws {
        let primary = x.pasteboard(.primary)
        primary.string = "served meanwhile"
        let silent = try silentOwner(of: "CLIPBOARD")
        defer { withExtendedLifetime(silent) {} }
        let clipboard = x.pasteboard(.general)
        // The engine waits up to 5 s for the silent owner's TARGETS.
        let readEnded = Atomic<Bool>(false)
        let reading = Task {
            defer { readEnded.store(true, ordering: .releasing) }
            return try await clipboard.async.string
        }
        try await Task.sleep(for: .milliseconds(100))
        // A requestor of its own, in this process: what is timed is the owner's answer alone.
        let requestor = try XConnection(displayName: x.display)
        let reader = SelectionReader(connection: requestor, timeout: .seconds(2))
        var latencies: [Duration] = []
        var duringTheRead = 0
        for _ in 0..<8 {
            let before = ContinuousClock.now
            let (_, bytes) = try reader.read(requestor.atom("PRIMARY"), as: requestor.atom("UTF8_STRING"))
            latencies.append(ContinuousClock.now - before)
            if !readEnded.load(ordering: .acquiring) { duringTheRead += 1 }
            #expect(bytes == Array("served meanwhile".utf8))
            try await Task.sleep(for: .milliseconds(50))
        }
        // Counted, not timed: a slow machine (a sanitizer) may take long over the eight, but the
        // first of them come while the read still waits.
        #expect(duringTheRead >= 4, "the pastes must happen while the read waits: \(duringTheRead) of 8 did")
        let sorted = latencies.sorted()
        print("PRIMARY pastes during a blocked read: median \(sorted[sorted.count / 2]), max \(sorted.last!)")
        // A loop blocked by the read would take 5 s.
        #expect(sorted[sorted.count / 2] < .milliseconds(100), "\(latencies)")
        #expect(sorted.last! < .seconds(1), "\(latencies)")
        await #expect(throws: PasteboardError.self) { try await reading.value }
    }

    @Test func aPasteboardCallDoesNotWaitBehindAnotherThatWaitsForAnOwner() async throws {
        let secondary = x.pasteboard(.secondary)
        let owner = try await x.xclipCopy(Data("quick".utf8), selection: "secondary", on: secondary)
        defer { owner.terminate() }
        let silent = try silentOwner(of: "CLIPBOARD")
        defer { withExtendedLifetime(silent) {} }
        let clipboard = x.pasteboard(.general)
        let slow = Task { try await clipboard.async.string }
        try await Task.sleep(for: .milliseconds(200))
        var started = ContinuousClock.now
        #expect(try await secondary.async.string == "quick")
        #expect(ContinuousClock.now - started < .seconds(2), "an async read waited for the silent owner")
        started = ContinuousClock.now
        #expect(secondary.string == "quick")
        #expect(secondary.types == ["public.utf8-plain-text"])
        #expect(ContinuousClock.now - started < .seconds(2), "a blocking read waited for the silent owner")
        await #expect(throws: PasteboardError.self) { try await slow.value }
    }

    @Test func severalTargetsInOneRoundTripThroughMULTIPLE() throws {
        let name = Pasteboard.Name("XPB_MULTIPLE_TEST")
        let owner = x.pasteboard(name)
        owner.setItems([[UTType.html.identifier: "<b>bold</b>", UTType.utf8PlainText.identifier: "bold"]])
        let connection = try XConnection(displayName: x.display)
        let reader = SelectionReader(connection: connection)
        let selection = connection.atom(name.rawValue)
        let offer = try reader.offer(of: selection)
        #expect(offer.supportsMultiple)
        let targets = connection.atoms(["text/html", "UTF8_STRING", "XPB_NOT_OFFERED", "STRING"])
        // The MULTIPLE conversation itself, so that a silent fall-back cannot pass for it.
        let multiple = MultipleRead(connection: connection, selection: selection, targets: targets, timeout: .seconds(5))
        multiple.start()
        try connection.events.pump(until: { multiple.isFinished }, deadline: .after(.seconds(5)))
        #expect(multiple.failure == nil, "the owner must answer MULTIPLE itself")
        #expect(multiple.results?.count == 4)
        let results = try reader.read(selection, targets: targets, viaMultiple: true)
        let bytes = results.map { try? $0.get().bytes }
        #expect(bytes[0] == Array("<b>bold</b>".utf8))
        #expect(bytes[1] == Array("bold".utf8))
        #expect(bytes[2] == nil, "a target the owner refuses fails alone")
        #expect(bytes[3] == Array("bold".utf8))

        // What MULTIPLE saves: one request instead of one per target.
        let rounds = 40
        let textTargets = connection.atoms(["text/html", "UTF8_STRING", "STRING", "text/plain", "TEXT"])
        func time(_ read: () throws -> Void) rethrows -> Duration {
            let start = ContinuousClock.now
            for _ in 0..<rounds { try read() }
            return (ContinuousClock.now - start) / rounds
        }
        let viaMultiple = try time { _ = try reader.read(selection, targets: textTargets, viaMultiple: true) }
        let sideBySide = try time { _ = try reader.read(selection, targets: textTargets, viaMultiple: false) }
        let oneByOne = try time { for target in textTargets { _ = try reader.read(selection, as: target) } }
        print("5 targets: MULTIPLE \(viaMultiple), side by side \(sideBySide), one at a time \(oneByOne)")
    }

    @Test func aMULTIPLEReadEndsOnlyWhenItsINCRPartHasArrived() throws {
        let name = Pasteboard.Name("XPB_MULTIPLE_INCR")
        let png = Array(repeating: UInt8(0x5A), count: 6 << 20)
        x.pasteboard(name).setItems([[UTType.html.identifier: "<i>small</i>", UTType.png.identifier: Data(png)]])
        let connection = try XConnection(displayName: x.display)
        let selection = connection.atom(name.rawValue)
        let multiple = MultipleRead(
            connection: connection, selection: selection, targets: connection.atoms(["text/html", "image/png"]), timeout: .seconds(5))
        var resultsWhenNotified: [Result<ConvertedValue, PasteboardError>]?
        var notified = false
        multiple.onFinish = {
            notified = true
            resultsWhenNotified = multiple.results
        }
        multiple.start()
        try connection.events.pump(until: { notified }, deadline: .after(.seconds(10)))
        let results = try #require(resultsWhenNotified, "notified before the INCR part had arrived")
        #expect((try? results[0].get().bytes) == Array("<i>small</i>".utf8))
        #expect((try? results[1].get().bytes.count) == png.count)
    }

    @Test func concurrentAppendsToAForeignOwnersContentAreAllKept() async throws {
        let secondary = x.pasteboard(.secondary)
        let owner = try await x.xclipCopy(Data("base".utf8), selection: "secondary", on: secondary)
        defer { owner.terminate() }
        async let first: Void = secondary.async.addItems([[UTType.utf8PlainText.identifier: "a"]])
        async let second: Void = secondary.async.addItems([[UTType.utf8PlainText.identifier: "b"]])
        _ = try await (first, second)
        let strings = try await secondary.async.strings ?? []
        #expect(strings.count == 3 && strings.first == "base" && Set(strings) == ["base", "a", "b"], "\(strings)")
    }

    @Test func aReadOnALostConnectionFailsAtOnce() throws {
        let server = try XvfbServer.start()
        let connection = try XConnection(displayName: server.displayName)
        server.stop()
        #expect(throws: PasteboardError.self) { try connection.events.pump(until: { false }, deadline: .after(.seconds(3))) }
        #expect(connection.isLost)
        let reader = SelectionReader(connection: connection)
        let started = ContinuousClock.now
        #expect(throws: PasteboardError.self) { try reader.read(connection.atom("PRIMARY"), as: connection.atom("UTF8_STRING")) }
        // Well under the read's 5 s timeout: it failed at once.
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func anOwnerWithoutMULTIPLEIsReadTargetByTarget() async throws {
        let owner = try await x.xclipCopy(Data("plain".utf8), selection: "secondary", on: x.pasteboard(.secondary))
        defer { owner.terminate() }
        let connection = try XConnection(displayName: x.display)
        let reader = SelectionReader(connection: connection)
        let selection = connection.atom("SECONDARY")
        let results = try reader.read(selection, targets: connection.atoms(["UTF8_STRING", "TARGETS"]), viaMultiple: true)
        #expect((try? results[0].get().bytes) == Array("plain".utf8))
        #expect((try? results[1].get()) != nil)
    }

    @Test func twoOwnersServeOneRequestorAtOnceThroughINCR() throws {
        let clipboard = x.pasteboard(.general)
        let primary = x.pasteboard(.primary)
        let small = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let large = Data((0..<(12 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        clipboard.setData(small, forPasteboardType: "application/octet-stream")
        primary.setData(large, forPasteboardType: "application/octet-stream")
        let connection = try XConnection(displayName: x.display)
        let target = connection.atom("application/octet-stream")
        var received = [Data(), Data()]
        // Both transfers go to one window: when the first ends, the second must go on.
        let reads = [connection.atom("CLIPBOARD"), connection.atom("PRIMARY")].enumerated().map { index, selection in
            SelectionRead(connection: connection, selection: selection, target: target, timeout: .seconds(5)) {
                received[index].append(contentsOf: $0)
            }
        }
        reads.forEach { $0.start() }
        try connection.events.pump(until: { reads.allSatisfy(\.isFinished) }, deadline: .after(.seconds(20)))
        for read in reads { #expect(throws: Never.self) { try read.result?.get() } }
        #expect(received[0] == small)
        #expect(received[1] == large)
    }

    @Test func anInvalidDescriptorFailsTheLoopInsteadOfSpinning() throws {
        let connection = try XConnection(displayName: x.display)
        // Far above anything open: poll reports POLLNVAL for it at once, every time.
        connection.wakeDescriptor = 999_999
        let start = ContinuousClock.now
        #expect(throws: PasteboardError.self) {
            try connection.events.pump(until: { false }, deadline: .after(.seconds(3)))
        }
        // Before the 3 s deadline: the loop failed, it did not spin until then.
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func aLateAnswerIsCountedNotTakenForTheNextOne() throws {
        let silent = try silentOwner(of: "XPB_LATE")
        let connection = try XConnection(displayName: x.display)
        let reader = SelectionReader(connection: connection, timeout: .milliseconds(200))
        let selection = connection.atom("XPB_LATE")
        #expect(throws: PasteboardError.self) { try reader.read(selection, as: connection.atom("UTF8_STRING")) }
        // The silent owner wakes up and answers the abandoned conversion; nobody claims it.
        let before = connection.events.unclaimedEventCount
        silent.sendSelectionNotify(
            to: connection.window, selection: selection, target: connection.atom("UTF8_STRING"),
            property: connection.atom(ConversionProperties.name(0)), time: .current)
        silent.flush()
        let deadline = ContinuousClock.now.advanced(by: .seconds(2))
        while connection.events.unclaimedEventCount == before, ContinuousClock.now < deadline {
            try connection.events.dispatchReceived(roundTrip: true)
            usleep(10_000)
        }
        #expect(connection.events.unclaimedEventCount > before)
    }
}
