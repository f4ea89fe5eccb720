/// UTI ↔ X selection target translation: what to offer, what to ask for, and how to convert the
/// bytes (types.md §4.9).
///
/// Canonical bytes per type (what the library stores and what `decode` produces): text types hold
/// UTF-8 (`public.utf16-plain-text` UTF-16LE, `public.utf16-external-plain-text` BOM + UTF-16BE);
/// `public.url`/`public.file-url` hold the UTF-8 URL (several URLs, one per line, are accepted when
/// encoding); `org.x.color` holds the 8-byte `application/x-color` payload; everything else is
/// carried byte for byte under its MIME type.
public enum XTargetCrosswalk {
    /// Targets that belong to the selection protocol, never to content (filtered from listings),
    /// as a list: building a `Set` costs a process its first conformance search, which a
    /// one-shot `xpb paste` notices.
    public static let protocolTargetNames = [
        "TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INCR", "ATOM_PAIR",
        "INSERT_SELECTION", "INSERT_PROPERTY", "LENGTH", "TARGET_SIZES",
    ]

    /// `protocolTargetNames` as a set.
    public static let protocolTargets = Set(protocolTargetNames)

    /// The text targets, in the order that works with every surveyed client: UTF-8 first, Latin-1
    /// for ICCCM-only readers, `TEXT` for Xt, plain `text/plain` last since GTK reads it as Latin-1.
    public static let textOfferTargets = ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain"]

    /// Reading text: lossless encodings first, then the legacy ones by how much they can hold.
    public static let textReadTargets = ["UTF8_STRING", "text/plain;charset=utf-8", "COMPOUND_TEXT", "STRING", "TEXT", "text/plain"]

    // MARK: - Type → targets

    /// The targets to offer, in order, for a representation of `type`.
    ///
    /// Text offers the five text targets; URLs add `text/uri-list` and `text/x-moz-url` before a
    /// text fallback; file URLs `text/uri-list` and `x-special/gnome-copied-files` before the paths
    /// as text; HTML only `text/html` (markup is not plain text). Other declared types offer their
    /// MIME tag(s), plus the text targets when they are plain text (CSV, source code); a type with
    /// no MIME tag offers its atoms, else its own identifier, which only another xpb understands
    /// but which keeps the type intact between xpb processes. A dynamic type offers its tag.
    public static func offeredTargets(for type: UTType) -> [String] {
        if isTextRoot(type) { return textOfferTargets }
        switch type {
        case .fileURL: return ["text/uri-list", "x-special/gnome-copied-files"] + textOfferTargets
        case .url: return ["text/uri-list", "text/x-moz-url"] + textOfferTargets
        case .html: return ["text/html"]
        case .png: return ["image/png"]
        case .vCard: return ["text/vcard", "text/x-vcard"]
        default: break
        }
        if let targets = dynamicTargets(of: type) { return targets }
        guard let declaration = type.declaration else { return [type.identifier] }
        if declaration.mimeTypes.isEmpty {
            return declaration.atoms.isEmpty ? [type.identifier] : declaration.atoms
        }
        // RTF travels under three names (types.md §4.6); XML under two. Other rows list aliases
        // only for reading, so offer just the preferred name.
        let names = [UTType.rtf, UTType.xml].contains(type) ? declaration.mimeTypes : [declaration.mimeTypes[0]]
        return names + declaration.atoms + (type.conforms(to: .plainText) ? textOfferTargets : [])
    }

    /// A dynamic type travels under the tag it was made from (a MIME type or an atom name), else
    /// under its own identifier, which only another xpb understands; nil for declared types.
    private static func dynamicTargets(of type: UTType) -> [String]? {
        guard case .dynamic(let payload, _) = type.kind else { return nil }
        if payload.tagClass == UTTagClass.mimeType.rawValue || payload.tagClass == UTTagClass.xAtom.rawValue {
            return [payload.tag]
        }
        return [type.identifier]
    }

    /// The targets to try, best first, when reading `type` from an owner. Match them against the
    /// owner's `TARGETS` with `bestTarget(for:among:)`, which ignores MIME case and spacing.
    public static func readTargets(for type: UTType) -> [String] {
        if isTextRoot(type) { return textReadTargets }
        switch type {
        case .url: return ["text/x-moz-url", "text/uri-list", "_NETSCAPE_URL"]
        case .fileURL: return ["x-special/gnome-copied-files", "text/uri-list"]
        case .html: return ["text/html", "text/html;charset=utf-8"]
        default: break
        }
        if let targets = dynamicTargets(of: type) { return targets }
        guard let declaration = type.declaration else { return [type.identifier] }
        let targets = declaration.mimeTypes.filter { !$0.contains("\"") } + declaration.atoms
        return targets.isEmpty ? [type.identifier] : targets
    }

    /// The first of `readTargets(for:)` the owner offers, spelled as the owner spells it. MIME
    /// names match case-insensitively with parameters normalised (`text/plain;charset=UTF-8`).
    public static func bestTarget(for type: UTType, among offered: [String]) -> String? {
        for wanted in readTargets(for: type) {
            if let exact = offered.first(where: { $0 == wanted }) { return exact }
            if let key = MIMEType.lookupKey(wanted), let match = offered.first(where: { MIMEType.lookupKey($0) == key }) {
                return match
            }
        }
        return nil
    }

    // MARK: - Target → type

    /// The type a target carries; nil for protocol targets (`TARGETS`, `MULTIPLE`…) and empty names.
    /// MIME-named targets resolve as MIME types (unknown ones dynamically), UTI-named targets
    /// (another xpb's private offers) as that type, and other unknown atoms to a dynamic type
    /// that remembers the atom.
    public static func type(forTarget atomName: String) -> UTType? {
        guard !atomName.isEmpty, !protocolTargets.contains(atomName) else { return nil }
        let resolver = TypeResolver(database: .system)
        if let index = TypeRegistry.system.indices(forAtom: atomName).first { return UTType(declaredIndex: index) }
        if atomName.contains("/"), let byMIME = resolver.type(mimeType: atomName, conformingTo: nil) { return byMIME }
        if atomName.contains("."), let byIdentifier = UTType(atomName) { return byIdentifier }
        return resolver.type(atom: atomName, conformingTo: nil)
    }

    /// The MIME type equivalent of a target, for `xpb types`' third column.
    ///
    /// A MIME-named target is its own MIME type (as the owner wrote it). `UTF8_STRING` is
    /// `text/plain;charset=utf-8`, `STRING` `text/plain;charset=iso-8859-1` (ICCCM fixes Latin-1),
    /// `TEXT` `text/plain` (encoding chosen per reply), `ISO10646-1` `text/plain;charset=utf-16`,
    /// a UTI-named target its type's preferred MIME type. Nil (print empty) for targets with no
    /// honest MIME equivalent: `COMPOUND_TEXT` (ISO 2022), `C_STRING`, `PIXMAP`, `_NETSCAPE_URL`
    /// (same data as `text/uri-list`, different bytes), protocol targets and unknown atoms.
    public static func mimeType(forTarget atomName: String) -> String? {
        switch atomName {
        case "UTF8_STRING": return "text/plain;charset=utf-8"
        case "STRING": return "text/plain;charset=iso-8859-1"
        case "TEXT": return "text/plain"
        case "ISO10646-1": return "text/plain;charset=utf-16"
        default: break
        }
        if protocolTargets.contains(atomName) { return nil }
        if atomName.contains("/") { return MIMEType.parse(atomName) != nil ? atomName : nil }
        if atomName.contains("."), let type = UTType(atomName) { return type.preferredMIMEType }
        return nil
    }

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
            guard target == "x-kde-passwordManagerHint" else { return nil }
            return (Array("secret".utf8), target, 8)
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

    // MARK: - Helpers

    static func isTextRoot(_ type: UTType) -> Bool {
        type == .plainText || type == .utf8PlainText || type == .utf16PlainText || type == .utf16ExternalPlainText
    }

    private static func isTextTarget(_ target: String) -> Bool {
        if ["UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "C_STRING", "ISO10646-1"].contains(target) { return true }
        guard target.contains("/"), let type = UTType(tag: target, tagClass: .mimeType, conformingTo: nil) else { return false }
        return type.conforms(to: .plainText)
    }

    private static func matches(_ target: String, _ candidates: [String]) -> Bool {
        if candidates.contains(target) { return true }
        guard let key = MIMEType.lookupKey(target) else { return false }
        return candidates.contains { MIMEType.lookupKey($0) == key }
    }

    /// The UTF-8 text of a text representation, or nil when it is not text.
    private static func canonicalUTF8(_ data: [UInt8], of type: UTType) -> [UInt8]? {
        switch type {
        case .utf16PlainText: return TextEncoding.utf16ToUTF8(data, defaultOrder: .littleEndian)
        case .utf16ExternalPlainText: return TextEncoding.utf16ToUTF8(data, defaultOrder: .bigEndian)
        default: return TextEncoding.isValidUTF8(data) ? data : nil
        }
    }

    private static func encodeText(_ utf8: [UInt8], asTarget target: String) -> (bytes: [UInt8], replyType: String, format: Int)? {
        switch target {
        case "UTF8_STRING", "C_STRING": return (utf8, target, 8)
        case "STRING": return (latin1(utf8), "STRING", 8)
        case "TEXT":
            return TextEncoding.isLatin1Representable(utf8) ? (latin1(utf8), "STRING", 8) : (utf8, "UTF8_STRING", 8)
        case "COMPOUND_TEXT": return CompoundText.encode(utf8).map { ($0, "COMPOUND_TEXT", 8) }
        case "ISO10646-1":
            // Format 16 data is host-order UTF-16; LibreOffice's name for it.
            return (TextEncoding.utf8ToUTF16(utf8, order: .littleEndian), target, 16)
        default: break
        }
        guard let parsed = MIMEType.parse(target), parsed.essence == "text/plain" else { return nil }
        switch parsed.parameter("charset")?.lowercased() {
        case nil, "utf-8", "utf8": return (utf8, target, 8)
        case "iso-8859-1", "latin1", "iso8859-1": return (latin1(utf8), target, 8)
        case "utf-16": return (TextEncoding.utf8ToUTF16(utf8, order: .littleEndian, byteOrderMark: true), target, 8)
        default: return nil
        }
    }

    /// ICCCM `STRING`: Latin-1, LF line ends, no controls but TAB and LF, `?` for the rest.
    private static func latin1(_ utf8: [UInt8]) -> [UInt8] {
        TextEncoding.utf8ToICCCMString(utf8)
    }

    private enum Encoding { case utf8, latin1, compound, utf16, guess }

    private static func encoding(of name: String) -> Encoding? {
        switch name {
        case "UTF8_STRING": return .utf8
        case "STRING": return .latin1
        case "COMPOUND_TEXT": return .compound
        case "TEXT", "C_STRING": return .guess
        case "ISO10646-1": return .utf16
        default: break
        }
        guard let parsed = MIMEType.parse(name), parsed.essence.hasPrefix("text/") else { return nil }
        switch parsed.parameter("charset")?.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "us-ascii": return .latin1
        case "utf-16", "utf-16le", "utf-16be", "ucs-2": return .utf16
        default: return .guess
        }
    }

    private static func decodeText(_ bytes: [UInt8], target: String, replyType: String, for type: UTType) throws -> [UInt8] {
        // The reply type names the encoding when it is one of the ICCCM encodings (TEXT's whole
        // point); otherwise the target does.
        let byReply: Encoding? = ["UTF8_STRING", "STRING", "COMPOUND_TEXT", "C_STRING"].contains(replyType) ? encoding(of: replyType) : nil
        guard let encoding = byReply ?? encoding(of: target) else {
            throw ConversionError.notConvertible(target: target, type: type.identifier)
        }
        var text: [UInt8]
        switch encoding {
        case .utf8: text = TextEncoding.repairingUTF8(bytes)
        case .latin1: text = TextEncoding.latin1ToUTF8(bytes)
        case .compound: text = try CompoundText.decode(bytes)
        case .utf16:
            let order: TextEncoding.UTF16ByteOrder = MIMEType.parse(target)?.parameter("charset")?.lowercased() == "utf-16be" ? .bigEndian : .littleEndian
            text = TextEncoding.utf16ToUTF8(bytes, defaultOrder: order)
        case .guess: text = TextEncoding.isValidUTF8(bytes) ? bytes : TextEncoding.latin1ToUTF8(bytes)
        }
        if text.last == 0 { text.removeLast() }
        if encoding == .latin1 || encoding == .compound { text = text.map { $0 == 0 ? 10 : $0 } }
        if target.contains("/") { text = TextEncoding.normalizingNewlines(text) }
        return text
    }

    /// The Firefox/Chromium charset prefix that `public.html` does not carry.
    private static let htmlMetaPrefix = Array("<meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\">".utf8)

    /// UTF-16 (BOM, or a zero in the first two bytes: old Firefox, Chromium drag and drop) becomes
    /// UTF-8; the browsers' meta prefix and a trailing NUL go.
    private static func decodeHTML(_ bytes: [UInt8]) -> [UInt8] {
        var html = bytes
        if TextEncoding.utf16ByteOrderMark(html) != nil {
            html = TextEncoding.utf16ToUTF8(html)
        } else if html.count >= 2 && html.count % 2 == 0 && (html[0] == 0 || html[1] == 0) {
            html = TextEncoding.utf16ToUTF8(html, defaultOrder: html[0] == 0 ? .bigEndian : .littleEndian)
        }
        while html.last == 0 { html.removeLast() }
        if html.starts(with: htmlMetaPrefix) { html.removeFirst(htmlMetaPrefix.count) }
        return html
    }
}
