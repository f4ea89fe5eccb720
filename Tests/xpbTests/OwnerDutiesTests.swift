import Foundation
import Testing
import XTestSupport

/// What an owner owes requestors while INCR transfers run (ICCCM §2.2, §2.7.2): several at once,
/// one that vanishes costs only its own, and one in flight finishes after ownership moves on.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct OwnerDutiesTests {
    /// 8 MiB: above the single-property limit, so every transfer is INCR.
    static let payload = Samples.random(count: 8 << 20)

    private func fnv(_ data: Data) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in data { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash, radix: 16)
    }

    @Test("three readers at once each get every byte")
    func concurrentReaders() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-t", "application/octet-stream"], stdin: .bytes(Self.payload)))
        async let first = x.xclip(["-selection", "clipboard", "-o", "-t", "application/octet-stream"])
        async let second = x.xpb(["paste", "-t", "application/octet-stream"])
        async let third = x.xclip(["-selection", "clipboard", "-o", "-t", "application/octet-stream"])
        for result in try await [first, second, third] { expectOutput(result, Self.payload) }
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("a requestor that vanishes mid-INCR costs only its own transfer")
    func vanishingRequestor() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-t", "application/octet-stream"], stdin: .bytes(Self.payload)))
        let abandoned = try await x.probe(["incr", "CLIPBOARD", "application/octet-stream", "abandon"])
        #expect(abandoned.stdoutText == "abandoned\n", "\(abandoned)")
        // The next reader is served at once, not after the abandoned transfer's 5 s timeout.
        let next = try await x.xclip(["-selection", "clipboard", "-o", "-t", "application/octet-stream"], timeout: .seconds(3))
        expectOutput(next, Self.payload)
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("a transfer in flight finishes after another client takes the selection")
    func transferOutlivesOwnership() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-t", "application/octet-stream"], stdin: .bytes(Self.payload)))
        let owner = try await x.owner("CLIPBOARD")
        let stolen = try await x.probe(["incr", "CLIPBOARD", "application/octet-stream", "steal"])
        #expect(stolen.stdoutText == "received \(Self.payload.count) fnv \(fnv(Self.payload))\n", "\(stolen)")
        #expect(try await x.owner("CLIPBOARD") != owner, "the probe's steal should have taken CLIPBOARD")
    }

    @Test("a requestor that reuses its property mid-INCR gets the new conversion, and no stale chunk")
    func reusedProperty() async throws {
        let x = try XSession.require()
        let big = try x.file("big.bin", Self.payload)
        let small = try x.file("small.txt", Data("small answer".utf8))
        expectSuccess(try await x.xpb(["copy", "-t", "application/octet-stream=\(big.path)", "-t", "text/plain=\(small.path)"]))
        let reuse = try await x.probe(["reuse", "CLIPBOARD", "application/octet-stream", "UTF8_STRING"])
        let hex = Data("small answer".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(reuse.stdoutText == "small \(hex)\nafter absent\n", "\(reuse)")
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("an owner whose --expire passed while a requestor stalls waits without spinning")
    func expiryDuringAStalledTransfer() async throws {
        let x = try XSession.require()
        let owner = try x.spawn(x.xpbPath, ["copy", "--foreground", "--expire", "2", "-t", "application/octet-stream"], stdin: .bytes(Self.payload))
        guard try await x.waitForNewOwner("CLIPBOARD", previous: 0) != nil else {
            Issue.record("xpb copy --foreground never owned CLIPBOARD: \(await x.stop(owner))")
            return
        }
        let pid = try #require(owner.commandPIDs(named: "xpb").first, "the xpb owner process")
        let stall = try x.spawn(x.probePath, ["incr", "CLIPBOARD", "application/octet-stream", "stall"])
        // Long enough an expiry for a loaded machine to see the owner first.
        try await Task.sleep(for: .milliseconds(2300))  // expired, one transfer still waiting
        let before = try CPUTime.processTicks(of: pid)
        try await Task.sleep(for: .seconds(1))
        let after = try CPUTime.processTicks(of: pid)
        #expect(after - before <= 10, "the owner used \(after - before) ticks of CPU in 1 s while waiting")
        await x.stop(stall)
        await x.stop(owner)
    }
}
