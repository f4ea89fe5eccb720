public import UniformTypes

extension TargetOffer {
    /// What an owner that refuses `TARGETS` is taken to offer: owners from before TARGETS was
    /// common still convert text.
    static let ofOwnersWithoutTARGETS = TargetOffer(targets: ["UTF8_STRING", "STRING"])
}

extension SelectionReader {
    /// What the owner of `selection` offers (its `TARGETS` answer). An owner that refuses
    /// `TARGETS` is taken to offer `UTF8_STRING` and `STRING`: owners from before TARGETS was
    /// common still convert text.
    ///
    /// - Throws: `.noOwner`, `.timedOut`, `.protocolViolation`, `.connectionLost`.
    public func offer(of selection: XAtom) throws(PasteboardError) -> TargetOffer {
        do {
            return TargetOffer(targets: connection.names(of: try targets(of: selection)).compactMap { $0 })
        } catch where error.code == .targetNotOffered {
            return .ofOwnersWithoutTARGETS
        }
    }

    /// The names of the targets the owner of `selection` offers, in its order, without the
    /// protocol targets (`TARGETS`, `MULTIPLE`…) or repeats.
    ///
    /// - Throws: as `offer(of:)`.
    public func offeredTargetNames(of selection: XAtom) throws(PasteboardError) -> [String] {
        try offer(of: selection).targets
    }

    /// The types the owner of `selection` offers, one per type in the owner's order, the way
    /// `Pasteboard.types` reports them (every text target counts as UTF-8 text).
    ///
    /// - Throws: as `offer(of:)`.
    public func offeredTypes(of selection: XAtom) throws(PasteboardError) -> [UTType] {
        try offer(of: selection).types
    }

    /// Reads `plan` from the owner of `selection`, whole, converted to the plan's type.
    ///
    /// - Throws: as `convert(_:to:into:)`, and `.protocolViolation` for data the translator
    ///   cannot convert.
    public func read(_ selection: XAtom, plan: ReadPlan) throws(PasteboardError) -> [UInt8] {
        let (replyType, bytes) = try read(selection, as: connection.atom(plan.target))
        do {
            return try plan.decode(bytes, replyType: connection.name(of: replyType) ?? "")
        } catch {
            throw PasteboardError(.protocolViolation, "cannot convert \(plan.target) to \(plan.type?.identifier ?? "its type"): \(error)")
        }
    }
}
