/// Apple-compatible dynamic identifiers (`dyn.a…`) for tags no declared type carries.
///
/// The format is Apple's private one as reverse-engineered publicly (types.md §1.6): the payload
/// `?0=<conforms-to>:<tag-class>=<tag>` with one-character abbreviations for well-known strings,
/// base-32 encoded with the alphabet `abcdefghkmnpqrstuvwxyz0123456789`, prefixed by `dyn.a`.
/// Matching it means `dyn.ah62d4rv4ge81g6pq` means "extension sql" here as it does on a Mac.
enum DynamicIdentifier {
    /// What a dynamic identifier says: the types it conforms to and the one tag it stands for.
    struct Payload: Equatable, Sendable {
        var conformsTo: [String]
        var tagClass: String
        var tag: String
    }

    private static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)
    private static let alphabetIndex: [UInt8: UInt8] = {
        var index: [UInt8: UInt8] = [:]
        for (value, character) in alphabet.enumerated() { index[character] = UInt8(value) }
        return index
    }()

    private static let abbreviations: [(code: String, string: String)] = [
        ("0", "UTTypeConformsTo"), ("1", "public.filename-extension"), ("2", "com.apple.ostype"),
        ("3", "public.mime-type"), ("4", "com.apple.nspboard-type"), ("5", "public.url-scheme"),
        ("6", "public.data"), ("7", "public.text"), ("8", "public.plain-text"), ("9", "public.utf16-plain-text"),
        ("A", "com.apple.traditional-mac-plain-text"), ("B", "public.image"), ("C", "public.video"),
        ("D", "public.audio"), ("E", "public.directory"), ("F", "public.folder"),
    ]

    private static func abbreviate(_ string: String) -> String {
        abbreviations.first(where: { $0.string == string })?.code ?? string
    }

    private static func expand(_ code: String) -> String {
        abbreviations.first(where: { $0.code == code })?.string ?? code
    }

    /// Encodes a tag with one conformance. The tag goes last so that it may contain `:` and `=`.
    static func make(tagClass: String, tag: String, conformsTo: String?) -> String {
        var payload = "?"
        if let conformsTo { payload += "0=\(abbreviate(conformsTo)):" }
        payload += "\(abbreviate(tagClass))=\(tag)"
        return "dyn.a" + base32(Array(payload.utf8))
    }

    /// Decodes a `dyn.a` identifier (any case); nil unless it is exactly what `make` would produce
    /// for some payload, so that every accepted identifier round-trips.
    static func decode(_ identifier: String) -> Payload? {
        let lower = identifier.lowercased()
        guard lower.hasPrefix("dyn.a") else { return nil }
        let encoded = Array(lower.utf8.dropFirst(5))
        guard !encoded.isEmpty, let bytes = unbase32(encoded), base32(bytes) == String(decoding: encoded, as: UTF8.self) else {
            return nil
        }
        guard TextEncoding.isValidUTF8(bytes) else { return nil }
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasPrefix("?") { text = text.dropFirst() }

        var conformsTo: [String] = []
        while text.hasPrefix("0=") {
            let end = text.firstIndex(of: ":") ?? text.endIndex
            let value = text[text.index(text.startIndex, offsetBy: 2)..<end]
            guard !value.isEmpty else { return nil }
            conformsTo.append(expand(String(value)))
            guard end < text.endIndex else { return nil }  // a conformance without a tag describes nothing
            text = text[text.index(after: end)...]
        }
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let key = text[..<equals]
        let tag = text[text.index(after: equals)...]
        guard !key.isEmpty, !tag.isEmpty, !key.contains(":") else { return nil }
        return Payload(conformsTo: conformsTo, tagClass: expand(String(key)), tag: String(tag))
    }

    private static func base32(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 8 / 5 + 1)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((accumulator >> UInt32(bits)) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int((accumulator << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func unbase32(_ characters: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = alphabetIndex[character] else { return nil }
            accumulator = (accumulator << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        return out
    }
}
