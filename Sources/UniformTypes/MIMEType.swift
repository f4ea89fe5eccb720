/// Parsing and normalisation of MIME type strings, without Foundation.
///
/// X target atoms spell MIME types freely (`text/plain;charset=UTF-8`, `text/plain; charset="utf-8"`),
/// so lookups use a fully normalised key while dynamic types keep parameter values as written:
/// an atom like `…;windows_formatname="Star Embed Source (XML)"` must be offered back verbatim.
enum MIMEType {
    struct Parsed: Equatable {
        /// `type/subtype`, lower-cased.
        var essence: String
        /// Parameter names lower-cased; values as written (quotes kept) except `charset`, lower-cased.
        var parameters: [(name: String, value: String)]

        static func == (a: Parsed, b: Parsed) -> Bool {
            a.essence == b.essence && a.parameters.elementsEqual(b.parameters, by: { $0 == $1 })
        }

        /// The canonical spelling: no spaces around separators.
        var normalized: String {
            var out = essence
            for parameter in parameters { out += ";\(parameter.name)=\(parameter.value)" }
            return out
        }

        /// Key for table lookups: also lower-cases and unquotes every parameter value.
        var lookupKey: String {
            var out = essence
            for parameter in parameters { out += ";\(parameter.name)=\(MIMEType.unquote(parameter.value).lowercased())" }
            return out
        }

        func parameter(_ name: String) -> String? {
            parameters.first(where: { $0.name == name }).map { MIMEType.unquote($0.value) }
        }
    }

    /// Parses `type/subtype(;name=value)*`; nil when it is not a MIME type (RFC 2045 tokens).
    static func parse(_ string: String) -> Parsed? {
        let bytes = Array(string.utf8)
        var segments: [ArraySlice<UInt8>] = []
        var start = 0
        var inQuotes = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes && byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            if byte == UInt8(ascii: ";") && !inQuotes {
                segments.append(bytes[start..<index])
                start = index + 1
            }
            index += 1
        }
        if inQuotes { return nil }
        segments.append(bytes[start..<min(index, bytes.count)])

        let essenceBytes = trim(segments[0])
        guard let slash = essenceBytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = essenceBytes[essenceBytes.startIndex..<slash]
        let subtype = essenceBytes[(slash + 1)...]
        guard !type.isEmpty, !subtype.isEmpty, type.allSatisfy(isToken), subtype.allSatisfy(isToken) else { return nil }
        var parsed = Parsed(essence: String(decoding: essenceBytes, as: UTF8.self).lowercased(), parameters: [])

        for segment in segments.dropFirst() {
            let trimmed = trim(segment)
            if trimmed.isEmpty { continue }  // tolerate `text/plain;` and `;;`
            guard let equals = trimmed.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = trim(trimmed[trimmed.startIndex..<equals])
            let value = trim(trimmed[(equals + 1)...])
            guard !name.isEmpty, name.allSatisfy(isToken), !value.isEmpty else { return nil }
            if value.first != UInt8(ascii: "\"") && !value.allSatisfy(isToken) { return nil }
            let nameString = String(decoding: name, as: UTF8.self).lowercased()
            var valueString = String(decoding: value, as: UTF8.self)
            if nameString == "charset" { valueString = unquote(valueString).lowercased() }
            parsed.parameters.append((nameString, valueString))
        }
        return parsed
    }

    /// The normalised lookup key, or nil when `string` is not a MIME type.
    static func lookupKey(_ string: String) -> String? { parse(string)?.lookupKey }

    static func unquote(_ value: String) -> String {
        guard value.utf8.count >= 2, value.utf8.first == UInt8(ascii: "\""), value.utf8.last == UInt8(ascii: "\"") else { return value }
        var out: [UInt8] = []
        var escaped = false
        for byte in value.utf8.dropFirst().dropLast() {
            if !escaped && byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            escaped = false
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isToken(_ byte: UInt8) -> Bool {
        guard byte > 32 && byte < 127 else { return false }
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
             UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="):
            return false
        default:
            return true
        }
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 32 || first == 9 { slice = slice.dropFirst() }
        while let last = slice.last, last == 32 || last == 9 { slice = slice.dropLast() }
        return slice
    }
}
