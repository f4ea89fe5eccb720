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
        _ = connection.atoms(selections + ["TARGETS", "INCR", connection.conversionPropertyName()])
    }

    /// The targets the owner of `selection` says it converts to (its `TARGETS` answer).
    ///
    /// - Throws: `.noOwner`, `.timedOut`, `.targetNotOffered` (an owner that refuses TARGETS).
    public func targets(of selection: XAtom) throws(PasteboardError) -> [XAtom] {
        let targetsAtom = connection.atom("TARGETS")
        var atoms: [XAtom] = []
        let type = try convert(selection, to: targetsAtom) { bytes in
            // A TARGETS reply is a list of 32-bit atoms, of type ATOM (or TARGETS, from old owners).
            atoms.append(contentsOf: PropertyDecoding.atoms(from: bytes).map(XAtom.init(rawValue:)))
        }
        guard type == .atom || type == targetsAtom else {
            throw PasteboardError(.protocolViolation, "the owner of \(describe(selection)) answered TARGETS with a property that is not a list of atoms")
        }
        return atoms.filter { $0 != .none }
    }

    /// Converts `selection` to `target` and hands the bytes to `sink` as they arrive.
    ///
    /// Large data comes through INCR chunk by chunk, so nothing is held beyond one chunk.
    /// - Returns: the type the owner gave the data (it names the encoding of `TEXT`).
    /// - Throws: `.noOwner`, `.targetNotOffered` (refused), `.timedOut`, `.protocolViolation`,
    ///   and whatever `sink` throws (as `.outputFailed`).
    @discardableResult
    public func convert(
        _ selection: XAtom, to target: XAtom, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(PasteboardError) -> XAtom {
        let property = connection.conversionProperty()
        connection.deleteProperty(on: connection.window, property)
        connection.convertSelection(selection, to: target, property: property, time: .current)
        connection.flush()

        let notify = try waitForNotify(selection: selection, target: target, property: property)
        if notify.property == .none {
            // The server itself refuses for a selection nobody owns; asking only now saves a
            // round trip on every successful paste.
            if connection.owner(of: selection) == .none {
                throw PasteboardError(.noOwner, "nothing owns \(describe(selection))")
            }
            throw PasteboardError(.targetNotOffered, "the owner of \(describe(selection)) refused to convert it to \(describe(target))")
        }
        let replyProperty = notify.property
        var incrementalType: XAtom? = nil
        let incr = connection.atom("INCR")
        let firstType = try connection.withProperty(on: connection.window, replyProperty, delete: true) {
            (header, bytes) throws(PasteboardError) -> XAtom in
            if header.type == incr {
                incrementalType = incr
            } else {
                try deliver(bytes, to: sink)
            }
            return header.type
        }
        guard let firstType else {
            throw PasteboardError(.protocolViolation, "the owner of \(describe(selection)) announced \(describe(target)) but set no property")
        }
        guard incrementalType != nil else { return firstType }
        return try receiveIncrementally(property: replyProperty, selection: selection, into: sink)
    }

    /// Converts and collects everything in memory: for small data such as text to re-encode.
    public func read(_ selection: XAtom, as target: XAtom) throws(PasteboardError) -> (type: XAtom, bytes: [UInt8]) {
        var collected: [UInt8] = []
        let type = try convert(selection, to: target) { collected.append(contentsOf: $0) }
        return (type, collected)
    }

    // MARK: -

    private func waitForNotify(selection: XAtom, target: XAtom, property: XAtom) throws(PasteboardError) -> ConversionReply {
        let deadline = Deadline.after(timeout)
        while let event = connection.nextEvent(before: deadline) {
            // The property must be ours too: a late answer to a conversion that timed out names
            // an abandoned property, and must not pass for this one's.
            if case let .selectionNotify(notify) = event, notify.requestor == connection.window,
                notify.selection == selection, notify.target == target,
                notify.property == property || notify.property == .none
            {
                return notify
            }
            connection.route(event)
        }
        // The owner may still answer later; the next conversion must not read that answer.
        connection.abandonConversionProperty()
        throw PasteboardError(.timedOut, "the owner of \(describe(selection)) did not answer within \(seconds(timeout))")
    }

    /// ICCCM §2.7.2: after deleting the INCR property, each PropertyNotify(NewValue) brings a
    /// chunk, which we read and delete; a zero-length chunk ends the transfer.
    private func receiveIncrementally(
        property: XAtom, selection: XAtom, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(PasteboardError) -> XAtom {
        var chunkType: XAtom? = nil
        var deadline = Deadline.after(timeout)
        while true {
            guard let event = connection.nextEvent(before: deadline) else {
                connection.abandonConversionProperty()
                throw PasteboardError(.timedOut, "the owner of \(describe(selection)) stopped sending for \(seconds(timeout)) in the middle of a transfer")
            }
            guard case let .propertyNotify(window, changed, _, deleted) = event, window == connection.window,
                changed == property, !deleted
            else {
                connection.route(event)
                continue
            }
            let finished = try connection.withProperty(on: connection.window, property, delete: true) {
                (header, bytes) throws(PasteboardError) -> Bool in
                if header.itemCount == 0 { return true }
                if let chunkType, chunkType != header.type {
                    throw PasteboardError(.protocolViolation, "the owner of \(describe(selection)) changed the type of the data in the middle of a transfer")
                }
                chunkType = header.type
                try deliver(bytes, to: sink)
                return false
            }
            if finished == true { return chunkType ?? connection.atom("INCR") }
            deadline = .after(timeout)
        }
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws(PasteboardError) {
        do {
            try sink(bytes)
        } catch let error as PasteboardError {
            throw error
        } catch {
            throw PasteboardError(.outputFailed, "cannot write the data: \(error)")
        }
    }

    private func describe(_ atom: XAtom) -> String {
        connection.name(of: atom) ?? "atom \(atom.rawValue)"
    }

    private func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        if fraction == 0 { return "\(whole) s" }
        return "\(Double(whole) + Double(fraction) / 1e18) s"
    }
}
