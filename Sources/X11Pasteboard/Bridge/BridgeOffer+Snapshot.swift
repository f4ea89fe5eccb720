import UniformTypes

extension BridgeOffer {
    /// Content up to this size in all travels with its offer; beyond it, representations are
    /// announced and cross only when someone pastes them.
    public static let inlineLimit = 1 << 20

    /// The most representations an offer carries (the first ones, in the owner's order): every
    /// target named becomes an atom on the far display for as long as its server runs.
    public static let maxItems = 256

    /// Whether `name` may name a selection, target or type in a bridge stream: not empty, no
    /// control characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The target a bridge adds to content it took from the far side, naming the copy's origin
    /// and generation, so that another bridge on the same display forwards it under its first
    /// name and the origin drops it if it ever comes back (a ring of bridges).
    public static let originTarget = "_XPB_BRIDGE_ORIGIN"

    /// The offer of `snapshot`: its representations in order, with their bytes while the
    /// total stays within `inlineLimit`; the origin target is not forwarded as content.
    public init(
        snapshot: SelectionSnapshot, origin: UInt64, generation: UInt64, seen: UInt64 = 0, selection: String, inlineLimit: Int = inlineLimit
    ) {
        var inlineBytes = 0
        var items: [Item] = []
        let kept = snapshot.representations.filter {
            $0.target != Self.originTarget && Self.isValidName($0.target) && Self.isValidName($0.type)
        }
        for representation in kept.prefix(Self.maxItems) {
            let size = representation.bytes.count
            let travels = inlineBytes + size <= inlineLimit
            if travels { inlineBytes += size }
            items.append(Item(
                target: representation.target, type: representation.type, format: representation.format,
                size: UInt64(size), bytes: travels ? representation.bytes : nil))
        }
        self.init(origin: origin, generation: generation, seen: seen, selection: selection, items: items)
    }

    /// Whether the offer is secret: a concealed-type target, or a password-manager hint that
    /// says so (or that did not travel with the offer, so cannot be checked: treated as secret).
    public var isSensitive: Bool {
        if items.contains(where: { $0.target == UTType.concealed.identifier }) { return true }
        guard let hint = items.first(where: { $0.target == ConcealedContent.hintTarget }) else { return false }
        return hint.bytes.map(ConcealedContent.isSecret(hint:)) ?? true
    }

    /// The origin target's value for this offer served by `owner` (the bridge's window): the
    /// window is part of the name, so that the marker is trusted only while that window owns
    /// the selection, not when the content comes back from a history or a clipboard manager
    /// that kept every target.
    public func originMarker(owner: XWindow) -> [UInt8] {
        Array("\(String(origin, radix: 16)) \(String(generation, radix: 16)) \(String(owner.rawValue, radix: 16))".utf8)
    }

    /// The origin, generation and serving window an origin target's value names; nil for
    /// anything else.
    public static func origin(fromMarker bytes: [UInt8]) -> (origin: UInt64, generation: UInt64, owner: XWindow)? {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, let origin = UInt64(parts[0], radix: 16), let generation = UInt64(parts[1], radix: 16),
            let owner = UInt(parts[2], radix: 16)
        else {
            return nil
        }
        return (origin, generation, XWindow(rawValue: owner))
    }
}
