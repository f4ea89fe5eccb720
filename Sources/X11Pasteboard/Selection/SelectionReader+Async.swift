/// Reads that suspend instead of waiting on the loop: the pasteboard session's calls use them,
/// so a call that waits for a slow owner lets the others run. They run on the caller's actor,
/// which must be the one whose executor is the connection's thread.
extension SelectionReader {
    /// What the owner of `selection` offers; as `offer(of:)`.
    func fetchOffer(of selection: XAtom, isolation: isolated (any Actor)? = #isolation) async throws(PasteboardError) -> TargetOffer {
        let targetsAtom = connection.atom("TARGETS")
        let answer: (type: XAtom, bytes: [UInt8])
        do {
            answer = try await fetch(selection, as: targetsAtom)
        } catch where error.code == .targetNotOffered {
            return TargetOffer(targets: ["UTF8_STRING", "STRING"])
        }
        guard answer.type == .atom || answer.type == targetsAtom else {
            throw PasteboardError(.protocolViolation, "the owner of \(connection.name(of: selection) ?? "the selection") answered TARGETS with a property that is not a list of atoms")
        }
        let atoms = PropertyFormat.items32(from: answer.bytes).map(XAtom.init(rawValue:)).filter { $0 != .none }
        return TargetOffer(targets: connection.names(of: atoms).compactMap { $0 })
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
    ) async -> [Result<(type: XAtom, bytes: [UInt8]), PasteboardError>] {
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
        var pending: [(read: SelectionRead, collector: Collector)] = []
        for target in targets {
            let collector = Collector()
            let read = SelectionRead(connection: connection, selection: selection, target: target, timeout: timeout) {
                collector.bytes.append(contentsOf: $0)
            }
            pending.append((read, collector))
        }
        var results: [Result<(type: XAtom, bytes: [UInt8]), PasteboardError>] = []
        for (index, (read, collector)) in pending.enumerated() {
            if index == 0 { pending.forEach { $0.read.start() } }
            if !read.isFinished {
                await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                    read.onFinish = { continuation.resume() }
                }
            }
            results.append(read.result!.map { (type: $0, bytes: collector.bytes) })
        }
        return results
    }
}
