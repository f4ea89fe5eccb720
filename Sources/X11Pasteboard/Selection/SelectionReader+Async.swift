/// Reads that suspend instead of waiting on the loop: the pasteboard session's calls use them,
/// so a call that waits for a slow owner lets the others run. They run on the caller's actor,
/// which must be the one whose executor is the connection's thread.
extension SelectionReader {
    /// What the owner of `selection` offers; as `offer(of:)`.
    func fetchOffer(of selection: XAtom, isolation: isolated (any Actor)? = #isolation) async throws(PasteboardError) -> TargetOffer {
        let answer: (type: XAtom, bytes: [UInt8])
        do {
            answer = try await fetch(selection, as: connection.atom("TARGETS"))
        } catch where error.code == .targetNotOffered {
            return .ofOwnersWithoutTARGETS
        }
        return TargetOffer(targets: connection.names(of: try targetAtoms(answer, of: selection)).compactMap { $0 })
    }

    /// Converts `selection` to `target` and collects the bytes; as `read(_:as:)`.
    func fetch(
        _ selection: XAtom, as target: XAtom, isolation: isolated (any Actor)? = #isolation
    ) async throws(PasteboardError) -> (type: XAtom, bytes: [UInt8]) {
        let collector = Collector()
        let read = SelectionRead(connection: connection, selection: selection, target: target, timeout: timeout) {
            collector.bytes.append(contentsOf: $0)
        }
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
            read.onFinish = { continuation.resume() }
            read.start()
        }
        return try read.result!.map { (type: $0, bytes: collector.bytes) }.get()
    }

    /// Several targets at once; as `read(_:targets:viaMultiple:)`.
    func fetch(
        _ selection: XAtom, targets: [XAtom], viaMultiple: Bool, isolation: isolated (any Actor)? = #isolation
    ) async -> [Result<ConvertedValue, PasteboardError>] {
        if targets.isEmpty { return [] }
        if viaMultiple && targets.count > 1 {
            let multiple = MultipleRead(connection: connection, selection: selection, targets: targets, timeout: timeout)
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                multiple.onFinish = { continuation.resume() }
                multiple.start()
            }
            // An owner that lists MULTIPLE but refuses it still converts one target at a time.
            if multiple.failure?.code != .targetNotOffered, let results = multiple.results { return results }
        }
        // Every conversion is sent before the first answer is awaited: one round trip in all.
        let reads = collectingReads(of: selection, targets: targets)
        reads.forEach { $0.read.start() }
        for read in reads.map(\.read) where !read.isFinished {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                read.onFinish = { continuation.resume() }
            }
        }
        return reads.map(\.outcome)
    }
}
