import Testing
@testable import X11Pasteboard

@Suite struct IncrementalSendTests {
    private func chunks(of count: Int, chunkSize: Int, format: Int = 8) -> [Range<Int>] {
        var send = IncrementalSend(value: ServedValue(bytes: [UInt8](repeating: 7, count: count), type: "x", format: format), chunkSize: chunkSize)
        var result: [Range<Int>] = []
        while let range = send.nextChunk() { result.append(range) }
        #expect(send.isFinished)
        return result
    }

    @Test func splitsIntoChunksAndEndsWithAnEmptyOne() {
        #expect(chunks(of: 10, chunkSize: 4) == [0..<4, 4..<8, 8..<10, 10..<10])
    }

    @Test func exactMultipleStillSendsTheClosingChunk() {
        #expect(chunks(of: 8, chunkSize: 4) == [0..<4, 4..<8, 8..<8])
    }

    @Test func emptyValueIsOnlyTheClosingChunk() {
        #expect(chunks(of: 0, chunkSize: 4) == [0..<0])
    }

    @Test func chunksKeepWholeItemsForWiderFormats() {
        // 16-bit data must never be cut in the middle of an item.
        let ranges = chunks(of: 12, chunkSize: 5, format: 16)
        #expect(ranges == [0..<4, 4..<8, 8..<12, 12..<12])
    }

    @Test func chunksCoverEveryByteOnce() {
        let ranges = chunks(of: 1_000_003, chunkSize: 65536)
        #expect(ranges.dropLast().allSatisfy { !$0.isEmpty })
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.last == 1_000_003..<1_000_003)
    }
}

@Suite struct TimestampTests {
    @Test func ordersNearbyTimes() {
        #expect(XTimestamp(rawValue: 100).isBefore(XTimestamp(rawValue: 200)))
        #expect(!XTimestamp(rawValue: 200).isBefore(XTimestamp(rawValue: 100)))
        #expect(!XTimestamp(rawValue: 5).isBefore(XTimestamp(rawValue: 5)))
    }

    @Test func ordersAcrossTheWrap() {
        // 49.7 days of uptime wrap the 32-bit millisecond clock: just after the wrap is later.
        #expect(XTimestamp(rawValue: 0xFFFF_FF00).isBefore(XTimestamp(rawValue: 0x10)))
        #expect(!XTimestamp(rawValue: 0x10).isBefore(XTimestamp(rawValue: 0xFFFF_FF00)))
    }
}

/// Property data crosses Xlib in items, not bytes: format-32 items as C longs (8 bytes each
/// here), so a byte count passed as an item count reads past the buffer (issue: `xpb copy -t
/// PIXMAP` served three words of stray memory).
@Suite struct PropertyFormatTests {
    @Test(arguments: [(8, 1), (16, 2), (32, 4)])
    func itemsAreWholeItemsOnly(format: Int, size: Int) {
        #expect(PropertyFormat.itemSize(format) == size)
        for byteCount in [0, 1, 3, 4, 5, 7, 9] {
            #expect(PropertyFormat.itemCount(byteCount: byteCount, format: format) == byteCount / size)
        }
    }

    @Test func packed32BitItemsBecomeOneLongEach() {
        let bytes: [UInt8] = [1, 0, 0x20, 0, 0xFF, 0xFF, 0xFF, 0xFF, 9]  // two items and a stray byte
        let longs = bytes.withUnsafeBytes { PropertyFormat.cLongs(fromPacked: $0) }
        #expect(longs == [0x0020_0001, 0xFFFF_FFFF])
        let back = longs.withUnsafeBufferPointer { PropertyFormat.packed(fromCLongs: $0) }
        #expect(back == [0x0020_0001, 0xFFFF_FFFF])
    }

    @Test func fourBytesAreOneItemNotFour() {
        let bytes: [UInt8] = [1, 0, 0x20, 0]
        #expect(bytes.withUnsafeBytes { PropertyFormat.cLongs(fromPacked: $0) }.count == 1)
    }

    @Test func readsPacked32BitItems() {
        let bytes: [UInt8] = [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 9]
        #expect(PropertyFormat.items32(from: bytes) == [1, 0xFFFF_FFFF])
    }

    @Test func longsKeepOnlyTheirLow32Bits() {
        let longs = [Int(bitPattern: 0xFFFF_FFFF_0000_0002), 3]
        #expect(longs.withUnsafeBufferPointer { PropertyFormat.packed(fromCLongs: $0) } == [2, 3])
    }
}

/// Conversions land in properties of their own; an abandoned one is never handed out again,
/// so a late answer to it cannot pass for a later conversion's.
@Suite struct ConversionPropertiesTests {
    @Test func aCleanPropertyIsReusedAnAbandonedOneNever() {
        var pool = ConversionProperties()
        var interned: [String] = []
        let intern = { (name: String) -> XAtom in
            interned.append(name)
            return XAtom(rawValue: UInt(interned.count))
        }
        let first = pool.take(interning: intern)
        let second = pool.take(interning: intern)
        #expect(first != second, "two conversions in flight never share a property")
        pool.release(first, reusable: true)
        #expect(pool.take(interning: intern) == first)
        pool.release(second, reusable: false)
        let third = pool.take(interning: intern)
        #expect(third != second && third != first)
        #expect(interned == ["_XPB_SELECTION_0", "_XPB_SELECTION_1", "_XPB_SELECTION_2"])
    }
}

@Suite struct DeadlineTests {
    @Test func neverHasNoTimeout() {
        #expect(Deadline.never.pollTimeout == -1)
        #expect(!Deadline.never.hasPassed)
    }

    @Test func roundsUpToWholeMilliseconds() {
        let deadline = Deadline.after(.microseconds(1500))
        #expect((1...2).contains(deadline.pollTimeout))
    }

    @Test func earlierPicksTheNearest() {
        let soon = Deadline.after(.seconds(1))
        let later = Deadline.after(.seconds(10))
        #expect(soon.earlier(later).instant == soon.instant)
        #expect(Deadline.never.earlier(soon).instant == soon.instant)
    }
}
