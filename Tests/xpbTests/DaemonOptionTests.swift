import Testing
@testable import xpb

/// `xpb daemon --max-entry-size`: sizes as users write them.
@Suite struct ByteCountTests {
    @Test("plain numbers and K/M/G multiples, with or without B/iB")
    func parsesSizes() {
        #expect(ByteCount.parse("1048576") == 1 << 20)
        #expect(ByteCount.parse("64K") == 64 << 10)
        #expect(ByteCount.parse("256M") == 256 << 20)
        #expect(ByteCount.parse("256MiB") == 256 << 20)
        #expect(ByteCount.parse("1gb") == 1 << 30)
        #expect(ByteCount.parse("100B") == 100)
    }

    @Test("nonsense, zero, negative and overflowing sizes are refused", arguments: ["", "M", "0", "-5M", "12X", "1.5M", "99999999999G"])
    func refuses(_ text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    @Test func describesSizes() {
        #expect(ByteCount.describe(11) == "11 B")
        #expect(ByteCount.describe(1536) == "1.5 KiB")
        #expect(ByteCount.describe(64 << 20) == "64.0 MiB")
    }
}
