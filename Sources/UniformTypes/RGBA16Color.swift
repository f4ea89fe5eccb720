/// `application/x-color` (GTK, Qt): four unsigned 16-bit components R, G, B, A, 0…65535, sent
/// with property format 16, so the bytes are in the host's order (Xlib swaps for the peer).
public struct RGBA16Color: Hashable, Sendable {
    /// Red, 0…65535.
    public var red: UInt16
    /// Green, 0…65535.
    public var green: UInt16
    /// Blue, 0…65535.
    public var blue: UInt16
    /// Alpha, 0…65535 (opaque = 65535).
    public var alpha: UInt16

    /// A colour from its components.
    public init(red: UInt16, green: UInt16, blue: UInt16, alpha: UInt16 = .max) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads the 8-byte payload; throws `ConversionError.malformed` for any other length.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 8 else {
            throw ConversionError.malformed(format: "application/x-color", reason: "expected 8 bytes, got \(bytes.count)")
        }
        let components = bytes.withUnsafeBytes { raw in
            (0..<4).map { raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self) }
        }
        self.init(red: components[0], green: components[1], blue: components[2], alpha: components[3])
    }

    /// The 8-byte payload in host byte order.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for component in [red, green, blue, alpha] {
            withUnsafeBytes(of: component) { out.append(contentsOf: $0) }
        }
        return out
    }
}
