import FoundationEssentials
import UniformTypes

/// The work behind each `Pasteboard` member, run as a task on the display's session; the
/// blocking members and their `async` counterparts share it. Results are Sendable values: the
/// caller's side turns them into `String`, `URL`, `Data` or dictionaries.
enum PasteboardOperations {
    typealias Operation<T: Sendable> = @Sendable (isolated DisplaySession, XAtom) async throws(PasteboardError) -> T

    // MARK: Reading

    static func strings() -> Operation<[String]> {
        { session, selection async throws(PasteboardError) in
            try await session.items(of: selection) { $0.conforms(to: .plainText) }.compactMap(text(of:))
        }
    }

    static func urls() -> Operation<[String]> {
        { session, selection async throws(PasteboardError) in
            try await session.items(of: selection) { $0.conforms(to: .url) }.compactMap { item in
                (item.representation(for: .url)).map { String(decoding: $0.bytes, as: UTF8.self) }
            }
        }
    }

    static func images() -> Operation<[[UInt8]]> {
        { session, selection async throws(PasteboardError) in
            try await session.items(of: selection) { $0.conforms(to: .image) }.compactMap { item in
                (item.representation(for: .png) ?? item.representation(for: .image))?.bytes
            }
        }
    }

    static func colors() -> Operation<[RGBA16Color]> {
        { session, selection async throws(PasteboardError) in
            try await session.items(of: selection) { $0 == .x11Color }.compactMap { item in
                item.representation(for: .x11Color).flatMap { try? RGBA16Color(bytes: $0.bytes) }
            }
        }
    }

    static func offers(_ types: [UTType]) -> Operation<Bool> {
        { session, selection async throws(PasteboardError) in try await session.offersAny(of: types, in: selection) }
    }

    static func items() -> Operation<[StoredItem]> {
        { session, selection async throws(PasteboardError) in try await session.items(of: selection) { _ in true } }
    }

    static func numberOfItems() -> Operation<Int> {
        // Only URLs can add items a foreign owner offers (several in one text/uri-list).
        { session, selection async throws(PasteboardError) in try await session.items(of: selection) { $0.conforms(to: .url) }.count }
    }

    static func types() -> Operation<[String]> {
        { session, selection async throws(PasteboardError) in try await session.offeredTypes(of: selection).map(\.identifier) }
    }

    static func contains(_ types: [UTType]) -> Operation<Bool> {
        { session, selection async throws(PasteboardError) in
            let offered = try await session.offeredTypes(of: selection)
            return types.contains { wanted in offered.contains { $0.conforms(to: wanted) } }
        }
    }

    /// The representation of `type` in every item, or in the first only.
    static func representations(_ type: UTType, firstOnly: Bool) -> Operation<[StoredItem.Representation?]> {
        { session, selection async throws(PasteboardError) in try await session.representations(of: type, in: selection, firstOnly: firstOnly) }
    }

    static func indices(containing types: [UTType]) -> Operation<[Int]> {
        { session, selection async throws(PasteboardError) in
            let items = try await session.items(of: selection) { type in types.contains { type.conforms(to: $0) } }
            return items.indices.filter { !items[$0].representations.isEmpty }
        }
    }

    static func metadata() -> Operation<[Pasteboard.ItemMetadata]> {
        { session, selection async throws(PasteboardError) in try await session.items(of: selection) { _ in false }.map(\.metadata) }
    }

    // MARK: Writing

    static func write(_ items: [StoredItem], options: [Pasteboard.Option]) -> Operation<Void> {
        Pasteboard.installExitHook
        var metadata = Pasteboard.ItemMetadata()
        for option in options {
            switch option {
            case .expirationDate(let date): metadata.expirationDate = date
            case .localOnly(let localOnly): metadata.isLocalOnly = localOnly
            }
        }
        let marked = items.map { item in
            var item = item
            item.metadata.isLocalOnly = metadata.isLocalOnly
            item.metadata.expirationDate = metadata.expirationDate
            return item
        }
        let expiry = metadata.expirationDate.map { date in
            Duration.milliseconds(max(1, Int64((date.timeIntervalSinceNow * 1000).rounded(.up))))
        }
        return { session, selection async throws(PasteboardError) in
            try await session.oneChangeAtATime { () throws(PasteboardError) in try session.write(marked, to: selection, expiry: expiry) }
        }
    }

    static func append(_ items: [StoredItem]) -> Operation<Void> {
        Pasteboard.installExitHook
        return { session, selection async throws(PasteboardError) in
            try await session.oneChangeAtATime { () async throws(PasteboardError) in
                let existing = try await session.items(of: selection) { _ in true }.filter { !$0.representations.isEmpty }
                try session.write(existing + items, to: selection, expiry: nil)
            }
        }
    }

    // MARK: Items for the common properties

    static func textItem(_ string: String) -> StoredItem {
        StoredItem([.init(type: .utf8PlainText, bytes: Array(string.utf8))])
    }

    /// A URL item also offers the URL as text (a file URL as its path, as file managers do).
    static func urlItem(_ url: URL) -> StoredItem {
        let text = url.isFileURL ? url.path : url.absoluteString
        return StoredItem([
            .init(type: url.isFileURL ? .fileURL : .url, bytes: Array(url.absoluteString.utf8)),
            .init(type: .utf8PlainText, bytes: Array(text.utf8)),
        ])
    }

    static func imageItem(_ png: Data) -> StoredItem {
        StoredItem([.init(type: .png, bytes: Array(png))])
    }

    static func colorItem(_ color: RGBA16Color) -> StoredItem {
        StoredItem([.init(type: .x11Color, bytes: color.bytes)])
    }

    static func text(of item: StoredItem) -> String? {
        guard let representation = item.representation(for: .utf8PlainText) ?? item.representation(for: .plainText),
            PasteboardType.isUTF8Text(representation.type)
        else { return nil }
        return String(decoding: representation.bytes, as: UTF8.self)
    }
}
