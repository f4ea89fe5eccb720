import Foundation
import Glibc
import Testing
import X11Pasteboard
import XTestSupport

/// `xpb sync` and `xpb bridge` between selections, between two and three real X servers, and
/// over a real sshd: what arrives, byte for byte, and how many changes each side sees.
@Suite(.xServer, .serialized, .timeLimit(.minutes(3)))
struct SyncBridgeTests {
    static let html = Data("<p>Grüße <b>bold</b></p>".utf8)
    static let text = Data("Grüße bold".utf8)
    /// 6 MiB that is no text (xorshift, eight bytes a step: quick even in a debug build).
    static let binary: Data = {
        var state = UInt64.random(in: 1...UInt64.max)
        var words = [UInt64](repeating: 0, count: (6 << 20) / 8)
        for index in words.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            words[index] = state
        }
        return words.withUnsafeBytes { Data($0) }
    }()

    // MARK: Between selections

    @Test("sync --from primary --to clipboard --two-way: text, HTML+text and 6 MiB both ways, one change per copy")
    func selectionsBothWays() async throws {
        let x = try XSession.require()
        let sync = try x.spawn(x.xpbPath, ["sync", "--from", "primary", "--to", "clipboard", "--two-way"])
        try await x.copy(on: x.display, ["-p"], Data("warm-up".utf8))
        try await x.expectArrives(on: x.display, ["-b"], Data("warm-up".utf8), "warm-up")

        let watch = try x.spawn(x.xpbPath, ["watch", "-b", "-p"])
        await watch.waitUntilIdle()
        try await x.copy(on: x.display, ["-p"], Data("one copy".utf8))
        try await x.expectArrives(on: x.display, ["-b"], Data("one copy".utf8), "PRIMARY to CLIPBOARD")
        try await Task.sleep(for: .milliseconds(500))
        let lines = watch.stdoutText.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("PRIMARY ") }.count == 1, "no echo back to PRIMARY: \(lines)")
        #expect(lines.filter { $0.hasPrefix("CLIPBOARD ") }.count == 1, "one change of CLIPBOARD: \(lines)")
        await x.stop(watch)

        try await x.copyHTML(on: x.display, ["-b"])
        try await x.expectArrives(on: x.display, ["-p", "-t", "text/html"], Self.html, "HTML, CLIPBOARD to PRIMARY")
        try await x.expectArrives(on: x.display, ["-p"], Self.text, "its text")

        let file = try x.file("six.bin", Self.binary)
        try await x.copy(on: x.display, ["-p", file.path], nil)
        try await x.expectArrives(on: x.display, ["-b"], Self.binary, "6 MiB, PRIMARY to CLIPBOARD")
        try await x.copy(on: x.display, ["-p", "--sensitive"], Data("hunter2".utf8))
        try await Task.sleep(for: .milliseconds(500))
        let kept = try await x.xpb(["paste", "-b"])
        #expect(kept.stdout == Self.binary, "a secret is never mirrored (\(kept.stdout.count) bytes)")
        let result = await x.stop(sync)
        #expect(result.stderr.isEmpty, "\(result)")
    }

    @Test("a drag (20 PRIMARY owners in 300 ms) is at most 3 CLIPBOARD changes, the last one right")
    func dragIsCoalesced() async throws {
        let x = try XSession.require()
        let sync = try x.spawn(x.xpbPath, ["sync", "--from", "primary", "--to", "clipboard"])
        try await x.copy(on: x.display, ["-p"], Data("before the drag".utf8))
        try await x.expectArrives(on: x.display, ["-b"], Data("before the drag".utf8), "warm-up")
        let watch = try x.spawn(x.xpbPath, ["watch", "-b"])
        await watch.waitUntilIdle()
        let drag = try await x.probe(["drag", "PRIMARY", "20", "15", "2"])
        #expect(drag.stdoutText == "dragged 20\n", "\(drag)")
        // The probe served the last step for 2 s: the sync had the time to read it.
        try await x.expectArrives(on: x.display, ["-b"], Data("drag step 20".utf8), "the last step")
        let changes = watch.stdoutText.split(separator: "\n")
        #expect((1...3).contains(changes.count), "CLIPBOARD changes: \(changes)")
        await x.stop(watch)
        await x.stop(sync)
    }

    // MARK: Between displays

    @Test("sync --to-display: text, HTML+text and 6 MiB both ways, one change per copy, secrets stay")
    func displaysBothWays() async throws {
        let x = try XSession.require()
        let other = try XvfbServer.start()
        defer { other.stop() }
        let a = x.display, b = other.displayName
        let sync = try x.spawn(x.xpbPath, ["sync", "--display", a, "--to-display", b])
        try await x.exercise(a, b, "sync")
        let result = await x.stop(sync)
        #expect(result.stderr.isEmpty, "\(result)")
    }

    @Test("bridge over a pipe: text, HTML+text and 6 MiB both ways, one change per copy, secrets stay")
    func bridgeOverAPipe() async throws {
        let x = try XSession.require()
        let other = try XvfbServer.start()
        defer { other.stop() }
        let a = x.display, b = other.displayName
        let bridge = try x.bridgePair(a, b)
        try await x.exercise(a, b, "bridge")
        let result = await x.stop(bridge)
        #expect(!result.stderr.contains("xpb:"), "\(result)")
    }

    @Test("bridge: 6 MiB is announced at once, and its bytes cross the stream only when pasted")
    func largeContentCrossesOnPaste() async throws {
        let x = try XSession.require()
        let other = try XvfbServer.start()
        defer { other.stop() }
        let a = x.display, b = other.displayName
        let wire = try x.file("wire", Data())
        let bridge = try x.bridgePair(a, b, tee: wire.path)
        try await x.warmUp(from: a, to: b, "bridge")
        let file = try x.file("six.bin", SyncBridgeTests.binary)
        try await x.copy(on: a, [file.path], nil)
        let deadline = ContinuousClock.now + .seconds(10)
        while !(try await x.xpb(["types", "--display", b])).stdoutText.contains("application/octet-stream") {
            try #require(ContinuousClock.now < deadline, "the offer did not arrive")
            try await Task.sleep(for: .milliseconds(50))
        }
        let announced = try FileManager.default.attributesOfItem(atPath: wire.path)[.size] as? Int ?? -1
        #expect(announced < 1 << 20, "only the announcement crossed: \(announced) bytes")
        try await x.expectArrives(on: b, [], SyncBridgeTests.binary, "6 MiB on paste")
        let pasted = try FileManager.default.attributesOfItem(atPath: wire.path)[.size] as? Int ?? -1
        #expect(pasted > 6 << 20, "the bytes crossed when pasted: \(pasted) bytes")
        await x.stop(bridge)
    }

    @Test("while a large paste waits for the far side, the bridge answers every other request")
    func aWaitingPasteHoldsUpNothingElse() async throws {
        let x = try XSession.require()
        let directory = try x.file("placeholder", Data()).deletingLastPathComponent()
        let input = directory.appendingPathComponent("in").path
        let output = directory.appendingPathComponent("out").path
        try #require(mkfifo(input, 0o600) == 0)
        let before = try await x.owner("CLIPBOARD")
        let bridge = try x.spawn("/bin/sh", ["-c", "exec \(Command.shellQuoted(x.xpbPath)) bridge < \(input) > \(output)"])
        // The far side, played by the test: opening blocks until the bridge opens its end.
        let farSide = try #require(FileHandle(forWritingAtPath: input))
        let offer = BridgeOffer(origin: 42, generation: 1, selection: "CLIPBOARD", items: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 5, bytes: Array("small".utf8)),
            .init(target: "application/octet-stream", type: "application/octet-stream", format: 8, size: 2 << 20, bytes: nil),
        ])
        farSide.write(Data(BridgeFrame.hello(version: BridgeFrame.version, origin: 42).encoded() + BridgeFrame.offer(offer).encoded()))
        try #require(try await x.waitForNewOwner("CLIPBOARD", previous: before) != nil, "the bridge took CLIPBOARD")

        let large = try x.spawn(x.xpbPath, ["paste", "-t", "application/octet-stream", "--timeout", "20"])
        // The request has gone out once the bridge wrote more than its hello.
        let hello = BridgeFrame.hello(version: 1, origin: 0).encoded().count
        let deadline = ContinuousClock.now + .seconds(10)
        while ((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0) <= hello {
            try #require(ContinuousClock.now < deadline, "no request came")
            try await Task.sleep(for: .milliseconds(20))
        }
        // The large paste is waiting for the network: the text must still come at once (a
        // bridge that waited with its loop blocked would leave this paste 5 s without progress).
        expectOutput(try await x.xpb(["paste", "--timeout", "2"]), Data("small".utf8))

        let blob = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7) })
        farSide.write(Data(BridgeFrame.data(origin: 42, generation: 1, selection: "CLIPBOARD", target: "application/octet-stream", bytes: Array(blob)).encoded()))
        #expect(await large.waitForExit(timeout: .seconds(10)))
        let result = large.result()
        #expect(result.status == 0, "\(result)")
        expectBytes(result.stdout, blob, "the large paste, once its bytes came")
        try farSide.close()
        #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
        #expect(bridge.result().status == 0, "\(bridge.result())")
    }

    @Test("96 MiB of data frames nobody asked for are dropped, not kept")
    func unrequestedDataIsDropped() async throws {
        let x = try XSession.require()
        let (bridge, farSide, _) = try await x.bridgeWithScriptedFarSide()
        let chunk = [UInt8](repeating: 0xA5, count: 6 << 20)
        for index in 0..<16 {
            farSide.write(Data(BridgeFrame.data(origin: 42, generation: UInt64(index), selection: "CLIPBOARD", target: "junk\(index)", bytes: chunk).encoded()))
        }
        // Frames are handled in order: once this offer is served, every data frame was taken.
        let before = try await x.owner("CLIPBOARD")
        let offer = BridgeOffer(origin: 42, generation: 100, selection: "CLIPBOARD", items: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 4, bytes: Array("done".utf8)),
        ])
        farSide.write(Data(BridgeFrame.offer(offer).encoded()))
        try #require(try await x.waitForNewOwner("CLIPBOARD", previous: before) != nil, "the bridge took CLIPBOARD")
        try await x.expectArrives(on: x.display, [], Data("done".utf8), "the offer after the junk")
        let status = try String(contentsOfFile: "/proc/\(bridge.pid)/status", encoding: .utf8)
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
        #expect(rss > 0 && rss < 64 << 10, "the bridge holds \(rss) KiB after 96 MiB of unrequested data")
        try farSide.close()
        #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
    }

    @Test("while a paste waits for the far side, the far side's next copy is taken at once")
    func anOfferDuringAWaitingPasteIsTaken() async throws {
        let x = try XSession.require()
        let before = try await x.owner("CLIPBOARD")
        let (bridge, farSide, output) = try await x.bridgeWithScriptedFarSide()
        let offer = BridgeOffer(origin: 42, generation: 1, selection: "CLIPBOARD", items: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 5, bytes: Array("small".utf8)),
            .init(target: "application/octet-stream", type: "application/octet-stream", format: 8, size: 4096, bytes: nil),
        ])
        farSide.write(Data(BridgeFrame.offer(offer).encoded()))
        try #require(try await x.waitForNewOwner("CLIPBOARD", previous: before) != nil, "the bridge took CLIPBOARD")
        let large = try x.spawn(x.xpbPath, ["paste", "-t", "application/octet-stream", "--timeout", "20"])
        let hello = BridgeFrame.hello(version: BridgeFrame.version, origin: 0).encoded().count
        let deadline = ContinuousClock.now + .seconds(10)
        while ((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0) <= hello {
            try #require(ContinuousClock.now < deadline, "no request came")
            try await Task.sleep(for: .milliseconds(20))
        }
        // The paste waits for the network; the far side's user copies again meanwhile.
        let newer = BridgeOffer(origin: 42, generation: 2, selection: "CLIPBOARD", items: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 5, bytes: Array("newer".utf8)),
        ])
        farSide.write(Data(BridgeFrame.offer(newer).encoded()))
        // Within 3 s: a bridge that left its inbox alone until the paste gave up would take 5.
        try await x.expectArrives(on: x.display, ["--timeout", "1"], Data("newer".utf8), "the newer copy", timeout: .seconds(3))
        let blob = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) })
        farSide.write(Data(BridgeFrame.data(origin: 42, generation: 1, selection: "CLIPBOARD", target: "application/octet-stream", bytes: Array(blob)).encoded()))
        #expect(await large.waitForExit(timeout: .seconds(10)))
        expectBytes(large.result().stdout, blob, "the paste that was waiting still gets its bytes")
        try farSide.close()
        #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
    }

    @Test("content carrying an old _XPB_BRIDGE_ORIGIN marker, served by a window that is no bridge's, is a new copy")
    func aStaleOriginMarkerIsNotTrusted() async throws {
        let x = try XSession.require()
        let (bridge, farSide, output) = try await x.bridgeWithScriptedFarSide()
        try await Task.sleep(for: .milliseconds(300))
        // What `xpb history restore` of an entry that once came over the bridge serves: the
        // marker names the far side (origin 42 = 0x2a), as version 1 wrote it (no window), or
        // with a window that is not the owner.
        for (index, markerText) in ["2a 1", "2a 2 1"].enumerated() {
            let words = "restored \(index)"
            let marker = try x.file("marker", Data(markerText.utf8))
            let text = try x.file("text", Data(words.utf8))
            try await x.copy(on: x.display, ["-t", "public.utf8-plain-text=\(text.path)", "-t", "_XPB_BRIDGE_ORIGIN=\(marker.path)"], nil)
            let sent = try await x.waitForOffer(of: words, in: output)
            let offer = try #require(sent, "the bridge sent the restored content (marker \(markerText))")
            #expect(offer.origin != 42, "marker \(markerText): sent as this side's copy, not under the far side's name (which it drops)")
        }
        try farSide.close()
        #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
    }

    @Test("copies on both sides at once: both bridges keep the same one, that of the higher origin id")
    func crossingCopiesConverge() async throws {
        let x = try XSession.require()
        // The far side's id is 42 (lower than the bridge's, almost surely), then 2^64 - 1 (higher).
        for (farOrigin, bridgeWins) in [(UInt64(42), true), (UInt64.max, false)] {
            let (bridge, farSide, output) = try await x.bridgeWithScriptedFarSide(origin: farOrigin)
            try await Task.sleep(for: .milliseconds(300))
            let local = "local \(farOrigin)"
            try await x.copy(on: x.display, [], Data(local.utf8))
            let sent = try #require(try await x.waitForOffer(of: local, in: output), "the bridge sent its copy")
            #expect(sent.seen == 0)
            // The far side copied too before our offer reached it: its offer saw nothing of ours.
            let remote = "remote \(farOrigin)"
            let crossing = BridgeOffer(origin: farOrigin, generation: 1, seen: 0, selection: "CLIPBOARD", items: [
                .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: UInt64(remote.utf8.count), bytes: Array(remote.utf8)),
            ])
            farSide.write(Data(BridgeFrame.offer(crossing).encoded()))
            if bridgeWins {
                // Nothing to wait for but time: the far side keeps ours, so must this side.
                try await Task.sleep(for: .milliseconds(700))
                expectOutput(try await x.xpb(["paste"]), Data(local.utf8))
            } else {
                try await x.expectArrives(on: x.display, [], Data(remote.utf8), "the far side's copy wins")
            }
            // A copy from afar that saw ours is newer: taken whatever the ids.
            let later = "later \(farOrigin)"
            let after = BridgeOffer(origin: farOrigin, generation: 2, seen: 1, selection: "CLIPBOARD", items: [
                .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: UInt64(later.utf8.count), bytes: Array(later.utf8)),
            ])
            farSide.write(Data(BridgeFrame.offer(after).encoded()))
            try await x.expectArrives(on: x.display, [], Data(later.utf8), "a later copy from afar")
            try farSide.close()
            #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
        }
    }

    @Test("two copies from afar with the same generation but different origins are told apart")
    func requestsNameTheOrigin() async throws {
        let x = try XSession.require()
        let before = try await x.owner("CLIPBOARD")
        let (bridge, farSide, output) = try await x.bridgeWithScriptedFarSide()
        // Generation 1 of origin 42, then generation 1 of origin 43 (forwarded from a third bridge).
        for origin in [UInt64(42), 43] {
            let offer = BridgeOffer(origin: origin, generation: 1, selection: "CLIPBOARD", items: [
                .init(target: "application/octet-stream", type: "application/octet-stream", format: 8, size: 5, bytes: nil),
            ])
            farSide.write(Data(BridgeFrame.offer(offer).encoded()))
        }
        try #require(try await x.waitForNewOwner("CLIPBOARD", previous: before) != nil, "the bridge took CLIPBOARD")
        try await Task.sleep(for: .milliseconds(300))
        let paste = try x.spawn(x.xpbPath, ["paste", "-t", "application/octet-stream", "--timeout", "20"])
        let deadline = ContinuousClock.now + .seconds(10)
        var request: BridgeFrame?
        while request == nil {
            try #require(ContinuousClock.now < deadline, "no request came")
            try await Task.sleep(for: .milliseconds(20))
            request = x.framesSent(to: output).first { if case .request = $0 { true } else { false } }
        }
        #expect(request == .request(origin: 43, generation: 1, selection: "CLIPBOARD", target: "application/octet-stream"))
        // A late answer about the older copy must not be taken for the newer one's.
        for (origin, text) in [(UInt64(42), "older"), (43, "newer")] {
            farSide.write(Data(BridgeFrame.data(
                origin: origin, generation: 1, selection: "CLIPBOARD", target: "application/octet-stream", bytes: Array(text.utf8)).encoded()))
            // Time for the paste to take the wrong answer, were it to.
            if origin == 42 { try await Task.sleep(for: .milliseconds(300)) }
        }
        #expect(await paste.waitForExit(timeout: .seconds(10)))
        expectBytes(paste.result().stdout, Data("newer".utf8), "the paste of the newer copy")
        try farSide.close()
        #expect(await bridge.waitForExit(timeout: .seconds(5)), "end of the stream ends the bridge")
    }

    @Test("SIGTERM: bridge and sync hand the CLIPBOARD they serve to the clipboard manager, exit 0")
    func stoppingHandsOffToTheManager() async throws {
        let x = try XSession.require()
        try await DaemonTests.withDaemon(x) { daemon in
            let before = try await x.owner("CLIPBOARD")
            let (bridge, farSide, _) = try await x.bridgeWithScriptedFarSide()
            let offer = BridgeOffer(origin: 42, generation: 1, selection: "CLIPBOARD", items: [
                .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 9, bytes: Array("from afar".utf8)),
            ])
            farSide.write(Data(BridgeFrame.offer(offer).encoded()))
            try #require(try await x.waitForNewOwner("CLIPBOARD", previous: before) != nil, "the bridge took CLIPBOARD")
            try #require(await daemon.waitForLog("kept CLIPBOARD", count: 1, timeout: .seconds(10)), "\(daemon.log)")
            let stopped = await x.stop(bridge)
            #expect(stopped.status == 0 && !stopped.signaled, "\(stopped)")
            #expect(await daemon.waitForLog("saved CLIPBOARD for", count: 1, timeout: .seconds(10)), "SAVE_TARGETS from the bridge: \(daemon.log)")
            try await x.expectArrives(on: x.display, [], Data("from afar".utf8), "kept by the manager")
            try? farSide.close()

            let sync = try x.spawn(x.xpbPath, ["sync", "--from", "primary", "--to", "clipboard"])
            try await Task.sleep(for: .milliseconds(300))
            try await x.copy(on: x.display, ["-p"], Data("from PRIMARY".utf8))
            try await x.expectArrives(on: x.display, [], Data("from PRIMARY".utf8), "PRIMARY to CLIPBOARD")
            try #require(await daemon.waitForLog("kept CLIPBOARD", count: 2, timeout: .seconds(10)), "\(daemon.log)")
            let ended = await x.stop(sync)
            #expect(ended.status == 0 && !ended.signaled, "\(ended)")
            #expect(await daemon.waitForLog("saved CLIPBOARD for", count: 2, timeout: .seconds(10)), "SAVE_TARGETS from sync: \(daemon.log)")
        }
    }

    @Test("bridge --send-only on one side, --receive-only on the other: one way only")
    func oneWayBridge() async throws {
        let x = try XSession.require()
        let other = try XvfbServer.start()
        defer { other.stop() }
        let a = x.display, b = other.displayName
        let bridge = try x.bridgePair(a, b, left: ["--send-only"], right: ["--receive-only"])
        try await x.warmUp(from: a, to: b, "one-way bridge")
        try await x.copy(on: a, [], Data("A to B".utf8))
        try await x.expectArrives(on: b, [], Data("A to B".utf8), "A to B")
        try await x.copy(on: b, [], Data("stays on B".utf8))
        try await Task.sleep(for: .milliseconds(500))
        let onA = try await x.xpb(["paste", "--display", a])
        #expect(onA.stdout == Data("A to B".utf8), "nothing came back from B: \(onA)")
        await x.stop(bridge)
    }

    @Test("a chain of three displays (sync A-B, bridge B-C) converges both ways without echo")
    func chainOfThree() async throws {
        let x = try XSession.require()
        let second = try XvfbServer.start()
        defer { second.stop() }
        let third = try XvfbServer.start()
        defer { third.stop() }
        let a = x.display, b = second.displayName, c = third.displayName
        let sync = try x.spawn(x.xpbPath, ["sync", "--display", a, "--to-display", b])
        let bridge = try x.bridgePair(b, c)
        try await x.warmUp(from: a, to: c, "chain")

        let watches = try [a, b, c].map { try x.spawn(x.xpbPath, ["watch", "--display", $0]) }
        for watch in watches { await watch.waitUntilIdle() }
        try await x.copy(on: a, [], Data("from A".utf8))
        try await x.expectArrives(on: c, [], Data("from A".utf8), "A to C")
        try await x.copyHTML(on: c, [])
        try await x.expectArrives(on: a, ["-t", "text/html"], SyncBridgeTests.html, "C to A")
        try await Task.sleep(for: .milliseconds(700))
        for (watch, name) in zip(watches, ["A", "B", "C"]) {
            let lines = watch.stdoutText.split(separator: "\n")
            #expect(lines.count == 2, "two copies are two changes on \(name), no echo: \(lines)")
            await x.stop(watch)
        }
        await x.stop(bridge)
        await x.stop(sync)
    }

    // MARK: Hostile streams

    @Test("garbage, truncation, a 2^60 size, an unknown version: one xpb: bridge: line, exit 1, clipboard untouched")
    func hostileStreams() async throws {
        let x = try XSession.require()
        var hello: [UInt8] = [1] + bigEndian(UInt64(20)) + Array("XPB-BRIDGE".utf8) + [0, UInt8(BridgeFrame.version)] + bigEndian(UInt64(7))
        let offerHeader: [UInt8] = [2] + bigEndian(UInt64(1000))
        let cases: [(String, [UInt8], String)] = [
            ("garbage", Array("SSH-2.0-OpenSSH greeting, not a bridge\r\n".utf8), "unknown frame kind"),
            ("a truncated frame", hello + offerHeader + [0, 0, 0], "ended inside a frame"),
            ("a size of 2^60", hello + [4] + bigEndian(UInt64(1) << 60), "1152921504606846976 bytes"),
            ("a truncated header", hello + [2, 0, 0], "inside a frame header"),
            ("a bye before any hello", [5] + bigEndian(UInt64(0)), "did not start with a hello"),
        ]
        hello[20] = 99  // version 99
        let all = cases + [("an unknown version", hello, "version 99")]
        for (what, stream, message) in all {
            let result = try await x.xpb(["bridge"], stdin: .bytes(Data(stream)), timeout: .seconds(10))
            #expect(result.status == 1 && !result.timedOut && !result.signaled, "\(what): \(result)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("xpb: bridge: ") && result.stderr.contains(message), "\(what): \(result)")
        }
        #expect(try await x.owner("CLIPBOARD") == 0, "the clipboard is untouched")
        let eof = try await x.xpb(["bridge"], stdin: .none, timeout: .seconds(10))
        #expect(eof.status == 0 && eof.stderr.isEmpty, "EOF ends the bridge quietly: \(eof)")
    }

    @Test("--max-size beyond 4 GiB is refused up front; a 2^63 header is refused, not a crash")
    func maxSizeIsCapped() async throws {
        let x = try XSession.require()
        let huge = try await x.xpb(["bridge", "--max-size", "9223372036854775807"], stdin: .none, timeout: .seconds(10))
        #expect(huge.status != 0 && !huge.signaled && huge.stderr.contains("--max-size is at most 4294967296"), "\(huge)")
        let hello: [UInt8] = [1] + bigEndian(UInt64(20)) + Array("XPB-BRIDGE".utf8) + [0, UInt8(BridgeFrame.version)] + bigEndian(UInt64(7))
        let header: [UInt8] = [1, 0x80, 0, 0, 0, 0, 0, 0, 0]
        let result = try await x.xpb(["bridge", "--max-size", "4294967296"], stdin: .bytes(Data(hello + header)), timeout: .seconds(10))
        #expect(result.status == 1 && !result.signaled && result.stderr.hasPrefix("xpb: bridge: a frame of 9223372036854775808 bytes"), "\(result)")
    }

    // MARK: ssh

    @Test("bridge --ssh to an ssh that fails at once: exit 1 and its xpb: line, every time")
    func failingSSHIsAnError() async throws {
        let x = try XSession.require()
        // An `ssh` that exits 1 without reading: the bridge's hello meets a closed pipe.
        let directory = try x.file("placeholder", Data()).deletingLastPathComponent().appendingPathComponent("fake-ssh")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("ssh").path, withDestinationPath: "/bin/false")
        for attempt in 1...5 {
            let result = try await x.run("/usr/bin/env", ["PATH=\(directory.path):/usr/bin:/bin", x.xpbPath, "bridge", "--ssh", "nowhere.invalid"], timeout: .seconds(15))
            #expect(result.status == 1 && result.stderr.hasPrefix("xpb: bridge: ssh nowhere.invalid ended before xpb bridge answered"), "attempt \(attempt): \(result)")
        }
    }

    @Test("bridge --ssh through a real sshd on 127.0.0.1: both ways, 6 MiB on paste")
    func bridgeOverSSH() async throws {
        let x = try XSession.require()
        let sshd = try SSHServer.start(session: x)
        let other = try XvfbServer.start()
        defer { other.stop() }
        let a = x.display, b = other.displayName
        let bridge = try x.spawn(x.xpbPath, [
            "bridge", "--display", a, "--ssh", "127.0.0.1", "--remote-display", b, "--",
        ] + sshd.clientOptions)
        try await x.warmUp(from: a, to: b, "ssh")
        try await x.copy(on: a, [], Data("over ssh".utf8))
        try await x.expectArrives(on: b, [], Data("over ssh".utf8), "A to B through ssh", bridge: bridge)
        try await x.copyHTML(on: b, [])
        try await x.expectArrives(on: a, ["-t", "text/html"], SyncBridgeTests.html, "B to A through ssh")
        let file = try x.file("six.bin", SyncBridgeTests.binary)
        try await x.copy(on: b, [file.path], nil)
        try await x.expectArrives(on: a, [], SyncBridgeTests.binary, "6 MiB B to A through ssh")
        await x.stop(bridge)
        await sshd.stop(x)
    }
}

private func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
}

extension XSession {
    /// `xpb copy` on `display` with `arguments`, the data on stdin (nil: a file is named).
    func copy(on display: String, _ arguments: [String], _ data: Data?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await xpb(["copy", "--display", display] + arguments, stdin: data.map { .pipe($0) } ?? .none)
        expectSuccess(result, sourceLocation: sourceLocation)
    }

    /// Copies HTML with its text on `display`.
    func copyHTML(on display: String, _ arguments: [String]) async throws {
        let html = try file("a.html", SyncBridgeTests.html)
        let text = try file("a.txt", SyncBridgeTests.text)
        try await copy(on: display, arguments + ["-t", "public.html=\(html.path)", "-t", "public.utf8-plain-text=\(text.path)"], nil)
    }

    /// Waits until `xpb paste` on `display` gives `expected`.
    func expectArrives(
        on display: String, _ arguments: [String], _ expected: Data, _ what: String, bridge: Spawned? = nil,
        recording: Bool = true, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        var last: RunResult?
        while ContinuousClock.now < deadline {
            let result = try await xpb(["paste", "--display", display] + arguments)
            if result.status == 0 && result.stdout == expected { return }
            last = result
            try await Task.sleep(for: .milliseconds(50))
        }
        guard recording else { throw HarnessError.failed(what) }
        let shown = last.map { $0.stdout.count > 200 ? "\($0.stdout.count) bytes, status \($0.status), \($0.stderr)" : "\($0)" } ?? "-"
        Issue.record("\(what): did not arrive within \(timeout); last paste: \(shown); \(bridge.map { "\($0.result())" } ?? "")", sourceLocation: sourceLocation)
        throw HarnessError.failed(what)
    }

    /// Copies on `a` until the copy shows on `b`: the mirror has started watching.
    func warmUp(from a: String, to b: String, _ mode: String) async throws {
        for attempt in 1...20 {
            let data = Data("warm-up \(attempt)".utf8)
            try await copy(on: a, [], data)
            if (try? await expectArrives(on: b, [], data, "", recording: false, timeout: .milliseconds(500))) != nil {
                // Copies of earlier attempts that were still on their way have landed by now.
                try await Task.sleep(for: .milliseconds(400))
                return
            }
        }
        Issue.record("\(mode): nothing arrived from \(a) on \(b) within 10 s")
        throw HarnessError.failed("\(mode): warm-up")
    }

    /// `xpb bridge` on this display with the test as its far side: greeted (origin 42), its
    /// stream in a fifo the test writes, what it says in a file `output`.
    func bridgeWithScriptedFarSide(_ flags: [String] = [], origin: UInt64 = 42) async throws -> (bridge: Spawned, farSide: FileHandle, output: String) {
        let directory = try file("placeholder", Data()).deletingLastPathComponent()
        let input = directory.appendingPathComponent("in-\(UInt32.random(in: 0...UInt32.max))").path
        let output = input + ".out"
        guard mkfifo(input, 0o600) == 0 else { throw HarnessError.failed("mkfifo failed") }
        let words = flags.map(Command.shellQuoted).joined(separator: " ")
        let bridge = try spawn("/bin/sh", ["-c", "exec \(Command.shellQuoted(xpbPath)) bridge \(words) < \(input) > \(output)"])
        // Opening blocks until the bridge opens its end.
        guard let farSide = FileHandle(forWritingAtPath: input) else { throw HarnessError.failed("cannot open the fifo") }
        farSide.write(Data(BridgeFrame.hello(version: BridgeFrame.version, origin: origin).encoded()))
        return (bridge, farSide, output)
    }

    /// The offers a scripted far side's bridge wrote to `output` so far.
    func offersSent(to output: String) -> [BridgeOffer] {
        framesSent(to: output).compactMap { if case let .offer(offer) = $0 { offer } else { nil } }
    }

    /// The frames a scripted far side's bridge wrote to `output` so far.
    func framesSent(to output: String) -> [BridgeFrame] {
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data())
        var offset = 0
        let reader = BridgeFrameReader(limits: BridgeLimits(maxSize: 1 << 20)) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }
        var frames: [BridgeFrame] = []
        while let frame = try? reader.next() { frames.append(frame) }
        return frames
    }

    /// Waits until the bridge writing `output` sent an offer holding `text`.
    func waitForOffer(of text: String, in output: String) async throws -> BridgeOffer? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let offer = offersSent(to: output).first(where: { $0.items.contains { $0.bytes == Array(text.utf8) } }) { return offer }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Two bridges on `a` and `b` joined by a pipe each way, in one shell.
    /// With `tee`, what goes from `a` to `b` is also written to that file.
    func bridgePair(_ a: String, _ b: String, tee: String? = nil, left: [String] = [], right: [String] = []) throws -> Spawned {
        let fifo = try file("fifo", Data()).path
        let xpb = Command.shellQuoted(xpbPath)
        let middle = tee.map { " tee \($0) |" } ?? ""
        let (leftFlags, rightFlags) = (left.map { " " + $0 }.joined(), right.map { " " + $0 }.joined())
        let script = "rm -f \(fifo) && mkfifo \(fifo) && \(xpb) bridge --display \(a)\(leftFlags) < \(fifo) |\(middle) \(xpb) bridge --display \(b)\(rightFlags) > \(fifo)"
        return try spawn("/bin/sh", ["-c", script])
    }

    /// The checks every two-display mode passes: text, HTML+text and 6 MiB both ways, one change
    /// per copy on each side, and secret content that never arrives.
    func exercise(_ a: String, _ b: String, _ mode: String) async throws {
        try await warmUp(from: a, to: b, mode)

        let watchA = try spawn(xpbPath, ["watch", "--display", a])
        let watchB = try spawn(xpbPath, ["watch", "--display", b])
        await watchA.waitUntilIdle()
        await watchB.waitUntilIdle()
        try await copy(on: a, [], Data("text A to B".utf8))
        try await expectArrives(on: b, [], Data("text A to B".utf8), "\(mode): text A to B")
        try await Task.sleep(for: .milliseconds(500))
        #expect(watchA.stdoutText.split(separator: "\n").count == 1, "\(mode): one change on A, no echo: \(watchA.stdoutText)")
        #expect(watchB.stdoutText.split(separator: "\n").count == 1, "\(mode): one change on B: \(watchB.stdoutText)")
        await stop(watchA)
        await stop(watchB)

        try await copy(on: b, [], Data("text B to A".utf8))
        try await expectArrives(on: a, [], Data("text B to A".utf8), "\(mode): text B to A")
        try await copyHTML(on: b, [])
        try await expectArrives(on: a, ["-t", "text/html"], SyncBridgeTests.html, "\(mode): HTML B to A")
        try await expectArrives(on: a, [], SyncBridgeTests.text, "\(mode): its text B to A")
        try await copyHTML(on: a, [])
        try await expectArrives(on: b, ["-t", "text/html"], SyncBridgeTests.html, "\(mode): HTML A to B")

        let file = try file("six.bin", SyncBridgeTests.binary)
        try await copy(on: a, [file.path], nil)
        try await expectArrives(on: b, [], SyncBridgeTests.binary, "\(mode): 6 MiB A to B")
        try await copy(on: b, ["-t", "text/plain"], Data("small again".utf8))
        try await expectArrives(on: a, [], Data("small again".utf8), "\(mode): text B to A")
        try await copy(on: b, [file.path], nil)
        try await expectArrives(on: a, [], SyncBridgeTests.binary, "\(mode): 6 MiB B to A")

        // A secret is not mirrored: the other side keeps what it had.
        try await copy(on: a, ["--sensitive"], Data("hunter2".utf8))
        try await Task.sleep(for: .milliseconds(600))
        let pasted = try await xpb(["paste", "--display", b])
        #expect(pasted.stdout == SyncBridgeTests.binary, "\(mode): the secret never arrived (\(pasted.stdout.count) bytes)")
    }
}

/// Debian's sshd on 127.0.0.1 with a host key, a user key and a config made for the test; the
/// remote `xpb` is found through the PATH the config sets.
struct SSHServer {
    let process: Spawned
    let port: Int
    let directory: URL
    let userKey: String

    /// What `ssh` needs to reach it without prompts.
    var clientOptions: [String] {
        ["-p", String(port), "-i", userKey, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes"]
    }

    static func start(session x: XSession) throws -> SSHServer {
        let sshd = "/usr/sbin/sshd"
        guard FileManager.default.isExecutableFile(atPath: sshd) else {
            throw HarnessError.missingTool("`sshd` is not installed (Debian package: openssh-server)")
        }
        let keygen = try Tools.required("ssh-keygen", package: "openssh-client")
        let directory = try x.file("placeholder", Data()).deletingLastPathComponent()
        // sshd refuses keys in directories others can write to.
        chmod(directory.path, 0o700)
        for name in ["host", "user"] {
            let status = try runQuietly(keygen, ["-q", "-t", "ed25519", "-N", "", "-f", directory.appendingPathComponent(name).path])
            guard status == 0 else { throw HarnessError.failed("ssh-keygen failed (\(status))") }
        }
        try FileManager.default.copyItem(at: directory.appendingPathComponent("user.pub"), to: directory.appendingPathComponent("authorized_keys"))
        chmod(directory.appendingPathComponent("authorized_keys").path, 0o600)
        // Privilege separation needs this directory; Debian makes it at boot, a container may not.
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let xpbDirectory = URL(fileURLWithPath: x.xpbPath).deletingLastPathComponent().path
        let port = Int.random(in: 20000...60000)
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(directory.appendingPathComponent("host").path)
            PidFile \(directory.appendingPathComponent("sshd.pid").path)
            AuthorizedKeysFile \(directory.appendingPathComponent("authorized_keys").path)
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            StrictModes no
            UsePAM no
            SetEnv PATH=\(xpbDirectory):/usr/local/bin:/usr/bin:/bin
            """
        let configFile = directory.appendingPathComponent("sshd_config")
        try Data(config.utf8).write(to: configFile)
        let process = try x.spawn(sshd, ["-D", "-e", "-f", configFile.path])
        // Listening once it answers a TCP connect.
        let deadline = ContinuousClock.now + .seconds(10)
        while !canConnect(port: port) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw HarnessError.failed("sshd did not start: \(process.result())")
            }
            usleep(20_000)
        }
        return SSHServer(process: process, port: port, directory: directory, userKey: directory.appendingPathComponent("user").path)
    }

    func stop(_ x: XSession) async {
        await x.stop(process)
    }

    private static func runQuietly(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
