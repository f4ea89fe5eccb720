/// A minimal JSON value and serializer, because the CLI's `--json` output must not pull in
/// Foundation. Objects keep their key order so output is stable and readable.
public indirect enum JSONValue: Sendable, Equatable {
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
    public var serialized: String {
        var out = ""
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
    public static func quote(_ string: String) -> String {
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
public struct JSONMember: Sendable, Equatable {
    /// The key.
    public var key: String
    /// The value.
    public var value: JSONValue

    /// Pairs a key with a value.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
