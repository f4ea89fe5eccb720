import CSystemShims

/// Heap settings for a process that streams large data.
enum MemoryTuning {
    /// Xlib hands every INCR chunk over in a fresh allocation that is freed right after; glibc
    /// would give the pages back and fault them in again for the next chunk, which halved paste
    /// throughput. Keeping freed memory in the heap (up to 256 MiB) and serving allocations of
    /// up to 32 MiB from it makes the next chunk reuse the same pages.
    static func keepFreedMemoryForReuse() {
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
    }

    /// For a long-running process (`xpb daemon`): Xlib's INCR chunks come from the heap and are
    /// reused, as above, but freed memory at the top of the heap still goes back to the system,
    /// so an idle daemon does not keep the pages of the last large read.
    static func reuseChunksReturnFreedMemory() {
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 4 << 20)
    }
}
