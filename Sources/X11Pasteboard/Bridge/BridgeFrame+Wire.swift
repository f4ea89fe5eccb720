extension BridgeFrame {
    /// The frame as it goes on the wire: kind, 64-bit big-endian length, payload.
    public func encoded() -> [UInt8] {
        let (head, tail) = encodedParts()
        return head + tail
    }

    /// The frame in two parts to write one after the other: the data of a `data` frame is the
    /// tail, as it is, so that 64 MiB are not copied twice more on their way out.
    public func encodedParts() -> (head: [UInt8], tail: [UInt8]) {
        var payload = WireWriter()
        var tail: [UInt8] = []
        let kind: Kind
        switch self {
        case let .hello(version, origin):
            kind = .hello
            payload.bytes += Self.magic
            payload.u16(UInt16(clamping: version))
            payload.u64(origin)
        case let .offer(offer):
            kind = .offer
            payload.u64(offer.origin)
            payload.u64(offer.generation)
            payload.u64(offer.seen)
            payload.string(offer.selection)
            payload.u32(UInt32(offer.items.count))
            for item in offer.items {
                payload.string(item.target)
                payload.string(item.type)
                payload.u8(UInt8(clamping: item.format))
                payload.u64(item.size)
                if let bytes = item.bytes {
                    payload.u8(1)
                    payload.bytes += bytes
                } else {
                    payload.u8(0)
                }
            }
        case let .request(origin, generation, selection, target):
            kind = .request
            payload.u64(origin)
            payload.u64(generation)
            payload.string(selection)
            payload.string(target)
        case let .data(origin, generation, selection, target, bytes):
            kind = .data
            payload.u64(origin)
            payload.u64(generation)
            payload.string(selection)
            payload.string(target)
            payload.u8(bytes == nil ? 0 : 1)
            if let bytes { tail = bytes }
        case .bye:
            kind = .bye
        }
        var frame = WireWriter()
        frame.bytes.reserveCapacity(9 + payload.bytes.count)
        frame.u8(kind.rawValue)
        frame.u64(UInt64(payload.bytes.count + tail.count))
        frame.bytes += payload.bytes
        return (frame.bytes, tail)
    }

    /// Parses one payload of `kind`; every length is checked against the payload and `limits`.
    static func decode(kind rawKind: UInt8, payload: [UInt8], limits: BridgeLimits) throws(BridgeProtocolError) -> BridgeFrame {
        guard let kind = Kind(rawValue: rawKind) else {
            throw BridgeProtocolError("unknown frame kind \(rawKind) (is the other side an xpb bridge?)")
        }
        var reader = WireReader(bytes: payload, limits: limits)
        let frame: BridgeFrame
        switch kind {
        case .hello:
            guard payload.count >= magic.count, Array(payload.prefix(magic.count)) == magic else {
                throw BridgeProtocolError("the other side is not an xpb bridge (no XPB-BRIDGE greeting)")
            }
            reader.offset = magic.count
            let version = Int(try reader.u16())
            let origin = try reader.u64()
            frame = .hello(version: version, origin: origin)
        case .offer:
            let origin = try reader.u64()
            let generation = try reader.u64()
            let seen = try reader.u64()
            let selection = try reader.string()
            let count = try reader.u32()
            guard count <= limits.maxItems else {
                throw BridgeProtocolError("an offer of \(count) representations is more than the \(limits.maxItems) allowed")
            }
            var items: [BridgeOffer.Item] = []
            for _ in 0..<count {
                let target = try reader.string()
                let type = try reader.string()
                let format = Int(try reader.u8())
                guard [8, 16, 32].contains(format) else { throw BridgeProtocolError("an offer names format \(format); only 8, 16 and 32 exist") }
                let size = try reader.u64()
                guard size <= limits.maxFrame else {
                    throw BridgeProtocolError("an offer announces \(size) bytes of \(target), more than the \(limits.maxFrame) allowed")
                }
                let included = try reader.u8()
                let bytes = included == 0 ? nil : try reader.take(Int(size))
                items.append(.init(target: target, type: type, format: format, size: size, bytes: bytes))
            }
            frame = .offer(BridgeOffer(origin: origin, generation: generation, seen: seen, selection: selection, items: items))
        case .request:
            frame = .request(origin: try reader.u64(), generation: try reader.u64(), selection: try reader.string(), target: try reader.string())
        case .data:
            let origin = try reader.u64()
            let generation = try reader.u64()
            let selection = try reader.string()
            let target = try reader.string()
            let present = try reader.u8()
            let bytes = present == 0 ? nil : try reader.take(reader.remaining)
            frame = .data(origin: origin, generation: generation, selection: selection, target: target, bytes: bytes)
        case .bye:
            frame = .bye
        }
        guard reader.remaining == 0 else {
            throw BridgeProtocolError("a \(kind) frame has \(reader.remaining) bytes more than it says")
        }
        return frame
    }
}

/// Reads frames from a byte stream, holding it to `limits`: a frame that announces more than
/// the limit is refused from its header, before a byte of it is allocated.
public struct BridgeFrameReader {
    /// Reads into the buffer; returns the bytes read, 0 at the end of the stream.
    public typealias Source = (UnsafeMutableRawBufferPointer) throws -> Int

    private let source: Source
    /// The limits frames are held to.
    public let limits: BridgeLimits

    /// A reader of `source`.
    public init(limits: BridgeLimits, source: @escaping Source) {
        self.limits = limits
        self.source = source
    }

    /// The next frame; nil when the stream ended cleanly (between frames).
    ///
    /// - Throws: a truncated or malformed frame, a frame beyond the limits, a failed read.
    public func next() throws(BridgeProtocolError) -> BridgeFrame? {
        var header = [UInt8](repeating: 0, count: 9)
        let got = try fill(&header)
        if got == 0 { return nil }
        guard got == header.count else { throw BridgeProtocolError("the stream ended inside a frame header") }
        let length = header[1...8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard BridgeFrame.Kind(rawValue: header[0]) != nil else {
            throw BridgeProtocolError("unknown frame kind \(header[0]) (is the other side an xpb bridge?)")
        }
        guard length <= limits.maxFrame else {
            throw BridgeProtocolError("a frame of \(length) bytes is larger than the \(limits.maxFrame) allowed (see --max-size)")
        }
        let payload = try readPayload(length: Int(length))
        return try BridgeFrame.decode(kind: header[0], payload: payload, limits: limits)
    }

    /// The payload's `length` bytes. The buffer grows with the bytes that came (doubling from
    /// 64 KiB), never ahead of them: a 9-byte header announcing 256 MiB costs 64 KiB until the
    /// bytes follow it.
    private func readPayload(length: Int) throws(BridgeProtocolError) -> [UInt8] {
        var payload: [UInt8] = []
        while payload.count < length {
            let start = payload.count
            let end = min(length, max(start * 2, start + (64 << 10)))
            payload.append(contentsOf: [UInt8](repeating: 0, count: end - start))
            guard try fill(&payload, from: start) == end else {
                throw BridgeProtocolError("the stream ended inside a frame (\(length) bytes announced)")
            }
        }
        return payload
    }

    /// Fills `buffer` from `start` on unless the stream ends first; returns how much of it is
    /// filled.
    private func fill(_ buffer: inout [UInt8], from start: Int = 0) throws(BridgeProtocolError) -> Int {
        var filled = start
        while filled < buffer.count {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try source(UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            } catch {
                throw BridgeProtocolError("cannot read the stream: \(error)")
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }
}

/// Appends big-endian integers and length-prefixed strings.
private struct WireWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func u32(_ value: UInt32) { for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
    mutating func u64(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        u32(UInt32(utf8.count))
        bytes += utf8
    }
}

/// Takes big-endian integers and strings from a payload, refusing to read past it.
private struct WireReader {
    let bytes: [UInt8]
    let limits: BridgeLimits
    var offset = 0

    init(bytes: [UInt8], limits: BridgeLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int) throws(BridgeProtocolError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw BridgeProtocolError("a frame is shorter than its contents say (\(count) bytes wanted, \(remaining) left)")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func integer(_ width: Int) throws(BridgeProtocolError) -> UInt64 {
        try take(width).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    mutating func u8() throws(BridgeProtocolError) -> UInt8 { UInt8(try integer(1)) }
    mutating func u16() throws(BridgeProtocolError) -> UInt16 { UInt16(try integer(2)) }
    mutating func u32() throws(BridgeProtocolError) -> UInt32 { UInt32(try integer(4)) }
    mutating func u64() throws(BridgeProtocolError) -> UInt64 { try integer(8) }

    mutating func string() throws(BridgeProtocolError) -> String {
        let length = try u32()
        guard length <= limits.maxName else { throw BridgeProtocolError("a name of \(length) bytes is longer than the \(limits.maxName) allowed") }
        let utf8 = try take(Int(length))
        guard let string = String(validating: utf8, as: UTF8.self) else { throw BridgeProtocolError("a name is not UTF-8") }
        guard BridgeOffer.isValidName(string) else { throw BridgeProtocolError("a name is empty or holds control characters") }
        return string
    }
}
