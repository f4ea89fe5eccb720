/// Guesses the type of untyped data from its first bytes, for `xpb copy` without `-t`.
///
/// Magic numbers first (an image is never text), then UTF-8 validity: binary data must never be
/// offered as text, and valid UTF-8 is what every text target can carry.
public enum ContentSniffer {
    /// PNG/JPEG/GIF/WebP/BMP/PDF by magic; SVG when valid UTF-8 starts with markup and has `<svg`
    /// in its first 4 KiB; other valid UTF-8 (and empty data) is UTF-8 text; anything else data.
    public static func sniff(_ bytes: [UInt8]) -> UTType {
        if let signature = signature(of: bytes) { return signature.type }
        guard TextEncoding.isValidUTF8(bytes) else { return .data }
        if isSVG(bytes) { return .svg }
        return .utf8PlainText
    }

    /// Whether `sniff` calls these bytes `.utf8PlainText`, decided without naming a type: the
    /// type table is loaded on first use of any `UTType`, and the everyday copy of text must not
    /// pay for it (it was a sixth of `echo hi | xpb copy`).
    public static func isUTF8PlainText(_ bytes: [UInt8]) -> Bool {
        signature(of: bytes) == nil && TextEncoding.isValidUTF8(bytes) && !isSVG(bytes)
    }

    private enum Signature {
        case png, jpeg, gif, webP, bmp, pdf

        var type: UTType {
            switch self {
            case .png: .png
            case .jpeg: .jpeg
            case .gif: .gif
            case .webP: .webP
            case .bmp: .bmp
            case .pdf: .pdf
            }
        }
    }

    private static func signature(of bytes: [UInt8]) -> Signature? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webP }
        if isBMP(bytes) { return .bmp }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return nil
    }

    /// `BM` alone is too weak (it starts ordinary words), so the DIB header size must be a known one.
    private static func isBMP(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 26, bytes[0] == UInt8(ascii: "B"), bytes[1] == UInt8(ascii: "M") else { return false }
        let headerSize = UInt32(bytes[14]) | UInt32(bytes[15]) << 8 | UInt32(bytes[16]) << 16 | UInt32(bytes[17]) << 24
        return [12, 40, 52, 56, 64, 108, 124].contains(headerSize)
    }

    /// Markup first (after a BOM and whitespace), so prose that mentions `<svg` stays text.
    private static func isSVG(_ bytes: [UInt8]) -> Bool {
        var head = bytes.prefix(4096)
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head = head.dropFirst(3) }
        head = head.drop(while: { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 })
        guard head.first == UInt8(ascii: "<") else { return false }
        let needle = Array("<svg".utf8)
        guard head.count >= needle.count else { return false }
        var index = head.startIndex
        while index + needle.count <= head.endIndex {
            if head[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
