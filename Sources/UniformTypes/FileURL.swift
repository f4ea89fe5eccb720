import Glibc

/// Local paths ↔ `file://` URIs, with percent-encoding both ways.
///
/// Linux paths are bytes, not necessarily UTF-8, so the byte-level functions are primary. Writing
/// keeps RFC 3986 `pchar`s and `/` literal (like GLib's `g_filename_to_uri`) and escapes the rest,
/// including `%`, `#`, `?`, spaces and every non-ASCII byte; reading accepts `file:///p`,
/// `file://localhost/p`, `file://host/p` and `file:/p`, as the wild produces all four.
public enum FileURL {
    /// `file://` + the percent-encoded absolute path; a relative path is made absolute against the
    /// current directory first.
    public static func uri(forPath path: String) -> String {
        uri(forPathBytes: Array(path.utf8))
    }

    /// The byte-level form of `uri(forPath:)`.
    public static func uri(forPathBytes path: [UInt8]) -> String {
        var absolute = path
        if absolute.first != UInt8(ascii: "/") {
            var directory = currentDirectory()
            if directory.last != UInt8(ascii: "/") { directory.append(UInt8(ascii: "/")) }
            absolute = directory + absolute
        }
        return "file://" + percentEncode(absolute)
    }

    /// The decoded path bytes of a `file:` URI; nil for other schemes, bad `%` escapes, a NUL, or
    /// no path. Query and fragment are dropped (a literal `#` or `?` in a path arrives as `%23`/`%3F`).
    public static func pathBytes(fromURI uri: String) -> [UInt8]? {
        var bytes = Array(uri.utf8)
        guard bytes.count > 5, String(decoding: bytes[0..<5], as: UTF8.self).lowercased() == "file:" else { return nil }
        bytes.removeFirst(5)
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "?") }) {
            bytes.removeSubrange(end...)
        }
        if bytes.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) {
            bytes.removeFirst(2)
            guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
            bytes.removeSubrange(..<slash)
        }
        guard bytes.first == UInt8(ascii: "/"), let decoded = percentDecode(bytes), !decoded.contains(0) else { return nil }
        return decoded
    }

    /// `pathBytes(fromURI:)` as a String; nil also when the path is not valid UTF-8.
    public static func path(fromURI uri: String) -> String? {
        guard let bytes = pathBytes(fromURI: uri), TextEncoding.isValidUTF8(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes every byte outside RFC 3986 unreserved, sub-delims, `:`, `@` and `/`.
    public static func percentEncode(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            if isKept(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; nil when a `%` is not followed by two hex digits.
    public static func percentDecode(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/".utf8.contains(byte)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func currentDirectory() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return [UInt8(ascii: "/")] }
        return Array(buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) })
    }
}
