/// The owner's side of one INCR transfer (ICCCM §2.7.2): which chunk goes next, and whether
/// the closing zero-length chunk has gone.
///
/// Pure state, so the chunking is tested without a server.
struct IncrementalSend {
    /// The whole value; an array is shared, not copied, between transfers of the same target.
    let value: ServedValue
    /// Bytes per chunk, a multiple of the item size.
    let chunkSize: Int
    private(set) var offset = 0
    private(set) var isFinished = false

    init(value: ServedValue, chunkSize: Int) {
        let unit = max(1, value.format / 8)
        self.value = value
        self.chunkSize = max(unit, chunkSize - chunkSize % unit)
    }

    /// The next range of bytes to write; an empty range is the closing chunk. Nil once that
    /// has been handed out.
    mutating func nextChunk() -> Range<Int>? {
        if isFinished { return nil }
        let end = min(offset + chunkSize, value.bytes.count)
        let range = offset..<end
        if range.isEmpty { isFinished = true }
        offset = end
        return range
    }
}
