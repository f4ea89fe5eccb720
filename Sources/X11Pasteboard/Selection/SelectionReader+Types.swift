public import UniformTypes

extension SelectionReader {
    /// The names of the targets the owner of `selection` offers, in its order, without the
    /// protocol targets (`TARGETS`, `MULTIPLE`…) or repeats. An owner that refuses `TARGETS` is
    /// taken to offer `UTF8_STRING` and `STRING`: owners from before TARGETS was common still
    /// convert text.
    ///
    /// - Throws: `.noOwner`, `.timedOut`, `.protocolViolation`.
    public func offeredTargetNames(of selection: XAtom) throws(PasteboardError) -> [String] {
        let names: [String]
        do {
            names = connection.names(of: try targets(of: selection)).compactMap { $0 }
        } catch where error.code == .targetNotOffered {
            return ["UTF8_STRING", "STRING"]
        }
        // Arrays, not sets: the everyday paste stays clear of the runtime's conformance search.
        var kept: [String] = []
        for name in names where !XTargetCrosswalk.protocolTargetNames.contains(name) && !kept.contains(name) {
            kept.append(name)
        }
        return kept
    }

    /// The types the owner of `selection` offers, one per type in the owner's order, the way
    /// `Pasteboard.types` reports them (every text target counts as UTF-8 text).
    ///
    /// - Throws: as `offeredTargetNames(of:)`.
    public func offeredTypes(of selection: XAtom) throws(PasteboardError) -> [UTType] {
        Self.types(ofTargetNames: try offeredTargetNames(of: selection))
    }

    /// The types that targets offered under these names amount to, one per type, in order.
    public static func types(ofTargetNames names: [String]) -> [UTType] {
        ForeignOffer(targets: names).candidates.map(\.type)
    }
}
