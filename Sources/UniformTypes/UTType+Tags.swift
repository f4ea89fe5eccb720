extension UTType {
    /// The type for a filename extension (no leading dot): the first declared type with that
    /// extension that conforms to `supertype`, else a dynamic type conforming to it. Nil only for
    /// invalid input (empty, a leading dot, a `/`), as on Apple platforms.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        guard let type = TypeResolver(database: .system).type(filenameExtension: filenameExtension, conformingTo: supertype) else {
            return nil
        }
        self = type
    }

    /// The type for a MIME type, matched case-insensitively with parameters normalised
    /// (`text/plain; charset=UTF-8` is `public.utf8-plain-text`), through shared-mime-info aliases;
    /// else a dynamic type conforming to `supertype` and to whatever shared-mime-info's subclass
    /// graph reaches. Nil only when the string is not a MIME type.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        guard let type = TypeResolver(database: .system).type(mimeType: mimeType, conformingTo: supertype) else { return nil }
        self = type
    }

    /// The type for a tag of any class; `supertype == nil` accepts any declared match and makes
    /// dynamic types conform to `public.data`.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let type = TypeResolver(database: .system).type(tag: tag, tagClass: tagClass, conformingTo: supertype) else {
            return nil
        }
        self = type
    }

    /// Every declared type carrying the tag and conforming to `supertype`, in table order; when none
    /// does, the one dynamic type `init(tag:tagClass:conformingTo:)` would make.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        let registry = TypeRegistry.system
        let indices: [Int]
        switch tagClass {
        case .mimeType: indices = MIMEType.parse(tag).map { TypeResolver(database: .system).declaredIndices(forMIME: $0) } ?? []
        case .filenameExtension: indices = registry.indices(forExtension: tag)
        case .xAtom: indices = registry.indices(forAtom: tag)
        default: indices = []
        }
        let declared = indices.map(UTType.init(declaredIndex:)).filter { type in supertype.map { type.conforms(to: $0) } ?? true }
        if !declared.isEmpty { return declared }
        return UTType(tag: tag, tagClass: tagClass, conformingTo: supertype).map { [$0] } ?? []
    }

    /// Every type in the built-in table, in table order (for listings and tests).
    public static var allDeclared: [UTType] {
        TypeRegistry.system.declarations.indices.map(UTType.init(declaredIndex:))
    }
}
