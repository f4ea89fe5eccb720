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
    static func dynamicTargets(of type: UTType) -> [String]? {
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

    // MARK: - Helpers

    static func isTextRoot(_ type: UTType) -> Bool {
        type == .plainText || type == .utf8PlainText || type == .utf16PlainText || type == .utf16ExternalPlainText
    }

    static func isTextTarget(_ target: String) -> Bool {
        if ["UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "C_STRING", "ISO10646-1"].contains(target) { return true }
        guard target.contains("/"), let type = UTType(tag: target, tagClass: .mimeType, conformingTo: nil) else { return false }
        return type.conforms(to: .plainText)
    }

    static func matches(_ target: String, _ candidates: [String]) -> Bool {
        if candidates.contains(target) { return true }
        guard let key = MIMEType.lookupKey(target) else { return false }
        return candidates.contains { MIMEType.lookupKey($0) == key }
    }

    /// The UTF-8 text of a text representation, or nil when it is not text.
    static func canonicalUTF8(_ data: [UInt8], of type: UTType) -> [UInt8]? {
        switch type {
        case .utf16PlainText: return TextEncoding.utf16ToUTF8(data, defaultOrder: .littleEndian)
        case .utf16ExternalPlainText: return TextEncoding.utf16ToUTF8(data, defaultOrder: .bigEndian)
        default: return TextEncoding.isValidUTF8(data) ? data : nil
        }
    }

    /// What `encode` serves for UTF-8 text as `target` (`UTF8_STRING`, `STRING`, `TEXT`,
    /// `text/plain;charset=…`), worked out without the type table; nil for a non-text target.
    /// `utf8` must be valid UTF-8.
    public static func encodeUTF8Text(_ utf8: [UInt8], asTarget target: String) -> (bytes: [UInt8], replyType: String, format: Int)? {
        encodeText(utf8, asTarget: target)
    }

    static func encodeText(_ utf8: [UInt8], asTarget target: String) -> (bytes: [UInt8], replyType: String, format: Int)? {
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
    static func latin1(_ utf8: [UInt8]) -> [UInt8] {
        TextEncoding.utf8ToICCCMString(utf8)
    }

    enum Encoding { case utf8, latin1, compound, utf16, guess }

    static func encoding(of name: String) -> Encoding? {
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

    static func decodeText(_ bytes: [UInt8], target: String, replyType: String, for type: UTType) throws -> [UInt8] {
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
    static func decodeHTML(_ bytes: [UInt8]) -> [UInt8] {
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
