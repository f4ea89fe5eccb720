/// Reads a selection the way ICCCM §2.4 asks a requestor to: one conversion at a time into a
/// property of our own, matched to its SelectionNotify, with INCR for large data.
public struct SelectionReader {
    /// The connection the conversions go through.
    public let connection: XConnection
    /// The longest wait without progress: for the owner's answer, and between INCR chunks.
    public var timeout: Duration

    /// Creates a reader on `connection`; `selections` names the selections it will read, so
    /// that they are interned in the same round trip as the atoms every read needs.
    public init(connection: XConnection, timeout: Duration = .seconds(5), selections: [String] = []) {
        self.connection = connection
        self.timeout = timeout
        _ = connection.atoms(selections + ["TARGETS", "INCR", connection.conversionProperties.nextNewName])
    }

    /// The targets the owner of `selection` says it converts to (its `TARGETS` answer).
    ///
    /// - Throws: `.noOwner`, `.timedOut`, `.targetNotOffered` (an owner that refuses TARGETS).
    public func targets(of selection: XAtom) throws(PasteboardError) -> [XAtom] {
        let answer = try read(selection, as: connection.atom("TARGETS"))
        return try targetAtoms(answer, of: selection)
    }

    /// The atoms of a TARGETS answer: a list of 32-bit atoms, of type ATOM (or TARGETS, from
    /// old owners).
    func targetAtoms(_ answer: (type: XAtom, bytes: [UInt8]), of selection: XAtom) throws(PasteboardError) -> [XAtom] {
        guard answer.type == .atom || answer.type == connection.atom("TARGETS") else {
            throw PasteboardError(.protocolViolation, "the owner of \(connection.name(of: selection) ?? "the selection") answered TARGETS with a property that is not a list of atoms")
        }
        return PropertyFormat.items32(from: answer.bytes).map(XAtom.init(rawValue:)).filter { $0 != .none }
    }

    /// Converts `selection` to `target` and hands the bytes to `sink` as they arrive; owners,
    /// watchers and other reads on the connection go on meanwhile.
    ///
    /// Large data comes through INCR chunk by chunk, so nothing is held beyond one chunk.
    /// - Returns: the type the owner gave the data (it names the encoding of `TEXT`).
    /// - Throws: `.noOwner`, `.targetNotOffered` (refused), `.timedOut`, `.protocolViolation`,
    ///   `.connectionLost`, and whatever `sink` throws (as `.outputFailed`).
    @discardableResult
    public func convert(
        _ selection: XAtom, to target: XAtom, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(PasteboardError) -> XAtom {
        // The read lives only while this call waits for it.
        try withoutActuallyEscaping(sink) { (sink) throws(PasteboardError) -> XAtom in
            let read = SelectionRead(connection: connection, selection: selection, target: target, timeout: timeout, into: sink)
            read.start()
            defer { connection.events.unregister(read) }
            try connection.events.pump(until: { read.isFinished })
            return try read.result!.get()
        }
    }

    /// Converts and collects everything in memory: for small data such as text to re-encode.
    public func read(_ selection: XAtom, as target: XAtom) throws(PasteboardError) -> (type: XAtom, bytes: [UInt8]) {
        var collected: [UInt8] = []
        let type = try convert(selection, to: target) { collected.append(contentsOf: $0) }
        return (type, collected)
    }

    /// Reads several targets at once, each whole: in one round trip through `MULTIPLE` when
    /// `viaMultiple` (the owner listed it in TARGETS; Qt and GTK do), else as conversions that
    /// run side by side. Each target gets its own result, in order.
    ///
    /// Together the targets bring at most `byteLimit` bytes: a target whose bytes would pass it
    /// fails alone (`.outputFailed`), its transfer abandoned at once and what it had taken given
    /// back to the others.
    ///
    /// - Throws: only `.connectionLost`; every other failure is that target's result.
    public func read(
        _ selection: XAtom, targets: [XAtom], viaMultiple: Bool, byteLimit: Int = .max
    ) throws(PasteboardError) -> [Result<ConvertedValue, PasteboardError>] {
        if targets.isEmpty { return [] }
        if viaMultiple && targets.count > 1 {
            let multiple = MultipleRead(
                connection: connection, selection: selection, targets: targets, timeout: timeout, budget: ByteBudget(byteLimit))
            multiple.start()
            try connection.events.pump(until: { multiple.isFinished })
            // An owner that lists MULTIPLE but refuses it still converts one target at a time.
            if multiple.failure?.code != .targetNotOffered, let results = multiple.results { return results }
        }
        let reads = collectingReads(of: selection, targets: targets, budget: ByteBudget(byteLimit))
        reads.forEach { $0.read.start() }
        try connection.events.pump(until: { reads.allSatisfy { $0.read.isFinished } })
        return reads.map(\.outcome)
    }

    /// One read per target, each collecting its bytes, not started yet.
    func collectingReads(of selection: XAtom, targets: [XAtom], budget: ByteBudget = ByteBudget(.max)) -> [CollectingRead] {
        targets.map { target in
            let collector = Collector()
            let read = SelectionRead(connection: connection, selection: selection, target: target, timeout: timeout) {
                try budget.append($0, to: &collector.bytes)
            }
            read.onAnnouncedSize = { collector.bytes.reserveCapacity(SelectionRead.reservation(forAnnounced: $0, limit: budget.remaining)) }
            return CollectingRead(read: read, collector: collector)
        }
    }
}

/// The bytes several reads may keep together.
final class ByteBudget {
    /// What the whole budget was.
    let limit: Int
    /// What is left of it.
    private(set) var remaining: Int

    init(_ limit: Int) {
        self.limit = limit
        remaining = limit
    }

    /// Appends `bytes` to `collected` if the budget has room; else gives back what `collected`
    /// had taken, empties it and throws: that read is abandoned, the others go on.
    func append(_ bytes: UnsafeRawBufferPointer, to collected: inout [UInt8]) throws(PasteboardError) {
        guard bytes.count <= remaining else {
            remaining += collected.count
            collected = []
            throw PasteboardError.tooLarge(limit)
        }
        remaining -= bytes.count
        collected.append(contentsOf: bytes)
    }
}

/// Bytes that a read's sink appends to.
final class Collector {
    var bytes: [UInt8] = []
}

/// A read whose bytes are collected whole.
struct CollectingRead {
    let read: SelectionRead
    let collector: Collector

    /// The type and bytes, or why the read failed; only once the read is finished.
    var outcome: Result<ConvertedValue, PasteboardError> {
        read.result!.map { ConvertedValue(type: $0, format: read.format, bytes: collector.bytes) }
    }
}

/// One target's data, read whole.
public struct ConvertedValue: Sendable {
    /// The type the owner gave the data (it names the encoding of `TEXT`, say).
    public var type: XAtom
    /// The property format: 8 for bytes, 16 or 32 for lists of integers.
    public var format: Int
    /// The data, format-32 items packed as 32-bit values.
    public var bytes: [UInt8]
}
