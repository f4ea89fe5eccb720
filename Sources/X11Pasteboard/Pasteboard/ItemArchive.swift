import FoundationEssentials
import UniformTypes

/// The private target that carries every item between xpb processes, with its metadata.
///
/// Other X clients see only the first item (and all URLs in `text/uri-list`); a reader that finds
/// this target gets the items back exactly. The layout is little-endian and length-prefixed:
///
///     "XPBI" version:u8(1) itemCount:u32
///     per item:   flags:u8 (1 local-only, 2 sensitive) expiry:i64 (ms since 1970, Int64.min = none)
///                 representationCount:u32
///     per representation: identifierLength:u32 identifier(UTF-8) byteCount:u64 bytes
enum ItemArchive {
    /// The X target (and MIME type) of the archive.
    static let target = TargetOffer.itemArchiveTarget

    private static let magic: [UInt8] = Array("XPBI".utf8)
    private static let version: UInt8 = 1
    private static let noExpiry = Int64.min

    /// Why an archive could not be read.
    enum Malformed: Error, Equatable {
        case notAnArchive
        case unsupportedVersion(UInt8)
        case truncated
        case badIdentifier
    }

    static func encode(_ items: [StoredItem]) -> [UInt8] {
        var out = magic
        out.append(version)
        append(UInt32(items.count), to: &out)
        for item in items {
            var flags: UInt8 = 0
            if item.metadata.isLocalOnly { flags |= 1 }
            if item.metadata.isSensitive { flags |= 2 }
            out.append(flags)
            let expiry = item.metadata.expirationDate.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? noExpiry
            append(UInt64(bitPattern: expiry), to: &out)
            append(UInt32(item.representations.count), to: &out)
            for representation in item.representations {
                let identifier = Array(representation.type.identifier.utf8)
                append(UInt32(identifier.count), to: &out)
                out.append(contentsOf: identifier)
                append(UInt64(representation.bytes.count), to: &out)
                out.append(contentsOf: representation.bytes)
            }
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(Malformed) -> [StoredItem] {
        var input = Input(bytes: bytes)
        guard try input.take(magic.count) == magic else { throw .notAnArchive }
        let foundVersion = try input.byte()
        guard foundVersion == version else { throw .unsupportedVersion(foundVersion) }
        let itemCount = Int(try input.uint32())
        var items: [StoredItem] = []
        // Counts come from another process: never reserve on their word, a short input ends the session.
        for _ in 0..<itemCount {
            let flags = try input.byte()
            let expiry = Int64(bitPattern: try input.uint64())
            let representationCount = Int(try input.uint32())
            var representations: [StoredItem.Representation] = []
            for _ in 0..<representationCount {
                let identifierBytes = try input.take(Int(try input.uint32()))
                guard let identifier = String(validating: identifierBytes, as: UTF8.self), !identifier.isEmpty else {
                    throw .badIdentifier
                }
                let count = try input.uint64()
                guard count <= UInt64(input.remaining) else { throw .truncated }
                representations.append(.init(type: PasteboardType.resolve(identifier), bytes: try input.take(Int(count))))
            }
            let metadata = Pasteboard.ItemMetadata(
                isLocalOnly: flags & 1 != 0,
                expirationDate: expiry == noExpiry ? nil : Date(timeIntervalSince1970: Double(expiry) / 1000),
                isSensitive: flags & 2 != 0)
            items.append(StoredItem(representations, metadata: metadata))
        }
        return items
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private struct Input {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int) throws(Malformed) -> [UInt8] {
            guard count >= 0, count <= remaining else { throw .truncated }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func byte() throws(Malformed) -> UInt8 { try take(1)[0] }

        mutating func uint32() throws(Malformed) -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func uint64() throws(Malformed) -> UInt64 {
            try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
