/// Conversions between the text encodings that X selections use.
///
/// X offers text under several targets: `UTF8_STRING` and `text/plain;charset=utf-8` carry UTF-8,
/// `STRING` carries ISO Latin-1 (ICCCM §2.7.1), `TEXT` names its encoding by the reply type.
/// Everything here works on bytes so the hot paths never need Foundation.
public enum TextEncoding {
    /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
    public static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Decodes ISO Latin-1 bytes to UTF-8: every byte is the code point of the same value.
    public static func latin1ToUTF8(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte < 0x80 {
                out.append(byte)
            } else {
                out.append(0xC0 | (byte >> 6))
                out.append(0x80 | (byte & 0x3F))
            }
        }
        return out
    }

    /// Encodes UTF-8 as ISO Latin-1; characters outside Latin-1 become `replacement`.
    ///
    /// Invalid UTF-8 sequences also become `replacement`, so the result is always valid Latin-1.
    public static func utf8ToLatin1(_ bytes: some Collection<UInt8>, replacement: UInt8 = UInt8(ascii: "?")) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                out.append(scalar.value <= 0xFF ? UInt8(scalar.value) : replacement)
            case .emptyInput:
                return out
            case .error:
                out.append(replacement)
            }
        }
    }

    /// Whether every character of the UTF-8 text is representable in ISO Latin-1.
    public static func isLatin1Representable(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar.value > 0xFF { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Byte order of UTF-16 data.
    public enum UTF16ByteOrder: Sendable {
        /// Least significant byte first (x86's native order, what X clients write without a BOM).
        case littleEndian
        /// Most significant byte first ("external representation" when there is no BOM).
        case bigEndian
    }

    /// The byte order a leading BOM announces, or nil without one.
    public static func utf16ByteOrderMark(_ bytes: some Collection<UInt8>) -> UTF16ByteOrder? {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next(), let second = iterator.next() else { return nil }
        if first == 0xFF && second == 0xFE { return .littleEndian }
        if first == 0xFE && second == 0xFF { return .bigEndian }
        return nil
    }

    /// Decodes UTF-16 to UTF-8. A BOM picks the byte order and is dropped; otherwise `defaultOrder`.
    ///
    /// Lenient because clipboard text is for people: unpaired surrogates and a dangling odd byte
    /// become U+FFFD instead of failing the whole paste.
    public static func utf16ToUTF8(_ bytes: some Collection<UInt8>, defaultOrder: UTF16ByteOrder = .littleEndian) -> [UInt8] {
        let array = Array(bytes)
        var order = defaultOrder
        var start = 0
        if let bomOrder = utf16ByteOrderMark(array) {
            order = bomOrder
            start = 2
        }
        var units: [UInt16] = []
        units.reserveCapacity(array.count / 2)
        var index = start
        while index + 1 < array.count {
            let a = UInt16(array[index]), b = UInt16(array[index + 1])
            units.append(order == .littleEndian ? (b << 8 | a) : (a << 8 | b))
            index += 2
        }
        var out: [UInt8] = []
        out.reserveCapacity(units.count)
        var iterator = units.makeIterator()
        var decoder = UTF16()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): appendUTF8(scalar, to: &out)
            case .emptyInput: break decoding
            case .error: appendUTF8(Unicode.Scalar(0xFFFD)!, to: &out)
            }
        }
        if index < array.count { appendUTF8(Unicode.Scalar(0xFFFD)!, to: &out) }
        return out
    }

    /// Encodes UTF-8 as UTF-16 in `order`, optionally with a BOM; invalid UTF-8 becomes U+FFFD.
    public static func utf8ToUTF16(_ bytes: some Collection<UInt8>, order: UTF16ByteOrder = .littleEndian, byteOrderMark: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2 + 2)
        func append(_ unit: UInt16) {
            if order == .littleEndian {
                out.append(UInt8(unit & 0xFF)); out.append(UInt8(unit >> 8))
            } else {
                out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF))
            }
        }
        if byteOrderMark { append(0xFEFF) }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): UTF16.encode(scalar) { append($0) }
            case .emptyInput: return out
            case .error: append(0xFFFD)
            }
        }
    }

    /// The same text with every invalid UTF-8 sequence replaced by U+FFFD (valid input is unchanged).
    public static func repairingUTF8(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if isValidUTF8(bytes) { return Array(bytes) }
        return Array(String(decoding: Array(bytes), as: UTF8.self).utf8)
    }

    /// UTF-8 as ICCCM `STRING` in one pass: Latin-1 with `replacement` for characters outside
    /// it, CRLF and lone CR as LF, and no control characters but TAB and LF (ICCCM §2.7.1).
    ///
    /// One pass matters for large text: the owner of a 64 MiB text held three transient copies
    /// while answering a single `STRING` request.
    public static func utf8ToICCCMString(_ bytes: some Collection<UInt8>, replacement: UInt8 = UInt8(ascii: "?")) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var previousWasCR = false
        while true {
            let byte: UInt8
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): byte = scalar.value <= 0xFF ? UInt8(scalar.value) : replacement
            case .error: byte = replacement
            case .emptyInput: return out
            }
            defer { previousWasCR = byte == 13 }
            switch byte {
            case 13: out.append(10)
            case 10: if !previousWasCR { out.append(10) }
            case 9: out.append(9)
            case ..<0x20: continue
            default: out.append(byte)
            }
        }
    }

    /// CRLF and lone CR become LF: MIME `text/*` uses CRLF (GTK 3 writes it), pasteboard text uses LF.
    public static func normalizingNewlines(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previousWasCR = false
        for byte in bytes {
            if byte == 13 {
                out.append(10)
                previousWasCR = true
                continue
            }
            if byte == 10 && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = false
            out.append(byte)
        }
        return out
    }

    static func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        UTF8.encode(scalar) { out.append($0) }
    }
}
