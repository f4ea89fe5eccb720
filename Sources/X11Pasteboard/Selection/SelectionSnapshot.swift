public import UniformTypes

/// Every representation of a selection at one moment, exactly as its owner served them: the
/// target names in the owner's order, the type and format of each answer, and the bytes.
///
/// It is what the clipboard manager keeps when an owner goes away, what `xpb sync` mirrors and
/// what a bridge carries; serving it (`content`) answers every target with the same type, format
/// and bytes, so a paste after the owner died cannot tell the difference.
public struct SelectionSnapshot: Sendable, Equatable {
    /// One target's answer.
    public struct Representation: Sendable, Equatable {
        /// The target atom's name (`UTF8_STRING`, `text/html`, `image/png`).
        public var target: String
        /// The name of the property type the owner answered with (often the target itself;
        /// `ATOM` for lists of atoms, `STRING` for Latin-1 text).
        public var type: String
        /// The property format: 8 for bytes, 16 or 32 for lists of integers.
        public var format: Int
        /// The data, format-32 items packed as 32-bit values (as on the wire).
        public var bytes: [UInt8]

        /// Creates a representation.
        public init(target: String, type: String, format: Int = 8, bytes: [UInt8]) {
            self.target = target
            self.type = type
            self.format = format
            self.bytes = bytes
        }

        /// The UTI this target is named as (nil for targets that carry no type of their own).
        public var uniformType: UTType? { TargetOffer.type(forTarget: target) }
    }

    /// The representations, in the owner's `TARGETS` order, without protocol targets.
    public var representations: [Representation]

    /// Creates a snapshot.
    public init(representations: [Representation]) {
        self.representations = representations
    }

    /// The bytes of every representation together.
    public var size: Int { representations.reduce(0) { $0 + $1.bytes.count } }

    /// The representation of `target`, if the snapshot has one.
    public func representation(forTarget target: String) -> Representation? {
        representations.first { $0.target == target }
    }

    /// Whether the content is marked secret (`x-kde-passwordManagerHint` = `secret`, or an
    /// `org.nspasteboard.ConcealedType` target): such a snapshot is never stored or forwarded.
    public var isSensitive: Bool {
        if representation(forTarget: UTType.concealed.identifier) != nil { return true }
        if let hint = representation(forTarget: ConcealedContent.hintTarget) {
            return ConcealedContent.isSecret(hint: hint.bytes)
        }
        return false
    }

    /// The text of the snapshot as UTF-8, when it has any (for listings and search).
    public var text: String? {
        for target in ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT"] {
            guard let representation = representation(forTarget: target) else { continue }
            if target == "STRING" || representation.type == "STRING" {
                return String(representation.bytes.map { Character(Unicode.Scalar($0)) })
            }
            return String(decoding: representation.bytes, as: UTF8.self)
        }
        return nil
    }

    /// What an owner serves to hand out exactly these representations: each target answered
    /// with its recorded type, format and bytes.
    public var content: SelectionContent {
        SelectionContent(
            entries: representations.map { representation in
                SelectionContent.Entry(
                    target: representation.target,
                    value: ServedValue(bytes: representation.bytes, type: representation.type, format: representation.format))
            },
            isSensitive: isSensitive)
    }
}
