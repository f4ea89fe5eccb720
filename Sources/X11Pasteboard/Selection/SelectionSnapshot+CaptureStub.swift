// TEMPORARY stand-in for the lead's `SelectionSnapshot.capture` (capture-api.md) until it lands
// on main; deleted when this branch is rebased onto it. Same signature, simplest behaviour.
extension SelectionSnapshot {
    /// Stand-in: reads every offered target (MULTIPLE when offered), nil for secret content.
    public static func capture(
        _ selection: XAtom, with reader: SelectionReader, sizeLimit: Int = 256 << 20
    ) throws(PasteboardError) -> SelectionSnapshot? {
        let offer = try reader.offer(of: selection)
        if offer.marksConcealment { return nil }
        let connection = reader.connection
        let atoms = connection.atoms(offer.targets)
        let results = try reader.read(selection, targets: atoms, viaMultiple: offer.supportsMultiple)
        var representations: [Representation] = []
        var total = 0
        for (name, result) in zip(offer.targets, results) {
            guard case let .success(answer) = result else { continue }
            if total + answer.bytes.count > sizeLimit { continue }
            total += answer.bytes.count
            representations.append(Representation(
                target: name, type: connection.name(of: answer.type) ?? name, format: answer.type == .atom ? 32 : 8,
                bytes: answer.bytes))
        }
        let snapshot = SelectionSnapshot(representations: representations)
        return snapshot.isSensitive ? nil : snapshot
    }
}
