/// Decoding of property data as the engine hands it over: format-32 items are packed as 32-bit
/// host-order values (Xlib's C longs are repacked at the edge).
enum PropertyDecoding {
    /// The 32-bit items of a format-32 property (atoms, timestamps, INCR sizes).
    static func atoms(from bytes: UnsafeRawBufferPointer) -> [UInt] {
        let count = bytes.count / 4
        return (0..<count).map { UInt(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
    }

    /// The 32-bit items of a format-32 property held in an array.
    static func atoms(from bytes: [UInt8]) -> [UInt] {
        bytes.withUnsafeBytes { atoms(from: $0) }
    }
}
