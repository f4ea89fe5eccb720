/// Indexes over the built-in declarations, built once on first use.
///
/// Lookups are by lower-cased identifier, normalised MIME key, lower-cased extension and exact atom
/// name. Where several rows carry one tag all are kept in table order, so a conformance filter can
/// pick the first that fits, as `UTTypeCreatePreferredIdentifierForTag` does.
struct TypeRegistry: Sendable {
    let declarations: [TypeDeclaration]
    let indexByKey: [String: Int]
    let indicesByMIME: [String: [Int]]
    let indicesByExtension: [String: [Int]]
    let indicesByAtom: [String: [Int]]
    /// Direct parents as row indices, resolved once (every parent must itself be declared).
    let parentIndices: [[Int]]

    init(_ declarations: [TypeDeclaration]) {
        self.declarations = declarations
        var byKey: [String: Int] = [:]
        var byMIME: [String: [Int]] = [:]
        var byExtension: [String: [Int]] = [:]
        var byAtom: [String: [Int]] = [:]
        for (index, declaration) in declarations.enumerated() {
            byKey[declaration.identifier.lowercased()] = byKey[declaration.identifier.lowercased()] ?? index
            for mime in declaration.mimeTypes {
                if let key = MIMEType.lookupKey(mime) { byMIME[key, default: []].append(index) }
            }
            for ext in declaration.extensions { byExtension[ext.lowercased(), default: []].append(index) }
            for atom in declaration.atoms { byAtom[atom, default: []].append(index) }
        }
        indexByKey = byKey
        indicesByMIME = byMIME
        indicesByExtension = byExtension
        indicesByAtom = byAtom
        parentIndices = declarations.map { declaration in
            declaration.conformsTo.compactMap { byKey[$0.lowercased()] }
        }
    }

    /// The table every `UTType` uses.
    static let system = TypeRegistry(systemTypeDeclarations)

    func index(ofIdentifier identifier: String) -> Int? { indexByKey[identifier.lowercased()] }

    /// Rows carrying a MIME type, by its normalised key; `[]` when `mime` is not a MIME type.
    func indices(forMIMEType mime: String) -> [Int] {
        guard let key = MIMEType.lookupKey(mime) else { return [] }
        return indicesByMIME[key] ?? []
    }

    func indices(forExtension ext: String) -> [Int] { indicesByExtension[ext.lowercased()] ?? [] }

    func indices(forAtom atom: String) -> [Int] { indicesByAtom[atom] ?? [] }
}
