import UniformTypes
import X11Pasteboard

/// A snapshot made ready to store: which representations go to files (and their names), the
/// digest that finds an equal entry, and the listing columns.
struct PreparedEntry {
    struct Representation {
        var target: String
        var type: String
        var format: Int
        var bytes: [UInt8]
        /// The SHA-256 (hex) naming its file, for representations above the inline threshold.
        var blob: String?
    }

    var representations: [Representation]
    /// SHA-256 over every representation's target, type, format and bytes, in order.
    var digest: [UInt8]
    var targets: [String]
    var types: [String]
    var text: String?

    init(_ snapshot: SelectionSnapshot, inlineThreshold: Int) {
        var hasher = SHA256()
        var types: [String] = []
        representations = snapshot.representations.map { representation in
            hasher.updateField(representation.target.utf8)
            hasher.updateField(representation.type.utf8)
            hasher.updateField(String(representation.format).utf8)
            var blob: String?
            if representation.bytes.count > inlineThreshold {
                let digest = SHA256.hash(representation.bytes)
                hasher.updateField(digest)
                blob = SHA256.hex(digest)
            } else {
                hasher.updateField(representation.bytes)
            }
            if let type = representation.uniformType?.identifier, !types.contains(type) { types.append(type) }
            return Representation(
                target: representation.target, type: representation.type, format: representation.format,
                bytes: representation.bytes, blob: blob)
        }
        digest = hasher.finish()
        targets = snapshot.representations.map(\.target)
        self.types = types
        text = snapshot.text.map { text in
            guard text.utf8.count > HistoryStore.textLimit else { return text }
            // Cut where the next byte starts a character, never inside one's encoding.
            let bytes = Array(text.utf8.prefix(HistoryStore.textLimit + 1))
            var cut = HistoryStore.textLimit
            while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            return String(decoding: bytes[..<cut], as: UTF8.self)
        }
    }
}
