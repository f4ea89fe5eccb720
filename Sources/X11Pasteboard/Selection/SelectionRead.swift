/// One conversion of a selection to a target, as ICCCM §2.4 asks a requestor to do it: a
/// ConvertSelection into a property of our own, the owner's SelectionNotify, then the data, or
/// INCR chunks (§2.7.2) until a zero-length one. A state machine on the connection's loop, so
/// that any number run at once, each with its own deadline, while owners and watchers on the
/// same connection go on.
final class SelectionRead: Conversation {
    private enum State {
        case awaitingReply
        case receivingChunks(type: XAtom?)
        case finished
    }

    unowned let connection: XConnection
    let selection: XAtom
    let target: XAtom
    /// The property of our window the owner writes into.
    let property: XAtom
    /// The longest wait without progress: for the answer, and between chunks.
    let timeout: Duration
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private var state = State.awaitingReply
    private var deadline: Deadline
    /// Whether the property is ours alone (it goes back to the pool when the read ends).
    private let ownsProperty: Bool

    /// The type the owner gave the data (it names the encoding of `TEXT`), or why it failed;
    /// nil while the read goes on.
    private(set) var result: Result<XAtom, PasteboardError>?
    /// The property format of the data (8, 16 or 32), as the owner wrote it.
    private(set) var format = 8
    /// Told the size an INCR transfer announces (a lower bound), so that a reader that keeps
    /// the bytes can make room once instead of growing chunk by chunk.
    var onAnnouncedSize: ((Int) -> Void)?

    /// What to reserve for an announced size: never more than `limit`, nor more than 256 MiB on
    /// an owner's word alone (past that the buffer grows as the bytes really arrive).
    static func reservation(forAnnounced size: Int, limit: Int) -> Int {
        min(size, limit, 256 << 20)
    }

    var isFinished: Bool { result != nil }

    /// Called once when the read ends, however it ends (an async wait resumes from here).
    var onFinish: (() -> Void)?

    /// Prepares a conversion of `selection` to `target`; `start()` sends it.
    convenience init(
        connection: XConnection, selection: XAtom, target: XAtom, timeout: Duration,
        into sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.init(
            connection: connection, selection: selection, target: target, property: connection.takeConversionProperty(),
            ownsProperty: true, timeout: timeout, sink: sink)
    }

    /// A conversion whose answer already arrived in `property` (one pair of a MULTIPLE reply);
    /// `takeAnswer()` reads it.
    convenience init(
        connection: XConnection, selection: XAtom, target: XAtom, answeredIn property: XAtom, timeout: Duration,
        into sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.init(
            connection: connection, selection: selection, target: target, property: property, ownsProperty: false,
            timeout: timeout, sink: sink)
    }

    private init(
        connection: XConnection, selection: XAtom, target: XAtom, property: XAtom, ownsProperty: Bool, timeout: Duration,
        sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.connection = connection
        self.selection = selection
        self.target = target
        self.property = property
        self.ownsProperty = ownsProperty
        self.timeout = timeout
        self.sink = sink
        self.deadline = .after(timeout)
    }

    /// Sends the ConvertSelection and joins the connection's loop.
    func start() {
        // Nothing will ever answer on a lost connection: end at once, not at a timeout that
        // a dead loop no longer runs.
        if connection.isLost {
            finish(.failure(PasteboardError.connectionLost(connection.displayName)), reusable: false)
            return
        }
        connection.deleteProperty(on: connection.window, property)
        connection.convertSelection(selection, to: target, property: property, time: .current)
        connection.flush()
        connection.events.register(self)
    }

    // MARK: Conversation

    func handle(_ event: XServerEvent) -> Bool {
        switch event {
        case let .selectionNotify(reply):
            // The property must be ours too: a late answer to a conversion that timed out names
            // an abandoned property, and must not pass for this one's.
            guard case .awaitingReply = state, reply.requestor == connection.window, reply.selection == selection,
                reply.target == target, reply.property == property || reply.property == .none
            else { return false }
            if reply.property == .none {
                finish(.failure(refusal()), reusable: true)
            } else {
                takeAnswer()
            }
            return true
        case let .propertyNotify(window, changed, _, deleted):
            guard window == connection.window, changed == property else { return false }
            // Before the answer: the owner writing it. Deletions: ours, acknowledging a chunk.
            if case .receivingChunks = state, !deleted { takeChunk() }
            return true
        default:
            return false
        }
    }

    func runDueWork() -> Deadline {
        if isFinished { return .never }
        guard deadline.hasPassed else { return deadline }
        // The owner may still answer later; the property is never used again.
        switch state {
        case .receivingChunks:
            finish(.failure(PasteboardError(.timedOut, "the owner of \(describe(selection)) stopped sending for \(seconds(timeout)) in the middle of a transfer")), reusable: false)
        default:
            finish(.failure(PasteboardError(.timedOut, "the owner of \(describe(selection)) did not answer within \(seconds(timeout))")), reusable: false)
        }
        return .never
    }

    // MARK: Steps

    /// Reads the answer's property: the data itself, or INCR, after which the deletion asks
    /// for the first chunk.
    func takeAnswer() {
        let incr = connection.atom("INCR")
        var incremental = false
        let type: XAtom?
        do {
            type = try connection.withProperty(on: connection.window, property, delete: true) {
                (header, bytes) throws(PasteboardError) -> XAtom in
                if header.type == incr {
                    incremental = true
                    if header.format == 32, let size = PropertyFormat.items32(from: bytes).first { onAnnouncedSize?(Int(size)) }
                } else {
                    format = header.format
                    try deliver(bytes)
                }
                return header.type
            }
        } catch {
            finish(.failure(error), reusable: false)
            return
        }
        guard let type else {
            finish(.failure(PasteboardError(.protocolViolation, "the owner of \(describe(selection)) announced \(describe(target)) but set no property")), reusable: true)
            return
        }
        if incremental {
            state = .receivingChunks(type: nil)
            deadline = .after(timeout)
            connection.flush()
        } else {
            finish(.success(type), reusable: true)
        }
    }

    private func takeChunk() {
        guard case let .receivingChunks(chunkType) = state else { return }
        let outcome: XAtom??
        do {
            // nil: the property is gone already; .some(nil): a chunk; .some(type): the end.
            outcome = try connection.withProperty(on: connection.window, property, delete: true) {
                (header, bytes) throws(PasteboardError) -> XAtom? in
                if header.itemCount == 0 { return header.type }
                if let chunkType, chunkType != header.type {
                    throw PasteboardError(.protocolViolation, "the owner of \(describe(selection)) changed the type of the data in the middle of a transfer")
                }
                format = header.format
                try deliver(bytes)
                state = .receivingChunks(type: header.type)
                return nil
            }
        } catch {
            finish(.failure(error), reusable: false)
            return
        }
        connection.flush()
        switch outcome {
        case nil:
            return
        case .some(nil):
            deadline = .after(timeout)
        case .some(.some(let closingType)):
            finish(.success(chunkType ?? closingType), reusable: true)
        }
    }

    func connectionLost(_ error: PasteboardError) {
        finish(.failure(error), reusable: false)
    }

    private func finish(_ outcome: Result<XAtom, PasteboardError>, reusable: Bool) {
        guard result == nil else { return }
        result = outcome
        state = .finished
        if ownsProperty { connection.releaseConversionProperty(property, reusable: reusable) }
        let callback = onFinish
        onFinish = nil
        callback?()
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) throws(PasteboardError) {
        do {
            try sink(bytes)
        } catch let error as PasteboardError {
            throw error
        } catch {
            throw PasteboardError(.outputFailed, "cannot write the data: \(error)")
        }
    }

    /// The server itself refuses for a selection nobody owns; asking only now saves a round
    /// trip on every successful read.
    private func refusal() -> PasteboardError {
        if connection.owner(of: selection) == .none {
            return PasteboardError(.noOwner, "nothing owns \(describe(selection))")
        }
        return PasteboardError(.targetNotOffered, "the owner of \(describe(selection)) refused to convert it to \(describe(target))")
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
