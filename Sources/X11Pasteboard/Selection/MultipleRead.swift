/// Several targets of one selection in one round trip (ICCCM §2.6.2 `MULTIPLE`): a list of
/// (target, property) ATOM_PAIRs on our window, one ConvertSelection, and the owner writes every
/// answer before it replies; a pair whose property comes back None was refused. Answers too
/// large for one property arrive through INCR, each on its own.
final class MultipleRead: Conversation {
    unowned let connection: XConnection
    let selection: XAtom
    let targets: [XAtom]
    let timeout: Duration
    /// The bytes all targets may bring together; the target that would pass it fails alone.
    let budget: ByteBudget
    private let listProperty: XAtom
    private let properties: [XAtom]
    private var collected: [[UInt8]]
    private var parts: [SelectionRead?]
    private var deadline: Deadline
    private var answered = false
    /// Why the owner's answer as a whole failed (then nothing was converted).
    private(set) var failure: PasteboardError?

    /// Per target, in order: its type and bytes, or why it failed; nil until the read is done.
    var results: [Result<ConvertedValue, PasteboardError>]? {
        if let failure { return targets.map { _ in .failure(failure) } }
        guard answered, parts.allSatisfy({ $0?.isFinished ?? true }) else { return nil }
        return parts.indices.map { index in
            guard let part = parts[index], let result = part.result else {
                return .failure(PasteboardError(.targetNotOffered, "the owner refused one target of MULTIPLE"))
            }
            return result.map { ConvertedValue(type: $0, format: part.format, bytes: collected[index]) }
        }
    }

    var isFinished: Bool { results != nil }

    /// Called once when every target has its result (an async wait resumes from here).
    var onFinish: (() -> Void)?

    /// Set while the answers are taken: a part that finishes at once must not pass for the end
    /// of the whole read while later parts are not even started.
    private var takingAnswers = false

    /// Calls `onFinish` if the read is done.
    private func notifyIfFinished() {
        guard !takingAnswers, isFinished, let callback = onFinish else { return }
        onFinish = nil
        callback()
    }

    func connectionLost(_ error: PasteboardError) {
        if failure == nil && !answered { fail(error, reusable: false) }
        for part in parts { part?.connectionLost(error) }
        notifyIfFinished()
    }

    /// Prepares the read of `targets`; `start()` sends it.
    init(connection: XConnection, selection: XAtom, targets: [XAtom], timeout: Duration, budget: ByteBudget = ByteBudget(.max)) {
        self.connection = connection
        self.budget = budget
        self.selection = selection
        self.targets = targets
        self.timeout = timeout
        self.listProperty = connection.takeConversionProperty()
        self.properties = targets.map { _ in connection.takeConversionProperty() }
        self.collected = targets.map { _ in [] }
        self.parts = targets.map { _ in nil }
        self.deadline = .after(timeout)
    }

    /// Writes the pair list, sends the ConvertSelection and joins the connection's loop.
    func start() {
        if connection.isLost {
            fail(PasteboardError.connectionLost(connection.displayName), reusable: false)
            notifyIfFinished()
            return
        }
        var pairs: [UInt] = []
        for (target, property) in zip(targets, properties) {
            connection.deleteProperty(on: connection.window, property)
            pairs += [target.rawValue, property.rawValue]
        }
        connection.changeProperty32(on: connection.window, listProperty, type: connection.atom("ATOM_PAIR"), values: pairs)
        connection.convertSelection(selection, to: connection.atom("MULTIPLE"), property: listProperty, time: .current)
        connection.flush()
        connection.events.register(self)
    }

    func handle(_ event: XServerEvent) -> Bool {
        switch event {
        case let .selectionNotify(reply):
            guard !answered, reply.requestor == connection.window, reply.selection == selection,
                reply.target == connection.atom("MULTIPLE"), reply.property == listProperty || reply.property == .none
            else { return false }
            answered = true
            if reply.property == .none {
                fail(PasteboardError(.targetNotOffered, "the owner of the selection refused MULTIPLE"), reusable: true)
            } else {
                takeAnswers()
            }
            notifyIfFinished()
            return true
        case let .propertyNotify(window, changed, _, _):
            // Before the answer: the owner writing it; the parts claim their INCR chunks.
            return !answered && window == connection.window && (changed == listProperty || properties.contains(changed))
        default:
            return false
        }
    }

    func runDueWork() -> Deadline {
        if isFinished || answered { return .never }
        guard deadline.hasPassed else { return deadline }
        fail(PasteboardError(.timedOut, "the owner of the selection did not answer MULTIPLE within the timeout"), reusable: false)
        notifyIfFinished()
        return .never
    }

    private func takeAnswers() {
        takingAnswers = true
        defer { takingAnswers = false }
        let atomPair = connection.atom("ATOM_PAIR")
        let pairs = connection.withProperty(on: connection.window, listProperty, delete: true) { header, bytes in
            header.format == 32 && (header.type == atomPair || header.type == .atom) ? PropertyFormat.items32(from: bytes) : nil
        } ?? nil
        guard let pairs else {
            // Owners that do not know MULTIPLE (xclip) answer it as data: read target by target.
            // What it may have written into the pair properties (an INCR start, even) is not
            // ours to trust, so they are not used again.
            fail(PasteboardError(.targetNotOffered, "the owner of the selection answered MULTIPLE with no ATOM_PAIR list"), reusable: false)
            return
        }
        connection.releaseConversionProperty(listProperty, reusable: true)
        for index in targets.indices {
            // The owner names the property it used; None means that pair failed.
            let answered = 2 * index + 1 < pairs.count ? XAtom(rawValue: pairs[2 * index + 1]) : .none
            guard answered == properties[index] else {
                connection.releaseConversionProperty(properties[index], reusable: answered == .none)
                continue
            }
            let part = SelectionRead(
                connection: connection, selection: selection, target: targets[index], answeredIn: answered,
                timeout: timeout
            ) { [weak self] bytes in
                guard let self else { return }
                try budget.append(bytes, to: &collected[index])
            }
            part.onFinish = { [weak self] in self?.notifyIfFinished() }
            part.onAnnouncedSize = { [weak self] size in
                guard let self else { return }
                collected[index].reserveCapacity(SelectionRead.reservation(forAnnounced: size, limit: budget.remaining))
            }
            parts[index] = part
            part.takeAnswer()
            if part.isFinished {
                connection.releaseConversionProperty(properties[index], reusable: true)
            } else {
                // INCR: the part reads its chunks on the loop; its property is not used again.
                connection.events.register(part)
                connection.releaseConversionProperty(properties[index], reusable: false)
            }
        }
    }

    private func fail(_ error: PasteboardError, reusable: Bool) {
        failure = error
        connection.releaseConversionProperty(listProperty, reusable: reusable)
        for property in properties { connection.releaseConversionProperty(property, reusable: reusable) }
    }
}
