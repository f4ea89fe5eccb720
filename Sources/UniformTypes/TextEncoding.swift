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
}
