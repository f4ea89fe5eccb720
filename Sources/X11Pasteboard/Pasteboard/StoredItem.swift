public import FoundationEssentials
import UniformTypes

extension Pasteboard {
    /// What is known of an item besides its data: the options it was written with.
    ///
    /// Another xpb process reads it from the private items target, so a sync or a bridge can
    /// honour `.localOnly` and skip secrets.
    public struct ItemMetadata: Sendable, Hashable {
        /// Written with `.localOnly(true)`: never to be synced to another display or machine.
        public var isLocalOnly: Bool
        /// Written with `.expirationDate(_:)`: the selection is cleared at that time.
        public var expirationDate: Date?
        /// The item holds `org.nspasteboard.ConcealedType` (on X `x-kde-passwordManagerHint`):
        /// no clipboard manager, history or sync keeps it.
        public var isSensitive: Bool

        /// Creates metadata; the defaults describe an ordinary item.
        public init(isLocalOnly: Bool = false, expirationDate: Date? = nil, isSensitive: Bool = false) {
            self.isLocalOnly = isLocalOnly
            self.expirationDate = expirationDate
            self.isSensitive = isSensitive
        }
    }

    /// An option of `setItems(_:options:)`, as UIPasteboard's `OptionsKey` has them.
    public enum Option: Sendable, Hashable {
        /// The selection is cleared at this time if it is still ours.
        case expirationDate(Date)
        /// The items must never be synced to another display or machine.
        case localOnly(Bool)
    }
}

/// One item as the engine keeps it: its representations in order of preference, each holding
/// the canonical bytes of its type (see `XTargetCrosswalk`), and its metadata.
struct StoredItem: Sendable, Hashable {
    struct Representation: Sendable, Hashable {
        var type: UTType
        var bytes: [UInt8]
    }

    var representations: [Representation]
    var metadata = Pasteboard.ItemMetadata()

    init(_ representations: [Representation], metadata: Pasteboard.ItemMetadata = .init()) {
        self.representations = representations
        self.metadata = metadata
        if ConcealedContent.marks(representations.map(\.type)) { self.metadata.isSensitive = true }
    }

    var types: [UTType] { representations.map(\.type) }

    /// The representation a reader asking for `type` gets: that type exactly, else the first that
    /// conforms to it (asking for `public.image` finds a PNG, `public.text` finds UTF-8 text).
    func representation(for type: UTType) -> Representation? {
        representations.first { $0.type == type } ?? representations.first { $0.type.conforms(to: type) }
    }

    /// Only the representations `keep` accepts; the metadata stays.
    func filtered(_ keep: (UTType) -> Bool) -> StoredItem {
        var copy = self
        copy.representations = representations.filter { keep($0.type) }
        return copy
    }
}

// MARK: - UIPasteboard's dictionaries

extension StoredItem {
    /// An item from a UIPasteboard-style dictionary: UTI (or MIME type, X target, `.ext`) →
    /// `String`, `URL`, `Data`, `[UInt8]` or `RGBA16Color`. Keys that name no type and values of
    /// other kinds are left out.
    init(dictionary: [String: Any]) {
        var representations: [Representation] = []
        for (key, value) in dictionary {
            let type = PasteboardType.resolve(key)
            guard let bytes = PasteboardType.bytes(of: value) else { continue }
            representations.append(Representation(type: type, bytes: bytes))
        }
        // Dictionaries have no order; rich types first keeps what other clients see stable.
        representations.sort { lhs, rhs in
            let (l, r) = (PasteboardType.rank(lhs.type), PasteboardType.rank(rhs.type))
            return l != r ? l < r : lhs.type.identifier < rhs.type.identifier
        }
        self.init(representations)
    }

    /// The item as UIPasteboard hands it out: UTI → `String` (text), `URL` (URLs), `RGBA16Color`
    /// (`org.x.color`) or `Data`.
    var dictionary: [String: Any] {
        var result: [String: Any] = [:]
        for representation in representations where result[representation.type.identifier] == nil {
            result[representation.type.identifier] = PasteboardType.value(of: representation)
        }
        return result
    }
}

/// How pasteboard type strings and values map to the engine's types and bytes.
enum PasteboardType {
    /// The type a UIPasteboard type string names: a known UTI, a MIME type, an X target or an
    /// extension; any other identifier is taken as a private type of the program (Apple's
    /// imported declaration), so custom types travel between xpb processes.
    static func resolve(_ name: String) -> UTType {
        UTType(name) ?? TypeName.resolve(name) ?? UTType(importedAs: name)
    }

    static func bytes(of value: Any) -> [UInt8]? {
        switch value {
        case let string as String: Array(string.utf8)
        case let url as URL: Array(url.absoluteString.utf8)
        case let data as Data: Array(data)
        case let bytes as [UInt8]: bytes
        case let color as RGBA16Color: color.bytes
        default: nil
        }
    }

    static func value(of representation: StoredItem.Representation) -> Any {
        let type = representation.type
        let bytes = representation.bytes
        if type.conforms(to: .url) {
            let text = String(decoding: bytes, as: UTF8.self)
            return URL(string: text) ?? text
        }
        if type == .x11Color, let color = try? RGBA16Color(bytes: bytes) { return color }
        if isUTF8Text(type) { return String(decoding: bytes, as: UTF8.self) }
        return Data(bytes)
    }

    /// Text whose canonical bytes are UTF-8 (everything textual but the UTF-16 types).
    static func isUTF8Text(_ type: UTType) -> Bool {
        type.conforms(to: .text) && type != .utf16PlainText && type != .utf16ExternalPlainText
    }

    /// Order of representations within an item made from a dictionary: files and URLs, images,
    /// rich text, other data, plain text last (the fallback every reader has).
    static func rank(_ type: UTType) -> Int {
        if type == .concealed { return 6 }
        if type.conforms(to: .fileURL) { return 0 }
        if type.conforms(to: .url) { return 1 }
        if type.conforms(to: .image) { return 2 }
        if type.conforms(to: .plainText) { return 5 }
        if type.conforms(to: .text) { return 3 }
        return 4
    }
}
