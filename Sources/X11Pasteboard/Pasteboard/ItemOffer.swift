import UniformTypes

/// What a pasteboard write offers to X clients.
///
/// Other clients see the first item's representations, with every URL and file of all items in
/// `text/uri-list`; another xpb reads all items, with their metadata, from `ItemArchive.target`.
enum ItemOffer {
    static func content(for items: [StoredItem]) -> SelectionContent {
        let isSensitive = items.contains { $0.metadata.isSensitive }
        // The hint is added by SelectionContent for sensitive content; offered twice otherwise.
        let first = items[0].representations.filter { $0.type != .concealed }.map { (type: $0.type, data: $0.bytes) }
        var content = SelectionContent(representations: first, isSensitive: isSensitive)
        let uris = items.flatMap(uris(of:))
        if items.count > 1, !uris.isEmpty {
            let list = SelectionContent.Entry(
                target: "text/uri-list", value: ServedValue(bytes: URIList.serialize(uris), type: "text/uri-list"))
            if let index = content.entries.firstIndex(where: { $0.target == "text/uri-list" }) {
                content.entries[index] = list
            } else {
                content.entries.append(list)
            }
        }
        let archive = ItemArchive.encode(items)
        content.entries.append(.init(target: ItemArchive.target, value: ServedValue(bytes: archive, type: ItemArchive.target)))
        return content
    }

    /// The URIs of an item's file or URL representation (one URL, or several one per line).
    static func uris(of item: StoredItem) -> [String] {
        guard let representation = item.representation(for: .fileURL) ?? item.representation(for: .url) else { return [] }
        return URIList.entries(String(decoding: representation.bytes, as: UTF8.self))
    }
}
