/// The bytes an owner hands over for one target, with the type and format to label them.
public struct ServedValue: Sendable {
    /// The data.
    public var bytes: [UInt8]
    /// The name of the property type (for example `UTF8_STRING`, `STRING`, `image/png`).
    public var type: String
    /// 8 for bytes, 16 or 32 for lists of integers (X property format).
    public var format: Int

    /// Creates a value.
    public init(bytes: [UInt8], type: String, format: Int = 8) {
        self.bytes = bytes
        self.type = type
        self.format = format
    }
}

/// What an owner offers: targets in the order `TARGETS` lists them, each converted on demand.
///
/// Conversions are lazy (a 30 MiB text is re-encoded as Latin-1 only when somebody asks for
/// `STRING`) and each is computed at most once per ownership.
public struct SelectionContent: Sendable {
    /// One offered target.
    public struct Entry: Sendable {
        /// The target atom's name.
        public var target: String
        /// Produces the value; nil refuses the conversion.
        public var produce: @Sendable () -> ServedValue?

        /// Creates an entry that converts lazily.
        public init(target: String, produce: @escaping @Sendable () -> ServedValue?) {
            self.target = target
            self.produce = produce
        }

        /// Creates an entry for bytes that are already in their final form.
        public init(target: String, value: ServedValue) {
            self.target = target
            self.produce = { value }
        }
    }

    /// The offered targets, in order.
    public var entries: [Entry]
    /// Whether the content is a secret (`x-kde-passwordManagerHint: secret`): it is never
    /// handed to a clipboard manager.
    public var isSensitive: Bool

    /// Creates content from entries.
    public init(entries: [Entry], isSensitive: Bool = false) {
        self.entries = entries
        self.isSensitive = isSensitive
    }
}
