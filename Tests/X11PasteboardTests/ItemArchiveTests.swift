import Foundation
import Testing
import UniformTypes
@testable import X11Pasteboard

/// The private target that carries every item between xpb processes: no X server needed.
@Suite struct ItemArchiveTests {
    private let items = [
        StoredItem(
            [.init(type: .utf8PlainText, bytes: Array("héllo".utf8)), .init(type: .html, bytes: Array("<b>h</b>".utf8))],
            metadata: .init(isLocalOnly: true, expirationDate: Date(timeIntervalSince1970: 1_800_000_000.25))),
        StoredItem([.init(type: .png, bytes: [0x89, 0x50, 0x4E, 0x47, 0, 255])]),
        StoredItem([.init(type: UTType(importedAs: "com.example.private"), bytes: [])]),
    ]

    @Test func itemsAndMetadataSurviveARoundTrip() throws {
        let decoded = try ItemArchive.decode(ItemArchive.encode(items))
        #expect(decoded == items)
        #expect(decoded[0].metadata.isLocalOnly)
        #expect(decoded[0].metadata.expirationDate == Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(!decoded[1].metadata.isLocalOnly && decoded[1].metadata.expirationDate == nil)
        #expect(decoded[2].types.map(\.identifier) == ["com.example.private"])
    }

    @Test func concealedItemsAreMarkedSensitive() throws {
        let secret = StoredItem([.init(type: .utf8PlainText, bytes: [49]), .init(type: .concealed, bytes: [])])
        #expect(secret.metadata.isSensitive)
        #expect(try ItemArchive.decode(ItemArchive.encode([secret]))[0].metadata.isSensitive)
    }

    @Test func anEmptyListIsValid() throws {
        #expect(try ItemArchive.decode(ItemArchive.encode([])).isEmpty)
    }

    @Test func everyTruncationIsRejected() {
        let bytes = ItemArchive.encode(items)
        for length in 0..<bytes.count {
            #expect(throws: ItemArchive.Malformed.self) { try ItemArchive.decode(Array(bytes.prefix(length))) }
        }
    }

    @Test func foreignBytesAreRejected() {
        #expect(throws: ItemArchive.Malformed.notAnArchive) { try ItemArchive.decode(Array("hello world".utf8)) }
        var future = ItemArchive.encode(items)
        future[4] = 9
        #expect(throws: ItemArchive.Malformed.unsupportedVersion(9)) { try ItemArchive.decode(future) }
    }

    @Test func hugeCountsFromAnotherProcessFailWithoutAllocating() {
        // "XPBI" v1, 4 billion items, the first claiming 2^64-1 bytes of data.
        var bytes = Array("XPBI".utf8) + [1, 0xFF, 0xFF, 0xFF, 0xFF]
        bytes += [0] + [UInt8](repeating: 0, count: 8) + [1, 0, 0, 0]
        bytes += [1, 0, 0, 0, UInt8(ascii: "x")] + [UInt8](repeating: 0xFF, count: 8)
        #expect(throws: ItemArchive.Malformed.truncated) { try ItemArchive.decode(bytes) }
    }
}
