/// A Uniform Type Identifier with the members of Apple's `UTType`, backed by the built-in table,
/// shared-mime-info and Apple-compatible dynamic identifiers.
///
/// Identity is the identifier compared case-insensitively (`UTTypeEqual`); `identifier` keeps the
/// declared spelling for display.
public struct UTType: Hashable, Sendable, CustomStringConvertible {
    /// The reverse-DNS identifier, e.g. `public.png`, or `dyn.a…` for a dynamic type.
    public let identifier: String
    private let key: String
    let kind: Kind

    enum Kind: Sendable {
        /// A row of the built-in table.
        case declared(Int)
        /// A `dyn.a…` type; `parents` are its encoded conformance plus what shared-mime-info adds.
        case dynamic(DynamicIdentifier.Payload, parents: [UTType])
        /// An identifier nobody declared here, created by `init(importedAs:)` / `init(exportedAs:)`.
        case undeclared(parents: [UTType])
    }

    init(declaredIndex index: Int) {
        identifier = TypeRegistry.system.declarations[index].identifier
        key = identifier.lowercased()
        kind = .declared(index)
    }

    init(identifier: String, kind: Kind) {
        self.identifier = identifier
        self.key = identifier.lowercased()
        self.kind = kind
    }

    /// A built-in type by identifier; crashes on a typo, which the constant tests catch.
    init(declared identifier: String) {
        guard let index = TypeRegistry.system.index(ofIdentifier: identifier) else {
            preconditionFailure("\(identifier) is not in the built-in type table")
        }
        self.init(declaredIndex: index)
    }

    /// The declared type with this identifier (any case), or the type a valid `dyn.a…` identifier
    /// encodes; nil otherwise, as Apple returns nil for identifiers the system does not know.
    public init?(_ identifier: String) {
        if let index = TypeRegistry.system.index(ofIdentifier: identifier) {
            self.init(declaredIndex: index)
        } else if let payload = DynamicIdentifier.decode(identifier) {
            self = TypeResolver(database: .system).dynamicType(payload, identifier: identifier)
        } else {
            return nil
        }
    }

    /// A type this process uses although nobody declared it (Apple's imported declaration): the
    /// declared type when the identifier is known, else an undeclared one conforming to `parentType`
    /// (default `.data`, as Apple assumes). Lets a bridge carry another program's private types.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        if let known = UTType(identifier) {
            self = known
        } else {
            self.init(identifier: identifier, kind: .undeclared(parents: [parentType ?? .data]))
        }
    }

    /// The same as `init(importedAs:conformingTo:)` here: there is no system registry to export to.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(importedAs: identifier, conformingTo: parentType)
    }

    /// Equality is case-insensitive on the identifier, as `UTTypeEqual` defines it.
    public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.key == rhs.key }

    /// Hashes the lower-cased identifier so that hashing agrees with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// The identifier, so that types print as their UTI.
    public var description: String { identifier }

    var declaration: TypeDeclaration? {
        if case .declared(let index) = kind { return TypeRegistry.system.declarations[index] }
        return nil
    }

    /// Direct parents in declared order (the order property inheritance searches).
    var directParents: [UTType] {
        switch kind {
        case .declared(let index): return TypeRegistry.system.parentIndices[index].map(UTType.init(declaredIndex:))
        case .dynamic(_, let parents), .undeclared(let parents): return parents
        }
    }

    /// Tags by class; only classes with at least one tag appear, first tag preferred.
    public var tags: [UTTagClass: [String]] {
        switch kind {
        case .declared(let index):
            let declaration = TypeRegistry.system.declarations[index]
            var tags: [UTTagClass: [String]] = [:]
            if !declaration.mimeTypes.isEmpty { tags[.mimeType] = declaration.mimeTypes }
            if !declaration.extensions.isEmpty { tags[.filenameExtension] = declaration.extensions }
            if !declaration.atoms.isEmpty { tags[.xAtom] = declaration.atoms }
            return tags
        case .dynamic(let payload, _):
            return [UTTagClass(rawValue: payload.tagClass): [payload.tag]]
        case .undeclared:
            return [:]
        }
    }

    /// The first filename extension, without the dot.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The first MIME type.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// Every type this one conforms to, directly or indirectly, without itself.
    public var supertypes: Set<UTType> {
        var seen: Set<UTType> = []
        var stack = directParents
        while let next = stack.popLast() {
            if next != self, seen.insert(next).inserted { stack.append(contentsOf: next.directParents) }
        }
        return seen
    }

    /// Reflexive and transitive conformance through the parent DAG.
    public func conforms(to type: UTType) -> Bool {
        self == type || supertypes.contains(type)
    }

    /// Conforms to `type` and is not `type` itself.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    /// `type` conforms to this one and is not this one.
    public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }

    /// Made up from a tag at run time (`dyn.a…`); never declared.
    public var isDynamic: Bool {
        if case .dynamic = kind { return true }
        return false
    }

    /// In the built-in table.
    public var isDeclared: Bool {
        if case .declared = kind { return true }
        return false
    }

    /// In Apple's reserved `public.` domain.
    public var isPublic: Bool { key.hasPrefix("public.") }

    /// A short English description, inherited depth-first from the parents when a type has none
    /// (Apple's rule); dynamic types never have one, as on Apple platforms.
    public var localizedDescription: String? {
        switch kind {
        case .declared(let index):
            let description = TypeRegistry.system.declarations[index].description
            if !description.isEmpty { return description }
        case .dynamic:
            return nil
        case .undeclared:
            break
        }
        for parent in directParents {
            if let description = parent.localizedDescription { return description }
        }
        return nil
    }
}
