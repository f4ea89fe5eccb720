import UniformTypes

extension SelectionSnapshot {
    /// Reads every representation the owner of `selection` offers (its `TARGETS` without the
    /// protocol targets), every conversion sent at once (one round trip), and records each
    /// answer's target, type, format and bytes.
    ///
    /// `viaMultiple` asks for them in one `MULTIPLE` request instead, when the owner offers it:
    /// what Qt needs while it waits for a clipboard manager on its way out (it misses
    /// conversions sent side by side then). Anywhere else the default is safer: xsel lists
    /// MULTIPLE and dies of it (BadAtom), and a manager must not kill the owner it keeps.
    ///
    /// The reads share one budget of `sizeLimit` bytes: a representation that would take the
    /// total past it is left out (its read abandoned as soon as it would pass it, so no more
    /// than `sizeLimit` is ever held), and so are targets the owner refuses. Content
    /// marked secret is not read at all: the result is nil. A secret hint that cannot be read
    /// counts as a secret.
    ///
    /// - Throws: `.noOwner`, `.timedOut`, `.protocolViolation` (for `TARGETS` itself),
    ///   `.connectionLost`.
    public static func capture(
        _ selection: XAtom, with reader: SelectionReader, sizeLimit: Int = 256 << 20, viaMultiple: Bool = false
    ) throws(PasteboardError) -> SelectionSnapshot? {
        let connection = reader.connection
        let offer = try reader.offer(of: selection)
        if offer.marksConcealment {
            if offer.targets.contains(UTType.concealed.identifier) { return nil }
            guard let hint = try? reader.read(selection, as: connection.atom(ConcealedContent.hintTarget)),
                !ConcealedContent.isSecret(hint: hint.bytes)
            else { return nil }
        }
        let results = try reader.read(
            selection, targets: connection.atoms(offer.targets), viaMultiple: viaMultiple && offer.supportsMultiple,
            byteLimit: sizeLimit)
        var representations: [Representation] = []
        for (target, result) in zip(offer.targets, results) {
            guard case let .success(value) = result else { continue }
            representations.append(
                Representation(target: target, type: connection.name(of: value.type) ?? target, format: value.format, bytes: value.bytes))
        }
        let snapshot = SelectionSnapshot(representations: representations)
        // The hint may have changed between its read and the rest (a new owner, even).
        return snapshot.isSensitive ? nil : snapshot
    }
}
