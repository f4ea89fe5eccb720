/// Tag → type resolution against the built-in table plus one shared-mime-info database.
///
/// Kept apart from `UTType` so tests can resolve against a fixture database while the public
/// initialisers use `SharedMimeInfo.system`.
struct TypeResolver {
    let registry = TypeRegistry.system
    let database: SharedMimeInfo

    func type(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> UTType? {
        guard !tag.isEmpty else { return nil }
        switch tagClass {
        case .mimeType: return type(mimeType: tag, conformingTo: supertype)
        case .filenameExtension: return type(filenameExtension: tag, conformingTo: supertype)
        case .xAtom: return type(atom: tag, conformingTo: supertype)
        default: return dynamic(tagClass: tagClass.rawValue, tag: tag, conformingTo: supertype, extraParents: [])
        }
    }

    /// Built-in tag first, then through shared-mime-info aliases, else a dynamic type whose
    /// conformance also includes what shared-mime-info's subclass graph reaches (types.md §5.2).
    /// The dynamic tag keeps parameter values as written, so an unknown atom is offered back verbatim.
    func type(mimeType: String, conformingTo supertype: UTType?) -> UTType? {
        guard let parsed = MIMEType.parse(mimeType) else { return nil }
        let candidates = declaredIndices(forMIME: parsed)
        if let match = firstConforming(candidates, to: supertype) { return match }
        let essence = database.canonical(parsed.essence)
        return dynamic(
            tagClass: UTTagClass.mimeType.rawValue, tag: parsed.normalized, conformingTo: supertype,
            extraParents: builtinAncestors(ofMIME: essence))
    }

    /// Extensions are matched case-insensitively and must come without their dot (Apple's rule).
    func type(filenameExtension ext: String, conformingTo supertype: UTType?) -> UTType? {
        guard !ext.isEmpty, !ext.hasPrefix("."), !ext.contains("/"), !ext.utf8.contains(0) else { return nil }
        let lower = ext.lowercased()
        if let match = firstConforming(registry.indices(forExtension: lower), to: supertype) { return match }
        return dynamic(tagClass: UTTagClass.filenameExtension.rawValue, tag: lower, conformingTo: supertype, extraParents: [])
    }

    /// Atoms are case-sensitive; an atom with a `/` is a MIME type (that is how X names them).
    func type(atom: String, conformingTo supertype: UTType?) -> UTType? {
        guard !atom.isEmpty, !atom.utf8.contains(0) else { return nil }
        if let match = firstConforming(registry.indices(forAtom: atom), to: supertype) { return match }
        if atom.contains("/"), let byMIME = type(mimeType: atom, conformingTo: supertype) { return byMIME }
        return dynamic(tagClass: UTTagClass.xAtom.rawValue, tag: atom, conformingTo: supertype, extraParents: [])
    }

    /// The type a decoded `dyn.a…` identifier stands for, with the same extra parents a fresh
    /// resolution of its MIME tag would get.
    func dynamicType(_ payload: DynamicIdentifier.Payload, identifier: String) -> UTType {
        var parents = payload.conformsTo.map { UTType($0) ?? UTType(importedAs: $0, conformingTo: nil) }
        if payload.tagClass == UTTagClass.mimeType.rawValue, let parsed = MIMEType.parse(payload.tag) {
            for extra in builtinAncestors(ofMIME: database.canonical(parsed.essence)) where !parents.contains(extra) {
                parents.append(extra)
            }
        }
        return UTType(identifier: identifier.lowercased(), kind: .dynamic(payload, parents: parents))
    }

    // MARK: - Helpers

    /// Exact normalised MIME match, then without parameters, then through the alias map both ways.
    func declaredIndices(forMIME parsed: MIMEType.Parsed) -> [Int] {
        var result = registry.indices(forMIMEType: parsed.lookupKey)
        func add(_ indices: [Int]) {
            for index in indices where !result.contains(index) { result.append(index) }
        }
        if !parsed.parameters.isEmpty { add(registry.indices(forMIMEType: parsed.essence)) }
        let canonical = database.canonical(parsed.essence)
        if canonical != parsed.essence { add(registry.indices(forMIMEType: canonical)) }
        for alias in database.aliases(of: canonical) { add(registry.indices(forMIMEType: alias)) }
        return result
    }

    private func firstConforming(_ indices: [Int], to supertype: UTType?) -> UTType? {
        for index in indices {
            let type = UTType(declaredIndex: index)
            if let supertype, !type.conforms(to: supertype) { continue }
            return type
        }
        return nil
    }

    private func dynamic(tagClass: String, tag: String, conformingTo supertype: UTType?, extraParents: [UTType]) -> UTType {
        let conformance = supertype ?? .data
        let payload = DynamicIdentifier.Payload(conformsTo: [conformance.identifier], tagClass: tagClass, tag: tag)
        var parents = [conformance]
        for extra in extraParents where !parents.contains(extra) { parents.append(extra) }
        let identifier = DynamicIdentifier.make(tagClass: tagClass, tag: tag, conformsTo: conformance.identifier)
        return UTType(identifier: identifier, kind: .dynamic(payload, parents: parents))
    }

    /// Breadth-first over shared-mime-info parents (explicit and implicit), stopping on each path at
    /// the first MIME type the built-in table declares. `application/x-executable` is not followed:
    /// fdo files scripts under it, the UTI world files them under source code (types.md §5.2).
    /// `image/*`, `audio/*`, `video/*` add `public.image`, `public.audio`, `public.movie`: fdo has no
    /// umbrella types for them and a clipboard wants `hasImages` to work (a deliberate extension).
    func builtinAncestors(ofMIME essence: String) -> [UTType] {
        var result: [UTType] = []
        var visited: Set<String> = [essence]
        var queue = parentMIMETypes(of: essence)
        var position = 0
        while position < queue.count {
            let parent = queue[position]
            position += 1
            guard visited.insert(parent).inserted, parent != "application/x-executable" else { continue }
            if let parsed = MIMEType.parse(parent), let index = declaredIndices(forMIME: parsed).first {
                let type = UTType(declaredIndex: index)
                if !result.contains(type) { result.append(type) }
                continue
            }
            queue.append(contentsOf: parentMIMETypes(of: parent))
        }
        let umbrellas: [(prefix: String, type: UTType)] = [("image/", .image), ("audio/", .audio), ("video/", .movie)]
        for umbrella in umbrellas where essence.hasPrefix(umbrella.prefix) && !result.contains(umbrella.type) {
            result.append(umbrella.type)
        }
        return result
    }

    /// Explicit fdo parents (canonicalised) plus the spec's implicit rule that every `text/*` is a
    /// `text/plain`. The other implicit rule (everything is `application/octet-stream`) is already
    /// covered by a dynamic type's default conformance to `public.data`.
    private func parentMIMETypes(of essence: String) -> [String] {
        var parents = database.parents(of: essence)
        if essence.hasPrefix("text/") && essence != "text/plain" && !parents.contains("text/plain") {
            parents.append("text/plain")
        }
        return parents
    }
}
