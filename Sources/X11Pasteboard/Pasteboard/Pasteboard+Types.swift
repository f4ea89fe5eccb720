public import FoundationEssentials
import UniformTypes

extension Pasteboard {
    /// The types (UTIs) of the first item. Looks only at the owner's `TARGETS`.
    public var types: [String] { (try? run(PasteboardOperations.types())) ?? [] }

    /// Whether the first item offers any of `pasteboardTypes` (UTIs, or MIME types), or a
    /// subtype of one. Looks only at the owner's `TARGETS`.
    public func contains(pasteboardTypes: [String]) -> Bool {
        (try? run(PasteboardOperations.contains(pasteboardTypes.map(PasteboardType.resolve)))) ?? false
    }

    /// Whether any of the items at `itemSet` (nil: all) offers any of `pasteboardTypes`.
    public func contains(pasteboardTypes: [String], inItemSet itemSet: [Int]?) -> Bool {
        guard let found = self.itemSet(withPasteboardTypes: pasteboardTypes) else { return false }
        guard let itemSet else { return true }
        return !Set(found).isDisjoint(with: itemSet)
    }

    /// The first item's data for `pasteboardType` (a UTI, or a MIME type): that type, or the
    /// first of its subtypes the item has; text as UTF-8, URLs as their UTF-8 string.
    public func data(forPasteboardType pasteboardType: String) -> Data? {
        representation(pasteboardType).map { Data($0.bytes) }
    }

    /// The first item's value for `pasteboardType`: a `String` for text, a `URL` for URLs,
    /// an `RGBA16Color` for `org.x.color`, `Data` otherwise.
    public func value(forPasteboardType pasteboardType: String) -> Any? {
        representation(pasteboardType).map(PasteboardType.value(of:))
    }

    /// Replaces the content with one item holding `data` as `pasteboardType`.
    public func setData(_ data: Data, forPasteboardType pasteboardType: String) {
        setStoredItems([StoredItem([.init(type: PasteboardType.resolve(pasteboardType), bytes: Array(data))])])
    }

    /// Replaces the content with one item holding `value` (`String`, `URL`, `Data`, `[UInt8]`
    /// or `RGBA16Color`) as `pasteboardType`; other values are ignored.
    public func setValue(_ value: Any, forPasteboardType pasteboardType: String) {
        guard let bytes = PasteboardType.bytes(of: value) else { return }
        setStoredItems([StoredItem([.init(type: PasteboardType.resolve(pasteboardType), bytes: bytes)])])
    }

    /// The indices of the items that offer any of `pasteboardTypes`, nil when none does.
    ///
    /// UIPasteboard returns an `IndexSet`, which is not part of FoundationEssentials; this
    /// returns the indices in ascending order.
    public func itemSet(withPasteboardTypes pasteboardTypes: [String]) -> [Int]? {
        let indices = try? run(PasteboardOperations.indices(containing: pasteboardTypes.map(PasteboardType.resolve)))
        guard let indices, !indices.isEmpty else { return nil }
        return indices
    }

    /// The data for `pasteboardType` of each item at `itemSet` (nil: every item) that has it;
    /// nil when none has.
    public func data(forPasteboardType pasteboardType: String, inItemSet itemSet: [Int]?) -> [Data]? {
        let found = representations(pasteboardType, inItemSet: itemSet).map { Data($0.bytes) }
        return found.isEmpty ? nil : found
    }

    /// The values for `pasteboardType` of each item at `itemSet` (nil: every item) that has it;
    /// nil when none has.
    public func values(forPasteboardType pasteboardType: String, inItemSet itemSet: [Int]?) -> [Any]? {
        let found = representations(pasteboardType, inItemSet: itemSet).map(PasteboardType.value(of:))
        return found.isEmpty ? nil : found
    }

    private func representation(_ pasteboardType: String) -> StoredItem.Representation? {
        let operation = PasteboardOperations.representations(PasteboardType.resolve(pasteboardType), firstOnly: true)
        return (try? run(operation))?.first ?? nil
    }

    private func representations(_ pasteboardType: String, inItemSet itemSet: [Int]?) -> [StoredItem.Representation] {
        let operation = PasteboardOperations.representations(PasteboardType.resolve(pasteboardType), firstOnly: false)
        let all = (try? run(operation)) ?? []
        let chosen = itemSet.map { set in set.filter { all.indices.contains($0) }.map { all[$0] } } ?? all
        return chosen.compactMap { $0 }
    }
}
