/// Why bytes could not be converted between an X target and a type.
///
/// Deliberately small: callers print `description` after `xpb: ` and move on.
public enum ConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The target cannot be turned into that type at all (e.g. `image/png` as `public.url`).
    case notConvertible(target: String, type: String)
    /// The bytes do not follow the format's rules.
    case malformed(format: String, reason: String)

    /// One line, for an error message.
    public var description: String {
        switch self {
        case .notConvertible(let target, let type): return "cannot convert target \(target) to \(type)"
        case .malformed(let format, let reason): return "malformed \(format): \(reason)"
        }
    }
}
