/// The bytes of each target: encoding what an owner serves, decoding what a reader gets.
extension XTargetCrosswalk {
    // MARK: - Bytes

    /// The bytes, reply type and property format to serve when a requestor asks for `target` and
    /// the representation is `data` of `type`; nil when this pair does not convert (including text
    /// targets for data that is not valid UTF-8: binary is never served as text).
    ///
    /// Text as `STRING` becomes Latin-1 with `?` for the rest (LF line ends, no other controls);
    /// `TEXT` replies `STRING` when the text fits Latin-1, else `UTF8_STRING` (Emacs' policy);
    /// `COMPOUND_TEXT` only for Latin-1 text. MIME text targets reply with the target as type.
    public static func encode(_ data: [UInt8], of type: UTType, asTarget target: String) -> (bytes: [UInt8], replyType: String, format: Int)? {
        switch type {
        case .url, .fileURL:
            let uris = URIList.entries(String(decoding: data, as: UTF8.self))
            guard TextEncoding.isValidUTF8(data), !uris.isEmpty else { return nil }
            switch target {
            case "text/uri-list": return (URIList.serialize(uris), target, 8)
            case "text/x-moz-url": return (MozURL.serialize(uris.map { MozURL(url: $0, title: $0) }), target, 8)
            case "_NETSCAPE_URL": return (MozURL.serializeNetscape([MozURL(url: uris[0], title: uris[0])]), target, 8)
            case "x-special/gnome-copied-files" where type == .fileURL:
                return (GnomeCopiedFiles(operation: .copy, uris: uris).serialized(), target, 8)
            default:
                let text = type == .fileURL ? uris.map { FileURL.path(fromURI: $0) ?? $0 } : uris
                return encodeText(Array(text.joined(separator: "\n").utf8), asTarget: target)
            }
        case .x11Color:
            guard data.count == 8, target == "application/x-color" else { return nil }
            return (data, target, 16)
        case .concealed:
            guard target == ConcealedContent.hintTarget else { return nil }
            return (Array(ConcealedContent.hintValue.utf8), target, 8)
        case .x11Pixmap:
            guard target == "PIXMAP", data.count == 4 else { return nil }
            return (data, "PIXMAP", 32)
        default:
            break
        }
        if isTextRoot(type) {
            return canonicalUTF8(data, of: type).flatMap { encodeText($0, asTarget: target) }
        }
        if matches(target, offeredTargets(for: type)) && !textOfferTargets.contains(target) {
            return (data, target, 8)
        }
        if type.conforms(to: .plainText), TextEncoding.isValidUTF8(data) { return encodeText(data, asTarget: target) }
        return nil
    }

    /// Converts what an owner sent for `target` (with property type `replyType`) into the
    /// canonical bytes of `type`.
    ///
    /// Text: decoded by the reply type when it names an encoding (`UTF8_STRING`, `STRING`,
    /// `COMPOUND_TEXT`, `C_STRING`), else by the target; `TEXT`/`C_STRING`/uncharsetted `text/*`
    /// is UTF-8 when valid, else Latin-1; UTF-16 honours a BOM. One trailing NUL is dropped, and
    /// `text/plain*` line ends become LF. Invalid UTF-8 under a UTF-8 target is repaired with U+FFFD
    /// rather than refused. URLs: the first URI of `text/uri-list`, the URL of `text/x-moz-url` or
    /// `_NETSCAPE_URL`; file URLs: the first `file:` URI of `x-special/gnome-copied-files` or
    /// `text/uri-list`. Throws `ConversionError` for malformed data or an impossible pair.
    public static func decode(_ bytes: [UInt8], target: String, replyType: String, to type: UTType) throws -> [UInt8] {
        switch type {
        case .url:
            return Array(try decodeURIs(bytes, target: target, replyType: replyType)[0].utf8)
        case .fileURL:
            let uris = try decodeURIs(bytes, target: target, replyType: replyType)
            guard let first = uris.first(where: { FileURL.pathBytes(fromURI: $0) != nil }) else {
                throw ConversionError.malformed(format: target, reason: "no file: URI")
            }
            return Array(first.utf8)
        case .html:
            guard MIMEType.parse(target)?.essence == "text/html" else { break }
            return decodeHTML(bytes)
        case .x11Color:
            guard target == "application/x-color" else { break }
            return try RGBA16Color(bytes: bytes).bytes
        default:
            break
        }
        if isTextRoot(type) {
            let utf8 = try decodeText(bytes, target: target, replyType: replyType, for: type)
            switch type {
            case .utf16PlainText: return TextEncoding.utf8ToUTF16(utf8, order: .littleEndian)
            case .utf16ExternalPlainText: return TextEncoding.utf8ToUTF16(utf8, order: .bigEndian, byteOrderMark: true)
            default: return utf8
            }
        }
        if matches(target, readTargets(for: type)) || XTargetCrosswalk.type(forTarget: target) == type { return bytes }
        if type.conforms(to: .plainText), isTextTarget(target) {
            return try decodeText(bytes, target: target, replyType: replyType, for: type)
        }
        throw ConversionError.notConvertible(target: target, type: type.identifier)
    }

    /// Every URI a URL-carrying target holds, in order (for `xpb paste --files` and multi-item
    /// pastes; `decode` returns only the first). Text targets count when their text is one URI
    /// per line.
    public static func decodeURIs(_ bytes: [UInt8], target: String, replyType: String) throws -> [String] {
        let uris: [String]
        switch target {
        case "x-special/gnome-copied-files": uris = try GnomeCopiedFiles.parse(bytes).uris
        case "text/uri-list": uris = try URIList.parse(bytes)
        case "text/x-moz-url": uris = try MozURL.parse(bytes).map(\.url)
        case "_NETSCAPE_URL": uris = try MozURL.parseNetscape(bytes).map(\.url)
        default:
            guard isTextTarget(target) else {
                throw ConversionError.notConvertible(target: target, type: UTType.url.identifier)
            }
            let text = try decodeText(bytes, target: target, replyType: replyType, for: .utf8PlainText)
            uris = try URIList.parse(text)
        }
        guard !uris.isEmpty else { throw ConversionError.malformed(format: target, reason: "no URI") }
        return uris
    }
}
