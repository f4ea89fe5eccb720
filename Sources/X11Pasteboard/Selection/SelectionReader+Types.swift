public import UniformTypes

extension SelectionReader {
    /// The types the owner of `selection` offers, one per type in the owner's order, the way
    /// `Pasteboard.types` reports them (every text target counts as UTF-8 text).
    ///
    /// - Throws: as `targets(of:)`.
    public func offeredTypes(of selection: XAtom) throws(PasteboardError) -> [UTType] {
        let names = connection.names(of: try targets(of: selection)).compactMap { $0 }
        return ForeignOffer(targets: names).candidates.map(\.type)
    }
}
