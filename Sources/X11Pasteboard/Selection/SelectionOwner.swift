/// Owns one selection and answers every request for it, as ICCCM §2.2 and §2.6 require:
/// `TARGETS` (exactly what converts), `TIMESTAMP`, `MULTIPLE`, INCR for large data, many
/// transfers at once, and transfers that finish after ownership has moved on.
///
/// - Warning: not thread-safe; it runs on its connection's thread.
public final class SelectionOwner: Conversation {
    /// How the owner serves.
    public struct Configuration: Sendable {
        /// Bytes per INCR chunk; nil derives it from the server (min(1 MiB, max property size)).
        public var chunkSize: Int?
        /// Values larger than this go through INCR; nil uses 4 MiB (capped by the server).
        public var incrementalThreshold: Int?
        /// A requestor that takes no chunk for this long loses its transfer.
        public var transferTimeout: Duration = .seconds(5)
        /// Stop after this many data conversions (`TARGETS`, `TIMESTAMP` do not count).
        public var conversionLimit: Int?
        /// Give the selection up after this long, if still ours.
        public var expiry: Duration?

        /// The defaults: server-derived chunks, no limit, no expiry.
        public init() {}
    }

    /// Why `serve()` returned.
    public enum Outcome: Sendable, Equatable {
        /// Another client took the selection (or it was cleared) and every transfer finished.
        case lostOwnership
        /// `conversionLimit` conversions were served.
        case conversionLimitReached
        /// `expiry` passed and the selection was given up.
        case expired
        /// The caller's stop condition held (a termination signal, say); the selection may still
        /// be ours, and transfers may still be in flight.
        case stopped
    }

    /// The connection requests arrive on.
    public let connection: XConnection
    /// The selection served.
    public let selection: XAtom
    /// What is served.
    public let content: SelectionContent
    /// How.
    public let configuration: Configuration
    /// The server time at which ownership was taken; `.current` before `acquire()`.
    public private(set) var acquiredAt = XTimestamp.current
    /// Data conversions completed so far.
    public internal(set) var conversionsServed = 0
    /// Whether the selection is still ours.
    public private(set) var isOwner = false
    /// The time this owner gave the selection up as of (`relinquish()`, expiry); nil when it
    /// lost it to another client or still has it.
    public private(set) var relinquishedAt: XTimestamp?

    let chunkSize: Int
    private let threshold: Int
    private var cache: [XAtom: ServedValue?] = [:]
    private let offered: [(atom: XAtom, entry: SelectionContent.Entry)]
    var transfers: [TransferKey: Transfer] = [:]
    var expiresAt = Deadline.never
    var expired = false
    let protocolTargets: (targets: XAtom, timestamp: XAtom, multiple: XAtom, saveTargets: XAtom,
        incr: XAtom, atomPair: XAtom, null: XAtom)

    struct TransferKey: Hashable {
        var requestor: XWindow
        var property: XAtom
    }

    struct Transfer {
        var send: IncrementalSend
        var property: XAtom
        var type: XAtom
        var deadline: Deadline
        /// The serial of the transfer's first request: errors from before it concern a window
        /// that had the same id earlier (servers reuse the ids of clients that left).
        var firstSerial: UInt
    }

    /// Prepares to serve `content` as `selection`; nothing happens on the server until `acquire()`.
    public init(
        connection: XConnection, selection: XAtom, content: SelectionContent, configuration: Configuration = .init()
    ) {
        self.connection = connection
        self.selection = selection
        self.content = content
        self.configuration = configuration
        let serverMax = connection.maxPropertyBytes
        self.chunkSize = min(configuration.chunkSize ?? (1 << 20), serverMax)
        self.threshold = min(configuration.incrementalThreshold ?? (4 << 20), serverMax)
        let atoms = connection.atoms(
            ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "INCR", "ATOM_PAIR", "NULL"]
                + content.entries.map(\.target))
        protocolTargets = (atoms[0], atoms[1], atoms[2], atoms[3], atoms[4], atoms[5], atoms[6])
        offered = Array(zip(atoms.dropFirst(7), content.entries)).map { (atom: $0.0, entry: $0.1) }
    }

    /// Takes ownership with a real server timestamp and checks that it took; from then on the
    /// connection's loop brings this owner its requests, whoever waits on the connection.
    ///
    /// - Throws: `.ownershipRefused` when the server did not make us the owner; `.timedOut`,
    ///   `.connectionLost`.
    /// The corresponding Xlib function is `XSetSelectionOwner`.
    public func acquire() throws(PasteboardError) {
        let time = try connection.serverTime()
        connection.setOwner(of: selection, to: connection.window, time: time)
        guard connection.owner(of: selection) == connection.window else {
            throw PasteboardError(.ownershipRefused, "could not take ownership of \(connection.name(of: selection) ?? "the selection")")
        }
        acquiredAt = time
        isOwner = true
        connection.events.register(self)
        if let expiry = configuration.expiry { expiresAt = .after(expiry) }
    }

    /// Gives the selection up, if it is still ours. Transfers in flight still finish.
    ///
    /// The corresponding Xlib function is `XSetSelectionOwner` with `None`.
    public func relinquish() {
        guard isOwner else { return }
        if connection.owner(of: selection) == connection.window {
            connection.setOwner(of: selection, to: .none, time: acquiredAt)
            connection.flush()
            relinquishedAt = acquiredAt
        }
        isOwner = false
    }

    /// Lets a newer owner of the same selection on this connection serve it from now on: the
    /// server sends no SelectionClear when a window takes a selection it already owns.
    /// Transfers in flight still finish.
    public func supersede() {
        isOwner = false
    }

    /// Serves requests until ownership is lost, the conversion limit is reached or the content
    /// expires, and every transfer in flight has finished; or, at once, when `shouldStop` holds.
    ///
    /// `shouldStop` is asked after every event, so whatever makes it true should also wake the
    /// connection (`XConnection.wakeDescriptor`). Other conversations on the connection are
    /// served meanwhile.
    ///
    /// - Throws: `.connectionLost`.
    public func serve(stoppingWhen shouldStop: () -> Bool = { false }) throws(PasteboardError) -> Outcome {
        var outcome: Outcome?
        try connection.events.pump(until: {
            outcome = shouldStop() ? .stopped : finishedOutcome()
            return outcome != nil
        })
        // The last answer must be processed before the caller may exit: a server that sees the
        // connection close can drop requests it has read but not yet run.
        connection.sync()
        return outcome!
    }

    private func finishedOutcome() -> Outcome? {
        guard transfers.isEmpty else { return nil }
        if expired { return .expired }
        if let limit = configuration.conversionLimit, conversionsServed >= limit { return .conversionLimitReached }
        if !isOwner { return .lostOwnership }
        return nil
    }

    // MARK: Events

    /// Whether this owner has nothing left to do: the selection is no longer its, and every
    /// transfer has ended.
    var isFinished: Bool { !isOwner && transfers.isEmpty }

    /// Handles an event if it is this owner's; returns whether it was. Requests for a selection
    /// it no longer owns are left to a newer owner, or to the dispatcher's refusal.
    func handle(_ event: XServerEvent) -> Bool {
        switch event {
        case let .selectionRequest(request) where request.selection == selection && request.owner == connection.window && isOwner:
            answer(request)
            return true
        case let .selectionClear(cleared, window, time) where cleared == selection && window == connection.window && isOwner:
            // A clear older than our acquisition belongs to an earlier ownership (ICCCM §2.1).
            if !time.isBefore(acquiredAt) { isOwner = false }
            return true
        case let .propertyNotify(window, property, _, deleted):
            let key = TransferKey(requestor: window, property: property)
            guard deleted, transfers[key] != nil else { return false }
            sendNextChunk(key)
            return true
        case let .destroyNotify(window):
            let dead = transfers.keys.filter { $0.requestor == window }
            guard !dead.isEmpty else { return false }
            // The window is gone: no request to it (unwatching it would only earn a BadWindow).
            dead.forEach { transfers[$0] = nil }
            connection.forgetRequestor(window)
            return true
        default:
            return false
        }
    }

    private func answer(_ request: ConversionRequest) {
        // ICCCM §2.2: property None comes from obsolete clients and means "use the target".
        let property = request.property == .none ? request.target : request.property
        // A requestor that reuses its property (GTK converts everything into one) has given up
        // on the transfer still going there; its next delete belongs to the new conversion.
        finish(TransferKey(requestor: request.requestor, property: property), completed: false)
        var succeeded = false
        if !isOwner || (request.time != .current && request.time.isBefore(acquiredAt)) {
            succeeded = false
        } else if request.target == protocolTargets.multiple {
            succeeded = convertMultiple(for: request.requestor, property: property)
        } else {
            succeeded = convert(request.target, for: request.requestor, into: property)
        }
        connection.sendSelectionNotify(
            to: request.requestor, selection: selection, target: request.target,
            property: succeeded ? property : .none, time: request.time)
        connection.flush()
    }

    /// Writes one conversion into the requestor's property; false refuses it.
    private func convert(_ target: XAtom, for requestor: XWindow, into property: XAtom) -> Bool {
        switch target {
        case protocolTargets.targets:
            let list = [protocolTargets.targets, protocolTargets.timestamp, protocolTargets.multiple]
                + offered.map(\.atom)
            connection.changeProperty32(on: requestor, property, type: .atom, values: list.map(\.rawValue))
            return true
        case protocolTargets.timestamp:
            connection.changeProperty32(on: requestor, property, type: .integer, values: [UInt(acquiredAt.rawValue)])
            return true
        case protocolTargets.saveTargets:
            // A side-effect target (ICCCM §2.6.3): answered with an empty NULL property.
            connection.changeProperty32(on: requestor, property, type: protocolTargets.null, values: [])
            return true
        default:
            guard let value = value(for: target) else { return false }
            let type = connection.atom(value.type)
            if value.bytes.count > threshold {
                startIncremental(value, type: type, for: requestor, property: property)
            } else {
                let serial = connection.nextRequestSerial()
                value.bytes.withUnsafeBytes {
                    connection.changeProperty(on: requestor, property, type: type, format: value.format, bytes: $0)
                }
                if value.bytes.count > 65536 {
                    // ICCCM §2.5: a large property may fail with BadAlloc; confirm before saying yes.
                    connection.sync()
                    let failed = connection.takeErrors { $0.errorCode == XProtocolError.badAlloc && $0.serial >= serial }
                    if !failed.isEmpty { return false }
                }
                conversionsServed += 1
            }
            return true
        }
    }

    /// ICCCM §2.6.2: the property holds ATOM_PAIRs (target, property); each is converted in
    /// order, failed pairs get None as their property, and the list is written back.
    private func convertMultiple(for requestor: XWindow, property: XAtom) -> Bool {
        let pairs: [UInt]? = connection.withProperty(on: requestor, property, delete: false) { header, bytes in
            header.format == 32 ? PropertyFormat.items32(from: bytes) : nil
        } ?? nil
        guard var pairs, pairs.count >= 2 else { return false }
        if pairs.count % 2 == 1 { pairs.removeLast() }
        for index in stride(from: 0, to: pairs.count, by: 2) {
            let target = XAtom(rawValue: pairs[index])
            let pairProperty = XAtom(rawValue: pairs[index + 1])
            let converted = target != protocolTargets.multiple && target != .none && pairProperty != .none
                && convert(target, for: requestor, into: pairProperty)
            if !converted { pairs[index + 1] = XAtom.none.rawValue }
        }
        connection.changeProperty32(on: requestor, property, type: protocolTargets.atomPair, values: pairs)
        return true
    }

    private func value(for target: XAtom) -> ServedValue? {
        if let cached = cache[target] { return cached }
        let value = offered.first { $0.atom == target }?.entry.produce()
        cache[target] = value
        return value
    }
}
