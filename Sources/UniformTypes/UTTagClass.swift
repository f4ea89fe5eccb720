/// A kind of tag that names a type outside the UTI world: a filename extension, a MIME type, an X
/// selection target atom.
///
/// Tag classes are themselves identifiers (as in Apple's `UTTagClass`), so the set can grow without
/// new API: any raw value works, the constants are the ones this package understands.
public struct UTTagClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The tag class identifier, e.g. `public.mime-type`.
    public let rawValue: String

    /// Wraps any tag-class identifier, including ones this package has no table for.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions without the leading dot (`png`), matched case-insensitively.
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types (`image/png`), matched case-insensitively with parameters normalised.
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")
    /// X selection target atom names that are not MIME types (`UTF8_STRING`, `STRING`); matched exactly,
    /// as X atoms are case-sensitive.
    public static let xAtom = UTTagClass(rawValue: "org.x.target-atom")

    /// The raw identifier, so that tag classes print the way `tags` dictionaries are keyed elsewhere.
    public var description: String { rawValue }
}
