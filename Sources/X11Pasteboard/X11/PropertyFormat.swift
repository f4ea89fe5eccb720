/// How property data is laid out on each side of Xlib.
///
/// On the wire and in the engine, format-32 items are packed 32-bit values; Xlib takes and
/// gives them as C longs (8 bytes here). Format 16 items are 16-bit values. Counts are in items,
/// never bytes: a byte count passed as an item count makes Xlib read past the buffer.
enum PropertyFormat {
    /// The bytes of one item of a property of `format` (8, 16 or 32).
    static func itemSize(_ format: Int) -> Int {
        switch format {
        case 32: 4
        case 16: 2
        default: 1
        }
    }

    /// The whole items in `byteCount` bytes of `format`; a trailing partial item is not sent.
    static func itemCount(byteCount: Int, format: Int) -> Int {
        byteCount / itemSize(format)
    }

    /// Packed 32-bit items as the C longs `XChangeProperty` reads for format 32.
    static func cLongs(fromPacked bytes: UnsafeRawBufferPointer) -> [Int] {
        (0..<itemCount(byteCount: bytes.count, format: 32)).map {
            Int(bitPattern: UInt(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
        }
    }

    /// The C longs `XGetWindowProperty` gives for format 32, packed as 32-bit items.
    static func packed(fromCLongs longs: UnsafeBufferPointer<Int>) -> [UInt32] {
        longs.map { UInt32(truncatingIfNeeded: $0) }
    }

    /// The 32-bit items of a format-32 property (atoms, timestamps, INCR sizes).
    static func items32(from bytes: UnsafeRawBufferPointer) -> [UInt] {
        (0..<itemCount(byteCount: bytes.count, format: 32)).map {
            UInt(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
        }
    }

    /// The 32-bit items of a format-32 property held in an array.
    static func items32(from bytes: [UInt8]) -> [UInt] {
        bytes.withUnsafeBytes { items32(from: $0) }
    }
}
