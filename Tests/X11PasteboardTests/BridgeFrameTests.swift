import Testing
@testable import X11Pasteboard

/// The bridge's frames, without a server: round trips, and hostile input refused before any
/// allocation it was not ready for.
@Suite struct BridgeFrameTests {
    static let limits = BridgeLimits(maxSize: 8 << 20)

    /// Reads every frame of `bytes`, as a bridge would from its stream.
    static func frames(_ bytes: [UInt8], limits: BridgeLimits = limits) throws(BridgeProtocolError) -> [BridgeFrame] {
        let source = ByteSource(bytes)
        let reader = BridgeFrameReader(limits: limits, source: source.read)
        var frames: [BridgeFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    static let offer = BridgeOffer(
        origin: 0xDEAD_BEEF_0000_0001, generation: 7, seen: 0x0102_0304_0506_0708, selection: "CLIPBOARD",
        items: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 5, bytes: Array("héllo".utf8).prefix(5).map { $0 }),
            .init(target: "image/png", type: "image/png", format: 8, size: 6 << 20, bytes: nil),
            .init(target: "_NET_WM_ICON", type: "CARDINAL", format: 32, size: 8, bytes: [1, 0, 0, 0, 2, 0, 0, 0]),
        ])

    @Test func everyFrameRoundTrips() throws {
        let sent: [BridgeFrame] = [
            .hello(version: 1, origin: 42),
            .offer(Self.offer),
            .request(origin: 0xABCD, generation: 7, selection: "CLIPBOARD", target: "image/png"),
            .data(origin: 0xFFFF_FFFF_FFFF_FFFE, generation: 7, selection: "CLIPBOARD", target: "image/png", bytes: [0, 1, 2, 255]),
            .data(origin: 0xFFFF_FFFF_FFFF_FFFE, generation: 6, selection: "PRIMARY", target: "text/html", bytes: nil),
            .data(origin: 0xFFFF_FFFF_FFFF_FFFE, generation: 8, selection: "PRIMARY", target: "text/html", bytes: []),
            .bye,
        ]
        #expect(try Self.frames(sent.flatMap { $0.encoded() }) == sent)
    }

    @Test func anEmptyStreamIsACleanEnd() throws {
        #expect(try Self.frames([]) == [])
    }

    @Test func anAbsurdSizeIsRefusedFromTheHeader() {
        // Kind "data", length 2^60: the reader must refuse it without allocating 2^60 bytes.
        let header: [UInt8] = [4, 0x10, 0, 0, 0, 0, 0, 0, 0]
        #expect(throws: BridgeProtocolError.self) { try Self.frames(header) }
        do {
            _ = try Self.frames(header)
        } catch {
            #expect(error.message.contains("1152921504606846976 bytes"))
        }
    }

    @Test func memoryFollowsTheBytesThatCameNotTheHeader() throws {
        // A header announcing 200 MiB (within the limit) and then 10 bytes: the reader must not
        // make room for 200 MiB before they come.
        let header: [UInt8] = [4] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(200 << 20) >> (56 - 8 * $0)) }
        var largest = 0
        let bytes = header + [UInt8](repeating: 1, count: 10)
        var offset = 0
        let reader = BridgeFrameReader(limits: BridgeLimits(maxSize: 256 << 20)) { buffer in
            largest = max(largest, buffer.count)
            let count = min(buffer.count, bytes.count - offset)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[offset..<offset + count]))
            offset += count
            return count
        }
        #expect(throws: BridgeProtocolError("the stream ended inside a frame (209715200 bytes announced)")) { try reader.next() }
        #expect(largest <= 1 << 20, "the reader offered a buffer of \(largest) bytes for 10 that came")
        // A payload larger than the first step still arrives whole.
        let blob = (0..<(700 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let frame = BridgeFrame.data(origin: 0xFFFF_FFFF_FFFF_FFFE, generation: 3, selection: "CLIPBOARD", target: "image/png", bytes: blob)
        #expect(try Self.frames(frame.encoded()) == [frame])
    }

    @Test func anOfferAnnouncingAnAbsurdSizeIsRefused() throws {
        var offer = Self.offer
        offer.items[1].size = 1 << 60
        #expect(throws: BridgeProtocolError.self) { try Self.frames(BridgeFrame.offer(offer).encoded()) }
    }

    @Test func anInlineSizeBeyondThePayloadIsRefused() throws {
        var offer = Self.offer
        offer.items[0].size = 1000  // says 1000 bytes follow; 5 do
        #expect(throws: BridgeProtocolError.self) { try Self.frames(BridgeFrame.offer(offer).encoded()) }
    }

    @Test func truncationAnywhereIsAnError() throws {
        let stream = BridgeFrame.hello(version: 1, origin: 9).encoded() + BridgeFrame.offer(Self.offer).encoded()
        let whole = try Self.frames(stream)
        #expect(whole.count == 2)
        let helloLength = BridgeFrame.hello(version: 1, origin: 9).encoded().count
        for cut in 1..<stream.count where cut != helloLength {
            #expect(throws: BridgeProtocolError.self, "cut at \(cut)") { try Self.frames(Array(stream.prefix(cut))) }
        }
    }

    @Test func garbageIsNotABridge() {
        #expect(throws: BridgeProtocolError.self) { try Self.frames(Array("Welcome to Debian!\n".utf8)) }
        // A hello kind whose payload lacks the greeting.
        var fake = BridgeFrame.hello(version: 1, origin: 1).encoded()
        fake[9] = UInt8(ascii: "Y")
        #expect(throws: BridgeProtocolError.self) { try Self.frames(fake) }
    }

    @Test func randomBytesNeverCrashOrOverAllocate() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...5, using: &generator) }
            _ = try? Self.frames(bytes)
        }
    }

    @Test func namesAreBounded() {
        let long = String(repeating: "x", count: 5000)
        let frame = BridgeFrame.request(origin: 0xABCD, generation: 1, selection: long, target: "UTF8_STRING")
        #expect(throws: BridgeProtocolError.self) { try Self.frames(frame.encoded()) }
    }

    @Test func offersNameAtMost256TargetsAndOnlyPlainNames() throws {
        // Every target becomes an atom on the receiving display, never freed.
        func items(_ count: Int) -> [BridgeOffer.Item] {
            (0..<count).map { .init(target: "T\($0)", type: "STRING", format: 8, size: 0, bytes: []) }
        }
        let full = BridgeOffer(origin: 1, generation: 1, selection: "CLIPBOARD", items: items(256))
        #expect(try Self.frames(BridgeFrame.offer(full).encoded()) == [.offer(full)])
        let over = BridgeOffer(origin: 1, generation: 1, selection: "CLIPBOARD", items: items(257))
        #expect(throws: BridgeProtocolError("an offer of 257 representations is more than the 256 allowed")) {
            try Self.frames(BridgeFrame.offer(over).encoded())
        }
        for name in ["", "A\nB", "\u{7F}"] {
            let frame = BridgeFrame.request(origin: 0xABCD, generation: 1, selection: "CLIPBOARD", target: name)
            #expect(throws: BridgeProtocolError("a name is empty or holds control characters"), "\(name.debugDescription)") {
                try Self.frames(frame.encoded())
            }
        }
    }
}

/// A stream over bytes in memory, handing them out in small reads as a pipe might.
final class ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, bytes.count - offset, 7)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[offset..<offset + count]))
        offset += count
        return count
    }
}

/// When mirrored changes go out: a lone change at once, a burst as its first and last.
@Suite struct ChangeCoalescerTests {
    let start = ContinuousClock.now

    @Test func aLoneChangeGoesAtOnce() {
        var coalescer = ChangeCoalescer(quiet: .milliseconds(150))
        let first = coalescer.changed(at: start)
        #expect(first)
        #expect(coalescer.pendingDue == nil)
        let later = coalescer.changed(at: start + .seconds(1))
        #expect(later, "a change after quiet is lone again")
    }

    @Test func aDragIsItsFirstAndLastChange() {
        var coalescer = ChangeCoalescer(quiet: .milliseconds(150))
        var mirrored = 0
        // 20 changes in 300 ms, checking for due work between them as the loop does.
        for step in 0..<20 {
            let now = start + .milliseconds(step * 15)
            if coalescer.takeDue(at: now) { mirrored += 1 }
            if coalescer.changed(at: now) { mirrored += 1 }
        }
        #expect(mirrored == 1, "only the first went at once")
        let last = start + .milliseconds(19 * 15)
        #expect(coalescer.pendingDue == last + .milliseconds(150), "the last is due after quiet")
        let early = coalescer.takeDue(at: last + .milliseconds(100))
        #expect(!early)
        let due = coalescer.takeDue(at: last + .milliseconds(150))
        #expect(due)
        let again = coalescer.takeDue(at: last + .seconds(1))
        #expect(!again, "taken once")
    }

    @Test func cancelForgetsTheHeldChange() {
        var coalescer = ChangeCoalescer(quiet: .milliseconds(150))
        _ = coalescer.changed(at: start)
        let held = coalescer.changed(at: start + .milliseconds(10))
        #expect(!held)
        coalescer.cancel()
        let due = coalescer.takeDue(at: start + .seconds(1))
        #expect(!due)
    }
}

/// What a snapshot becomes on the wire, and what is never forwarded.
@Suite struct BridgeOfferTests {
    @Test func smallContentTravelsAndLargeIsAnnounced() {
        let snapshot = SelectionSnapshot(representations: [
            .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("hi".utf8)),
            .init(target: "image/png", type: "image/png", bytes: [UInt8](repeating: 7, count: 2 << 20)),
            .init(target: "text/html", type: "text/html", bytes: Array("<b>hi</b>".utf8)),
            .init(target: BridgeOffer.originTarget, type: "STRING", bytes: Array("1 2".utf8)),
        ])
        let offer = BridgeOffer(snapshot: snapshot, origin: 1, generation: 2, selection: "CLIPBOARD")
        #expect(offer.items.map(\.target) == ["UTF8_STRING", "image/png", "text/html"], "the origin target is not content")
        #expect(offer.items.map(\.size) == [2, 2 << 20, 9])
        #expect(offer.items.map { $0.bytes != nil } == [true, false, true])
    }

    @Test func anOwnerWithMoreTargetsSendsItsFirst256() {
        let snapshot = SelectionSnapshot(representations: (0..<300).map {
            .init(target: "T\($0)", type: "STRING", bytes: [UInt8(truncatingIfNeeded: $0)])
        } + [.init(target: "BAD\nNAME", type: "STRING", bytes: [])])
        let offer = BridgeOffer(snapshot: snapshot, origin: 1, generation: 2, selection: "CLIPBOARD")
        #expect(offer.items.map(\.target) == (0..<256).map { "T\($0)" })
    }

    @Test func secretsAreRecognisedEvenWhenNotSent() {
        func offer(_ items: [BridgeOffer.Item]) -> BridgeOffer { BridgeOffer(origin: 1, generation: 1, selection: "CLIPBOARD", items: items) }
        let text = BridgeOffer.Item(target: "UTF8_STRING", type: "UTF8_STRING", format: 8, size: 2, bytes: Array("pw".utf8))
        #expect(!offer([text]).isSensitive)
        #expect(offer([text, .init(target: "x-kde-passwordManagerHint", type: "text/plain", format: 8, size: 6, bytes: Array("secret".utf8))]).isSensitive)
        #expect(!offer([text, .init(target: "x-kde-passwordManagerHint", type: "text/plain", format: 8, size: 6, bytes: Array("public".utf8))]).isSensitive)
        #expect(offer([text, .init(target: "x-kde-passwordManagerHint", type: "text/plain", format: 8, size: 6, bytes: nil)]).isSensitive)
        #expect(offer([text, .init(target: "org.nspasteboard.ConcealedType", type: "x", format: 8, size: 0, bytes: [])]).isSensitive)
    }

    @Test func originMarkersRoundTrip() throws {
        let offer = BridgeOffer(origin: 0xFFFF_FFFF_FFFF_FFFF, generation: 12, selection: "PRIMARY", items: [])
        let parsed = try #require(BridgeOffer.origin(fromMarker: offer.originMarker(owner: XWindow(rawValue: 0x40_0001))))
        #expect(parsed.origin == offer.origin && parsed.generation == 12 && parsed.owner == XWindow(rawValue: 0x40_0001))
        #expect(BridgeOffer.origin(fromMarker: Array("nonsense".utf8)) == nil)
        // Version 1 markers named no window: nothing says which bridge serves them.
        #expect(BridgeOffer.origin(fromMarker: Array("2a 1".utf8)) == nil)
    }
}
