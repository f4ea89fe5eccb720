/// The subset of X Compound Text (ISO 2022 as profiled by the X Consortium) this bridge speaks.
///
/// Compound Text starts in ASCII (GL) + Latin-1 right half (GR), so Latin-1 text *is* Compound
/// Text; that is all we write. Reading decodes ASCII/Latin-1 segments and turns segments in other
/// character sets into U+FFFD, since no modern client needs more (types.md §4.1).
public enum CompoundText {
    /// Decodes Compound Text to UTF-8. Throws `ConversionError.malformed` for a truncated escape
    /// sequence or an extended segment that runs past the end.
    public static func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var leftIsASCII = true, rightIsLatin1 = true
        var leftWidth = 1, rightWidth = 1
        var index = 0
        func malformed(_ reason: String) -> ConversionError { .malformed(format: "COMPOUND_TEXT", reason: reason) }
        func replacement() { out.append(contentsOf: [0xEF, 0xBF, 0xBD]) }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x1B:  // ESC: designation or extended segment
                var end = index + 1
                while end < bytes.count, (0x20...0x2F).contains(bytes[end]) { end += 1 }
                guard end < bytes.count, (0x30...0x7E).contains(bytes[end]) else { throw malformed("truncated escape sequence") }
                let intermediates = Array(bytes[(index + 1)..<end])
                let final = bytes[end]
                index = end + 1
                if intermediates == [0x25, 0x2F] {  // ESC % / F M L: extended segment of M*128+L bytes
                    guard index + 1 < bytes.count, bytes[index] >= 0x80, bytes[index + 1] >= 0x80 else {
                        throw malformed("truncated extended segment header")
                    }
                    let length = Int(bytes[index] - 0x80) * 128 + Int(bytes[index + 1] - 0x80)
                    index += 2
                    guard index + length <= bytes.count else { throw malformed("extended segment runs past the end") }
                    index += length
                    replacement()
                    continue
                }
                switch intermediates.first {
                case 0x28:  // ESC ( F: 94-set into GL
                    leftIsASCII = final == 0x42
                    leftWidth = 1
                case 0x29, 0x2D:  // ESC ) F / ESC - F: 94/96-set into GR
                    rightIsLatin1 = intermediates.first == 0x2D && final == 0x41
                    rightWidth = 1
                case 0x24:  // ESC $ ( F / ESC $ ) F: 94^2-sets (CJK)
                    if intermediates.count > 1 && intermediates[1] == 0x28 {
                        leftIsASCII = false
                        leftWidth = 2
                    } else {
                        rightIsLatin1 = false
                        rightWidth = 2
                    }
                default:
                    break  // other controls (e.g. ESC sequences for directions) carry no characters
                }
            case 0x9B:  // CSI … F: direction changes, no text
                index += 1
                while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                guard index < bytes.count else { throw malformed("truncated control sequence") }
                index += 1
            case 0x09, 0x0A:
                out.append(byte)
                index += 1
            case 0x00:
                out.append(0x0A)  // NUL separates list elements in STRING-like properties
                index += 1
            case 0x20...0x7F:
                if leftIsASCII {
                    out.append(byte)
                    index += 1
                } else {
                    replacement()
                    index += leftWidth
                }
            case 0xA0...0xFF:
                if rightIsLatin1 {
                    TextEncoding.appendUTF8(Unicode.Scalar(byte), to: &out)
                    index += 1
                } else {
                    replacement()
                    index += rightWidth
                }
            default:
                index += 1  // C0/C1 controls Compound Text does not allow: dropped
            }
        }
        return out
    }

    /// UTF-8 text as Compound Text, when it is Latin-1 representable (then the Latin-1 bytes are
    /// valid Compound Text); nil otherwise.
    public static func encode(_ utf8: [UInt8]) -> [UInt8]? {
        guard TextEncoding.isLatin1Representable(utf8) else { return nil }
        return TextEncoding.utf8ToLatin1(utf8).filter { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A }
    }
}
