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

@Suite struct PropertyDecodingTests {
    @Test func readsPacked32BitItems() {
        let bytes: [UInt8] = [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 9]
        #expect(PropertyDecoding.atoms(from: bytes) == [1, 0xFFFF_FFFF])
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
