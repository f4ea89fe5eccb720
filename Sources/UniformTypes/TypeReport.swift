/// What `xpb type TYPE` prints: everything the translator knows of one type.
public struct TypeReport: Sendable, Equatable {
    /// The identifier (`dyn.a…` for dynamic types).
    public var identifier: String
    /// Every supertype, transitive, sorted by identifier so the output is stable.
    public var conformsTo: [String]
    /// MIME types, preferred first.
    public var mimeTypes: [String]
    /// Filename extensions without dots, preferred first.
    public var extensions: [String]
    /// The X targets xpb offers for this type, in offer order (more useful than the atom tags
    /// alone: it is what other clients will see).
    public var atoms: [String]
    /// Whether the type is dynamic.
    public var isDynamic: Bool
    /// The description, nil for dynamic types.
    public var description: String?

    /// Collects the report for a type.
    public init(_ type: UTType) {
        identifier = type.identifier
        conformsTo = type.supertypes.map(\.identifier).sorted()
        mimeTypes = type.tags[.mimeType] ?? []
        extensions = type.tags[.filenameExtension] ?? []
        atoms = XTargetCrosswalk.offeredTargets(for: type)
        isDynamic = type.isDynamic
        description = type.localizedDescription
    }

    /// The report as a JSON value, keys in the documented order.
    public func jsonValue() -> JSONValue {
        .object([
            JSONMember("identifier", .string(identifier)),
            JSONMember("conformsTo", .array(conformsTo.map(JSONValue.string))),
            JSONMember("mimeTypes", .array(mimeTypes.map(JSONValue.string))),
            JSONMember("extensions", .array(extensions.map(JSONValue.string))),
            JSONMember("atoms", .array(atoms.map(JSONValue.string))),
            JSONMember("isDynamic", .bool(isDynamic)),
            JSONMember("description", description.map(JSONValue.string) ?? .null),
        ])
    }

    /// One-line JSON object for `--json`.
    public func jsonObject() -> String { jsonValue().serialized }

    /// Aligned `key: value` lines for people; empty lists print as `-`.
    public func text() -> String {
        func list(_ values: [String]) -> String { values.isEmpty ? "-" : values.joined(separator: ", ") }
        return [
            "identifier:  \(identifier)",
            "description: \(description ?? "-")",
            "conforms to: \(list(conformsTo))",
            "MIME types:  \(list(mimeTypes))",
            "extensions:  \(list(extensions))",
            "X targets:   \(list(atoms))",
            "dynamic:     \(isDynamic ? "yes" : "no")",
        ].joined(separator: "\n") + "\n"
    }
}
