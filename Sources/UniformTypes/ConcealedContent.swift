/// The one rule for content marked secret (KeePassXC, KDE: `x-kde-passwordManagerHint` =
/// `secret`; macOS: `org.nspasteboard.ConcealedType`; `xpb copy --sensitive`): no clipboard
/// manager, history, hand-off or sync ever stores or forwards it.
public enum ConcealedContent {
    /// The X target of the hint.
    public static let hintTarget = "x-kde-passwordManagerHint"
    /// The hint's value that marks a secret.
    public static let hintValue = "secret"

    /// Whether the bytes of a `x-kde-passwordManagerHint` conversion mark a secret.
    public static func isSecret(hint bytes: [UInt8]) -> Bool {
        String(decoding: bytes, as: UTF8.self).trimmingWhitespace() == hintValue
    }

    /// Whether representations of these types make an item a secret.
    public static func marks(_ types: [UTType]) -> Bool {
        types.contains(.concealed)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace || first == "\0" { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace || last == "\0" { slice = slice.dropLast() }
        return slice
    }
}
