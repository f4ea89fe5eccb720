/// `text/uri-list` (RFC 2483): one URI per line, `#` comments.
///
/// Readers meet every dialect (GTK/Qt CRLF-terminated, Chromium `\n`-joined, Firefox one URI with no
/// newline, Qt 3 a trailing NUL), so parsing is lenient about line ends and strict about content.
public enum URIList {
    /// The URIs in order. Accepts LF or CRLF, blank lines, `#` comments, trailing NULs, a UTF-16 BOM;
    /// an absolute path line becomes a `file://` URI. Throws `ConversionError.malformed` for
    /// non-UTF-8 data, embedded NULs or a line that is no URI.
    public static func parse(_ bytes: [UInt8]) throws -> [String] {
        var data = bytes
        if TextEncoding.utf16ByteOrderMark(data) != nil { data = TextEncoding.utf16ToUTF8(data) }
        while data.last == 0 { data.removeLast() }
        guard !data.contains(0) else { throw ConversionError.malformed(format: "text/uri-list", reason: "contains a NUL byte") }
        guard TextEncoding.isValidUTF8(data) else { throw ConversionError.malformed(format: "text/uri-list", reason: "not UTF-8") }
        var uris: [String] = []
        for (number, line) in lines(String(decoding: data, as: UTF8.self)).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let uri = uri(fromLine: line) else {
                throw ConversionError.malformed(format: "text/uri-list", reason: "line \(number + 1) is not a URI")
            }
            uris.append(uri)
        }
        return uris
    }

    /// One line of a list as a URI: an absolute path becomes a `file://` URI, a URI stays as it
    /// is; nil for anything else.
    public static func uri(fromLine line: String) -> String? {
        if line.hasPrefix("/") { return FileURL.uri(forPath: line) }
        return isURI(line) ? line : nil
    }

    /// The entries of a list that is known to be ours (one URI per line, as the library stores
    /// several URLs): lines trimmed, blank lines and `#` comments left out, nothing checked.
    public static func entries(_ text: String) -> [String] {
        lines(text).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// RFC 2483's wire form: every URI followed by CRLF.
    public static func serialize(_ uris: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for uri in uris {
            out.append(contentsOf: uri.utf8)
            out.append(contentsOf: [13, 10])
        }
        return out
    }

    /// Lines split on LF with CR and surrounding spaces trimmed. Works on bytes: as Characters,
    /// "\r\n" is one grapheme and would not split on "\n".
    static func lines(_ text: String) -> [String] {
        Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false).map { line in
            var slice = line
            while let first = slice.first, first == 32 || first == 9 || first == 13 { slice = slice.dropFirst() }
            while let last = slice.last, last == 32 || last == 9 || last == 13 { slice = slice.dropLast() }
            return String(decoding: slice, as: UTF8.self)
        }
    }

    /// Whether a string starts with an RFC 3986 scheme and holds no control characters or spaces.
    public static func isURI(_ string: String) -> Bool {
        var sawScheme = false
        var position = 0
        for byte in string.utf8 {
            if byte < 0x21 || byte == 0x7F { return false }
            if !sawScheme {
                let isAlpha = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                if byte == UInt8(ascii: ":") {
                    if position == 0 { return false }
                    sawScheme = true
                } else if !(isAlpha || (position > 0 && (isDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")))) {
                    return false
                }
            }
            position += 1
        }
        return sawScheme
    }
}
