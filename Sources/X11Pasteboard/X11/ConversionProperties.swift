/// The properties of our window that conversions land in: one per conversion in flight, so
/// several can run at once; reused once a conversion finished cleanly, never after one was
/// abandoned, since a late answer to it could pass for the next one's (Qt recreates its window
/// for the same reason).
struct ConversionProperties {
    private var free: [XAtom] = []
    private var created = 0

    /// The name of the property the next conversion gets when none is free, so that callers
    /// can intern it with the other atoms they need in one round trip.
    var nextNewName: String { Self.name(created) }

    static func name(_ index: Int) -> String { "_XPB_SELECTION_\(index)" }

    /// A property no conversion in flight uses.
    mutating func take(interning atom: (String) -> XAtom) -> XAtom {
        if let reused = free.popLast() { return reused }
        defer { created += 1 }
        return atom(Self.name(created))
    }

    /// Hands a property back after its conversion ended; an abandoned one is never used again.
    mutating func release(_ property: XAtom, reusable: Bool) {
        if reusable && !free.contains(property) { free.append(property) }
    }
}

extension XConnection {
    /// A property of our window for one conversion.
    func takeConversionProperty() -> XAtom {
        conversionProperties.take(interning: atom)
    }

    /// Returns a conversion's property: `reusable` once nothing more can arrive in it.
    func releaseConversionProperty(_ property: XAtom, reusable: Bool) {
        conversionProperties.release(property, reusable: reusable)
    }
}
