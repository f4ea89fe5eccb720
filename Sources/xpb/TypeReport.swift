import UniformTypes

/// What `xpb type TYPE` prints: everything the translator knows of one type.
struct TypeReport: Sendable, Equatable {
    /// The identifier (`dyn.a…` for dynamic types).
    var identifier: String
    /// Every supertype, transitive, sorted by identifier so the output is stable.
    var conformsTo: [String]
    /// MIME types, preferred first.
    var mimeTypes: [String]
    /// Filename extensions without dots, preferred first.
    var extensions: [String]
    /// The X targets xpb offers for this type, in offer order (more useful than the atom tags
    /// alone: it is what other clients will see).
    var atoms: [String]
    /// Whether the type is dynamic.
    var isDynamic: Bool
    /// The description, nil for dynamic types.
    var description: String?

    /// Collects the report for a type.
    init(_ type: UTType) {
        identifier = type.identifier
        conformsTo = type.supertypes.map(\.identifier).sorted()
        mimeTypes = type.tags[.mimeType] ?? []
        extensions = type.tags[.filenameExtension] ?? []
        atoms = XTargetCrosswalk.offeredTargets(for: type)
        isDynamic = type.isDynamic
        description = type.localizedDescription
    }

    /// The report as a JSON value, keys in the documented order.
    func jsonValue() -> JSONValue {
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
    func jsonObject() -> String { jsonValue().serialized }

    /// Aligned `key: value` lines for people; empty lists print as `-`.
    func text() -> String {
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
