import Foundation
import Testing
@testable import X11Pasteboard
import XTestSupport

/// changeCount and the changes stream, from XFixes: copies by xclip, by this process, and an
/// owner that exits; and an idle watcher that costs no CPU.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ChangeWatcherTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture

    init() throws { x = try Self.fixture.get() }

    @Test func copiesByXclipAndByUsAreCountedAndStreamed() async throws {
        let clipboard = x.pasteboard(.general)
        var changes = clipboard.changes.makeAsyncIterator()
        let start = clipboard.changeCount

        let started = ContinuousClock.now
        let owner = try await x.xclipCopy(Data("x".utf8), on: clipboard)
        defer { owner.terminate() }
        let first = try #require(await next(&changes))
        let latency = ContinuousClock.now - started
        #expect(first.kind == .ownerChanged && first.name == .general && !first.isLocal)
        #expect(first.changeCount == start + 1 && clipboard.changeCount == start + 1)
        #expect(first.owner != .none && first.reason == .newOwner)
        #expect(first.serverTime != .current)
        // From spawning xclip to the event: process start, its copy, the notification.
        // A bound that only a polling watcher or a lost event misses, even on a loaded machine.
        #expect(latency < .seconds(3), "xclip copy to event took \(latency)")
        print("watcher latency, xclip spawn to changes event: \(latency)")

        clipboard.string = "ours"
        // Our own write is counted by the time the setter returns.
        #expect(clipboard.changeCount == start + 2)
        let second = try #require(await next(&changes))
        #expect(second.kind == .ownerChanged && second.isLocal && second.changeCount == start + 2)
        #expect(second.owner != first.owner)
        #expect(await owner.waitForExit(timeout: .seconds(5)) != nil, "xclip exits once it loses the selection")

        clipboard.items = []
        let third = try #require(await next(&changes))
        #expect(third.kind == .cleared && third.owner == .none && third.changeCount == start + 3)
        #expect(third.isLocal, "our own clear")
    }

    @Test func clearsAreLocalOnlyWhenThisProcessMadeThem() async throws {
        let secondary = x.pasteboard(.secondary)
        var changes = secondary.changes.makeAsyncIterator()
        let owner = try await x.xclipCopy(Data("theirs".utf8), selection: "secondary", on: secondary)
        _ = try #require(await next(&changes))
        secondary.items = []  // we clear xclip's selection
        let ours = try #require(await next(&changes))
        #expect(ours.kind == .cleared && ours.isLocal)
        #expect(await owner.waitForExit(timeout: .seconds(5)) != nil)

        secondary.string = "ours again"
        _ = try #require(await next(&changes))
        // Another client clears ours: not local.
        let other = try XConnection(displayName: x.display)
        try other.clear(XAtom.secondary)
        let theirs = try #require(await next(&changes))
        #expect(theirs.kind == .cleared && !theirs.isLocal)
    }

    @Test func anOwnerThatExitsIsReportedAsCleared() async throws {
        let primary = x.pasteboard(.primary)
        var changes = primary.changes.makeAsyncIterator()
        let owner = try await x.xclipCopy(Data("bye".utf8), selection: "primary", on: primary)
        let taken = try #require(await next(&changes))
        #expect(taken.kind == .ownerChanged)
        owner.terminate()
        let gone = try #require(await next(&changes))
        #expect(gone.kind == .cleared && gone.owner == .none)
        #expect(gone.reason == .ownerClientClosed || gone.reason == .ownerWindowDestroyed)
        #expect(gone.changeCount == taken.changeCount + 1)
        #expect(primary.string == nil)
    }

    @Test func everyStreamGetsEveryChangeAndCountsArePerPasteboard() async throws {
        let secondary = x.pasteboard(.secondary)
        let clipboard = x.pasteboard(.general)
        let clipboardBefore = clipboard.changeCount
        var one = secondary.changes.makeAsyncIterator()
        var two = secondary.changes.makeAsyncIterator()
        secondary.string = "1"
        secondary.string = "2"
        for iterator in [1, 2] {
            let a = try #require(await iterator == 1 ? next(&one) : next(&two))
            let b = try #require(await iterator == 1 ? next(&one) : next(&two))
            #expect(b.changeCount == a.changeCount + 1)
        }
        #expect(clipboard.changeCount == clipboardBefore)
        // A second Pasteboard object of the same selection shares its count.
        #expect(x.pasteboard(.secondary).changeCount == secondary.changeCount)
    }

    @Test func anIdleWatcherUsesNoCPU() async throws {
        // A display of its own: its engine thread does nothing but this watch, while other
        // tests keep this process (and their engines) busy.
        let idle = try XFixture()
        let watched = idle.pasteboard(.general)
        let stream = watched.changes
        let consumer = Task { for await _ in stream {} }
        defer { consumer.cancel() }
        watched.string = "watched and owned"  // it also serves, idle
        let thread = String("xpb \(idle.display)".utf8.prefix(15))!
        let before = try CPUTime.threadTicks(named: thread)
        #expect(before.threads == 1, "the engine thread is named \(thread)")
        try await Task.sleep(for: .seconds(3))
        let after = try CPUTime.threadTicks(named: thread)
        #expect(after.ticks - before.ticks == 0, "the engine thread used \(after.ticks - before.ticks) ticks in 3 s of idle")
        // The thread is really there and counting: a change is seen at once.
        let count = watched.changeCount
        let owner = try await idle.xclipCopy(Data("wake".utf8), on: watched)
        defer { owner.terminate() }
        #expect(watched.changeCount == count + 1)
    }
}
