public import FoundationEssentials
public import UniformTypes

extension Pasteboard {
    // MARK: Strings

    /// The string of the first item that has one; setting it replaces the content with one
    /// text item (nil clears the pasteboard).
    public var string: String? {
        get { strings?.first }
        set { strings = newValue.map { [$0] } }
    }

    /// The string of every item that has one, nil when none has; setting it writes one item
    /// per string.
    public var strings: [String]? {
        get { nonEmpty(try? run(PasteboardOperations.strings())) }
        set { setStoredItems((newValue ?? []).map(PasteboardOperations.textItem)) }
    }

    // MARK: URLs

    /// The URL of the first item that has one; setting it writes the URL and its text.
    public var url: URL? {
        get { urls?.first }
        set { urls = newValue.map { [$0] } }
    }

    /// The URL of every item that has one (files included); setting it writes one item per
    /// URL, each also offering its text. Other clients see them all in `text/uri-list`.
    public var urls: [URL]? {
        get { nonEmpty((try? run(PasteboardOperations.urls()))?.compactMap { URL(string: $0) }) }
        set { setStoredItems((newValue ?? []).map(PasteboardOperations.urlItem)) }
    }

    // MARK: Images

    /// The image of the first item that has one: PNG data when a PNG is offered, else the image
    /// in its own format. Setting it offers the data as `image/png`.
    public var image: Data? {
        get { images?.first }
        set { images = newValue.map { [$0] } }
    }

    /// The image of every item that has one; setting it writes one PNG item per image.
    public var images: [Data]? {
        get { nonEmpty((try? run(PasteboardOperations.images()))?.map { Data($0) }) }
        set { setStoredItems((newValue ?? []).map(PasteboardOperations.imageItem)) }
    }

    // MARK: Colors

    /// The color of the first item that has one (`application/x-color`); setting it writes it.
    public var color: RGBA16Color? {
        get { colors?.first }
        set { colors = newValue.map { [$0] } }
    }

    /// The color of every item that has one; setting it writes one item per color.
    public var colors: [RGBA16Color]? {
        get { nonEmpty(try? run(PasteboardOperations.colors())) }
        set { setStoredItems((newValue ?? []).map(PasteboardOperations.colorItem)) }
    }

    // MARK: What is there, from TARGETS alone

    /// Whether any item offers text. Looks only at the owner's `TARGETS`.
    public var hasStrings: Bool { (try? run(PasteboardOperations.offers([.plainText]))) ?? false }
    /// Whether any item offers a URL or a file. Looks only at the owner's `TARGETS`.
    public var hasURLs: Bool { (try? run(PasteboardOperations.offers([.url]))) ?? false }
    /// Whether any item offers an image. Looks only at the owner's `TARGETS`.
    public var hasImages: Bool { (try? run(PasteboardOperations.offers([.image]))) ?? false }
    /// Whether any item offers a color. Looks only at the owner's `TARGETS`.
    public var hasColors: Bool { (try? run(PasteboardOperations.offers([.x11Color]))) ?? false }

    // MARK: Items

    /// Every item: UTI → `String` (text), `URL` (URLs and files), `RGBA16Color` (`org.x.color`)
    /// or `Data`. Setting it replaces the content; an empty array clears the pasteboard.
    public var items: [[String: Any]] {
        get { ((try? run(PasteboardOperations.items())) ?? []).map(\.dictionary) }
        set { setItems(newValue) }
    }

    /// The number of items.
    public var numberOfItems: Int { (try? run(PasteboardOperations.numberOfItems())) ?? 0 }

    /// The metadata of every item: whether it is local-only or sensitive, when it expires. Other
    /// xpb processes read it with the items; a foreign owner's item has only `isSensitive`.
    public var itemMetadata: [ItemMetadata] { (try? run(PasteboardOperations.metadata())) ?? [] }

    /// Appends items to the pasteboard's current items (read from the owner) and takes over.
    ///
    /// - Parameter items: dictionaries of UTI (or MIME type) → `String`, `URL`, `Data`,
    ///   `[UInt8]` or `RGBA16Color`.
    public func addItems(_ items: [[String: Any]]) {
        _ = try? run(PasteboardOperations.append(items.map(StoredItem.init(dictionary:))))
    }

    /// Replaces the content with `items`.
    ///
    /// - Parameters:
    ///   - items: dictionaries of UTI (or MIME type) → `String`, `URL`, `Data`, `[UInt8]` or
    ///     `RGBA16Color`. The type `org.nspasteboard.ConcealedType` marks an item as a secret.
    ///   - options: `.expirationDate(_:)` clears the selection at that time if it is still ours;
    ///     `.localOnly(true)` marks the items as never to be synced to another display or machine.
    public func setItems(_ items: [[String: Any]], options: [Option] = []) {
        _ = try? run(PasteboardOperations.write(items.map(StoredItem.init(dictionary:)), options: options))
    }

    func setStoredItems(_ items: [StoredItem]) {
        _ = try? run(PasteboardOperations.write(items, options: []))
    }

    private func nonEmpty<T>(_ values: [T]?) -> [T]? {
        guard let values, !values.isEmpty else { return nil }
        return values
    }
}
