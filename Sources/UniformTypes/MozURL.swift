/// `text/x-moz-url` (Firefox, Chromium, Qt): UTF-16 in host order without a BOM, `url\ntitle`
/// pairs; and `_NETSCAPE_URL`, the same lines in UTF-8.
public struct MozURL: Equatable, Sendable {
    /// The URL.
    public var url: String
    /// Its title; empty when the writer gave none (Qt writes just `url\n`).
    public var title: String

    /// Pairs a URL with a title.
    public init(url: String, title: String = "") {
        self.url = url
        self.title = title
    }

    /// Parses `text/x-moz-url`. UTF-16 with a BOM, else UTF-16LE (host order on every X machine
    /// this runs on); data that is valid UTF-8 without NULs is read as UTF-8, since some writers do.
    /// Throws `ConversionError.malformed` for an odd byte count or when the first line is no URI.
    public static func parse(_ bytes: [UInt8]) throws -> [MozURL] {
        let text: [UInt8]
        if TextEncoding.utf16ByteOrderMark(bytes) != nil {
            text = TextEncoding.utf16ToUTF8(bytes)
        } else if !bytes.contains(0) && TextEncoding.isValidUTF8(bytes) {
            text = bytes
        } else {
            guard bytes.count % 2 == 0 else {
                throw ConversionError.malformed(format: "text/x-moz-url", reason: "odd byte count for UTF-16")
            }
            let order: TextEncoding.UTF16ByteOrder = bytes.first == 0 ? .bigEndian : .littleEndian
            text = TextEncoding.utf16ToUTF8(bytes, defaultOrder: order)
        }
        return try lines(text, format: "text/x-moz-url")
    }

    /// Parses `_NETSCAPE_URL` (UTF-8 `url\ntitle`).
    public static func parseNetscape(_ bytes: [UInt8]) throws -> [MozURL] {
        guard TextEncoding.isValidUTF8(bytes) else { throw ConversionError.malformed(format: "_NETSCAPE_URL", reason: "not UTF-8") }
        return try lines(bytes, format: "_NETSCAPE_URL")
    }

    /// `url\ntitle` pairs joined by `\n`, UTF-16LE without BOM (what Chromium writes).
    public static func serialize(_ entries: [MozURL]) -> [UInt8] {
        TextEncoding.utf8ToUTF16(Array(joined(entries).utf8), order: .littleEndian)
    }

    /// The `_NETSCAPE_URL` form: the same lines in UTF-8.
    public static func serializeNetscape(_ entries: [MozURL]) -> [UInt8] { Array(joined(entries).utf8) }

    private static func joined(_ entries: [MozURL]) -> String {
        entries.map { "\($0.url)\n\($0.title)" }.joined(separator: "\n")
    }

    private static func lines(_ utf8: [UInt8], format: String) throws -> [MozURL] {
        var data = utf8
        while data.last == 0 { data.removeLast() }
        let lines = URIList.lines(String(decoding: data, as: UTF8.self))
        var entries: [MozURL] = []
        var index = 0
        while index < lines.count {
            let url = lines[index]
            let title = index + 1 < lines.count ? lines[index + 1] : ""
            index += 2
            if url.isEmpty && title.isEmpty { continue }
            guard URIList.isURI(url) else {
                throw ConversionError.malformed(format: format, reason: "\"\(url.prefix(80))\" is not a URL")
            }
            entries.append(MozURL(url: url, title: title))
        }
        guard !entries.isEmpty else { throw ConversionError.malformed(format: format, reason: "no URL") }
        return entries
    }
}
