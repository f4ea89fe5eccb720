/// A minimal JSON value and serializer for `--json` output, whose objects keep their key order.
///
/// Not FoundationEssentials' JSONEncoder: on Linux it writes an object's keys in hash order, which
/// changes from run to run (its only stable order, `.sortedKeys`, is not the documented order of
/// SPEC §2 that scripts and tests read), and it leaves U+2028/U+2029 unescaped.
indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A string, escaped on output.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with keys in the given order.
    case object([JSONMember])

    /// Compact JSON text (no spaces), one line.
    var serialized: String {
        var out = ""
        out.reserveCapacity(4096)
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): out += JSONValue.quote(value)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                out += JSONValue.quote(member.key)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal: quotes, backslash and control characters escaped (RFC 8259 §7);
    /// U+2028/U+2029 too, so the output is also safe inside JavaScript.
    static func quote(_ string: String) -> String {
        // Most strings need no escape: copy them whole (listings quote thousands of texts).
        // 0xE2 starts U+2028/U+2029, so any string with it takes the careful path.
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F && $0 != 0xE2 }) {
            return "\"" + string + "\""
        }
        let hex = Array("0123456789abcdef")
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}", "\u{2029}", "\u{00}"..."\u{1F}", "\u{7F}":
                let value = Int(scalar.value)
                out += "\\u"
                for shift in [12, 8, 4, 0] { out.append(hex[(value >> shift) & 15]) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One key/value pair of a `JSONValue.object`.
struct JSONMember: Sendable, Equatable {
    /// The key.
    var key: String
    /// The value.
    var value: JSONValue

    /// Pairs a key with a value.
    init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
