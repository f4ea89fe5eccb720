import FoundationEssentials
import UniformTypes

/// The state of one display's engine thread: the connection, the selections this process owns,
/// and the selections it watches. Everything a `Pasteboard` does runs here as a job.
///
/// - Warning: confined to the engine thread of its `DisplayEngine`.
final class DisplayLoop {
    let connection: XConnection
    private let hub: ChangeHub
    private var reader: SelectionReader
    /// The selections this process owns now, with the items they serve.
    private var owned: [XAtom: OwnedSelection] = [:]
    /// Owners replaced by a newer write whose transfers are still going (ICCCM: a transfer in
    /// flight finishes even if ownership moves on).
    private var retired: [SelectionOwner] = []
    /// Clears this process made and XFixes has not reported yet, by the time they were made as
    /// of: the report that carries that time is ours (isLocal).
    private var ownClearsInFlight: [XAtom: XTimestamp] = [:]
    private var watched: [XAtom: Pasteboard.Name] = [:]

    struct OwnedSelection {
        let owner: SelectionOwner
        let items: [StoredItem]
        var isSensitive: Bool { items.contains { $0.metadata.isSensitive } }
    }

    init(connection: XConnection, hub: ChangeHub) {
        self.connection = connection
        self.hub = hub
        self.reader = SelectionReader(connection: connection)
    }

    // MARK: Events

    /// Hands an event to whoever it belongs to; true when somebody took it.
    func dispatch(_ event: XEventKind) -> Bool {
        switch event {
        case .selectionOwnerChange(let change):
            guard let name = watched[change.selection] else { return false }
            let ownWrite = change.owner == connection.window && change.reason == .newOwner
            var ownClear = false
            if change.owner == .none, change.reason == .newOwner, ownClearsInFlight[change.selection] == change.selectionTimestamp {
                ownClear = true
                ownClearsInFlight[change.selection] = nil
            }
            hub.record(change, of: name, isLocal: ownWrite || ownClear)
            return true
        case .selectionRequest(let request):
            if let current = owned[request.selection]?.owner, current.handle(event) { return true }
            // Not (or no longer) ours: refuse at once rather than let the requestor time out.
            connection.sendSelectionNotify(
                to: request.requestor, selection: request.selection, target: request.target, property: .none,
                time: request.time)
            connection.flush()
            return true
        case .selectionClear(let selection, _, _):
            return owned[selection]?.owner.handle(event) ?? false
        case .other:
            return true
        default:
            // Chunk acknowledgements and dead requestors of INCR transfers.
            for owner in owned.values.map(\.owner) + retired where owner.handle(event) { return true }
            return false
        }
    }

    /// Runs what is due without an event (transfer timeouts, expiries) and forgets owners that
    /// have nothing left to do. Returns when to be called again.
    func runDueWork() -> Deadline {
        var deadline = Deadline.never
        for owner in owned.values.map(\.owner) + retired { deadline = deadline.earlier(owner.runDueWork()) }
        retired.removeAll { !$0.hasTransfersInFlight }
        for (selection, entry) in owned where !entry.owner.isOwner {
            // An expiry gave it up: that clear is ours too.
            if let time = entry.owner.relinquishedAt { ownClearsInFlight[selection] = time }
            if entry.owner.hasTransfersInFlight { retired.append(entry.owner) }
            owned[selection] = nil
        }
        return deadline
    }

    /// Handles the events the server has already sent, so that a change this job caused (our
    /// own SetSelectionOwner) is counted before the caller hears back.
    func handleEventsReceived(roundTrip: Bool) {
        if roundTrip { connection.sync() }
        while let event = connection.nextEvent(before: .after(.zero)) { _ = dispatch(event) }
    }

    // MARK: Watching

    /// The atom of a selection, with its changes counted from now on.
    func watch(_ name: Pasteboard.Name) -> XAtom {
        let selection = connection.atom(name.rawValue)
        if watched[selection] == nil {
            watched[selection] = name
            hub.startCounting(name)
            // Without XFixes nothing is counted; reads and writes still work.
            try? connection.watchOwnerChanges(of: selection)
            connection.flush()
        }
        return selection
    }

    /// The change count of `name`, after every change the server made before this call.
    func changeCount(of name: Pasteboard.Name) -> Int {
        handleEventsReceived(roundTrip: true)
        return hub.changeCount(of: name)
    }

    // MARK: Writing

    /// Takes `selection` and serves `items` from now on; an empty list clears it.
    func write(_ items: [StoredItem], to selection: XAtom, expiry: Duration?) throws(PasteboardError) {
        guard !items.isEmpty else {
            try clear(selection)
            return
        }
        var configuration = SelectionOwner.Configuration()
        configuration.expiry = expiry
        // This loop routes events to the owners it keeps, so replaced owners leave nothing behind.
        let owner = SelectionOwner(
            connection: connection, selection: selection, content: ItemOffer.content(for: items),
            configuration: configuration, receivesRoutedEvents: false)
        try owner.acquire()
        if let previous = owned[selection]?.owner, previous.hasTransfersInFlight { retired.append(previous) }
        owned[selection] = OwnedSelection(owner: owner, items: items)
        handleEventsReceived(roundTrip: false)
    }

    /// Leaves `selection` with no owner, whoever owned it.
    func clear(_ selection: XAtom) throws(PasteboardError) {
        if ownsSelection(selection), let owner = owned[selection]?.owner {
            owner.relinquish()
            ownClearsInFlight[selection] = owner.relinquishedAt
        } else if let time = try connection.clear(selection) {
            ownClearsInFlight[selection] = time
        }
        handleEventsReceived(roundTrip: true)
    }

    /// Whether this process owns `selection` now.
    func ownsSelection(_ selection: XAtom) -> Bool {
        guard let entry = owned[selection], entry.owner.isOwner else { return false }
        return connection.owner(of: selection) == connection.window
    }

    // MARK: Reading

    /// Where a selection's content comes from.
    enum Source {
        case empty
        /// Our own snapshot: never a conversion to ourselves.
        case local([StoredItem])
        case foreign(ForeignOffer)
    }

    func source(of selection: XAtom) throws(PasteboardError) -> Source {
        let owner = connection.owner(of: selection)
        if owner == .none { return .empty }
        if owner == connection.window, let entry = owned[selection], entry.owner.isOwner { return .local(entry.items) }
        do {
            return .foreign(ForeignOffer(targets: try reader.offeredTargetNames(of: selection)))
        } catch where error.code == .noOwner {
            return .empty
        }
    }

    /// The types of a selection's content, from TARGETS alone (or our snapshot).
    func offeredTypes(of selection: XAtom) throws(PasteboardError) -> [UTType] {
        switch try source(of: selection) {
        case .empty: []
        case .local(let items): items.first?.types ?? []
        case .foreign(let offer): offer.candidates.map(\.type)
        }
    }

    /// Whether any item holds a type conforming to one of `types`, from TARGETS alone.
    func offersAny(of types: [UTType], in selection: XAtom) throws(PasteboardError) -> Bool {
        let matches = { (type: UTType) in types.contains { type.conforms(to: $0) } }
        switch try source(of: selection) {
        case .empty: return false
        case .local(let items): return items.contains { $0.types.contains(where: matches) }
        case .foreign(let offer): return offer.candidates.contains { matches($0.type) }
        }
    }

    /// Every item, with only the representations `keep` accepts (items keep their places).
    func items(of selection: XAtom, keeping keep: @escaping (UTType) -> Bool) throws(PasteboardError) -> [StoredItem] {
        switch try source(of: selection) {
        case .empty:
            return []
        case .local(let items):
            return items.map { $0.filtered(keep) }
        case .foreign(let offer):
            if let archived = try archivedItems(of: selection, offer: offer) { return archived.map { $0.filtered(keep) } }
            var first: [StoredItem.Representation] = []
            for candidate in offer.candidates where keep(candidate.type) {
                if let representation = try fetch(candidate.type, from: offer, of: selection) { first.append(representation) }
            }
            return [StoredItem(first)] + (try extraURLItems(of: selection, offer: offer, keeping: keep))
        }
    }

    /// The representation of `type` in each item (nil where an item has none).
    func representations(of type: UTType, in selection: XAtom, firstOnly: Bool) throws(PasteboardError) -> [StoredItem.Representation?] {
        switch try source(of: selection) {
        case .empty:
            return []
        case .local(let items):
            return (firstOnly ? Array(items.prefix(1)) : items).map { $0.representation(for: type) }
        case .foreign(let offer):
            if let archived = try archivedItems(of: selection, offer: offer) {
                return (firstOnly ? Array(archived.prefix(1)) : archived).map { $0.representation(for: type) }
            }
            let first = try fetch(type, from: offer, of: selection)
            if firstOnly { return [first] }
            let extra = try extraURLItems(of: selection, offer: offer) { $0.conforms(to: type) }
            return [first] + extra.map { $0.representation(for: type) }
        }
    }

    /// The items of another xpb process, from its private target.
    private func archivedItems(of selection: XAtom, offer: ForeignOffer) throws(PasteboardError) -> [StoredItem]? {
        guard offer.targets.contains(ItemArchive.target) else { return nil }
        do {
            let (_, bytes) = try reader.read(selection, as: connection.atom(ItemArchive.target))
            return try? ItemArchive.decode(bytes)
        } catch where error.code == .targetNotOffered {
            return nil
        }
    }

    /// Reads the best target for `type` and converts it; nil when the owner has nothing for it.
    private func fetch(_ type: UTType, from offer: ForeignOffer, of selection: XAtom) throws(PasteboardError) -> StoredItem.Representation? {
        let target: String
        var resultType = type
        if let best = XTargetCrosswalk.bestTarget(for: type, among: offer.targets) {
            target = best
        } else if let candidate = offer.candidates.first(where: { $0.type.conforms(to: type) }) {
            // Asked for a supertype (public.image): read the owner's own subtype.
            target = candidate.target
            resultType = candidate.type
        } else {
            return nil
        }
        do {
            let (replyType, bytes) = try reader.read(selection, as: connection.atom(target))
            let decoded = try? XTargetCrosswalk.decode(
                bytes, target: target, replyType: connection.name(of: replyType) ?? "", to: resultType)
            return decoded.map { StoredItem.Representation(type: resultType, bytes: $0) }
        } catch where error.code == .targetNotOffered {
            return nil
        }
    }

    /// A foreign owner shows several files or URLs as one `text/uri-list`; every URI after the
    /// first is an item of its own, as an xpb writer of several items meant it.
    private func extraURLItems(
        of selection: XAtom, offer: ForeignOffer, keeping keep: (UTType) -> Bool
    ) throws(PasteboardError) -> [StoredItem] {
        guard keep(.url) || keep(.fileURL), offer.targets.contains("text/uri-list") else { return [] }
        let uris: [String]
        do {
            let (replyType, bytes) = try reader.read(selection, as: connection.atom("text/uri-list"))
            uris = (try? XTargetCrosswalk.decodeURIs(bytes, target: "text/uri-list", replyType: connection.name(of: replyType) ?? "")) ?? []
        } catch where error.code == .targetNotOffered {
            return []
        }
        return uris.dropFirst().map { uri in
            let type: UTType = FileURL.pathBytes(fromURI: uri) != nil ? .fileURL : .url
            return StoredItem([.init(type: type, bytes: Array(uri.utf8))]).filtered(keep)
        }
    }

    // MARK: Clipboard manager

    /// Hands CLIPBOARD to the clipboard manager (ICCCM §2.6.3 SAVE_TARGETS; selection-protocol.md
    /// §7 items 22–23), serving every owner of this loop meanwhile.
    func handOffToClipboardManager(timeout: Duration) -> Pasteboard.HandOffResult {
        let clipboard = connection.atom("CLIPBOARD")
        guard ownsSelection(clipboard), let entry = owned[clipboard] else { return .notOwner }
        if entry.isSensitive {
            // A secret must not outlive its writer in a manager's history.
            entry.owner.relinquish()
            handleEventsReceived(roundTrip: true)
            return .refusedSensitive
        }
        return entry.owner.handOff(
            timeout: timeout, othersBusy: { self.retired.contains { $0.hasTransfersInFlight } },
            otherWork: runDueWork, dispatch: { _ = self.dispatch($0) })
    }
}

/// What a foreign owner offers, by target name, and the types it amounts to.
struct ForeignOffer {
    /// The owner's targets, as `SelectionReader.offeredTargetNames(of:)` gives them.
    let targets: [String]
    /// One target per type, in the owner's order; every text target counts as UTF-8 text (the
    /// reader converts), and the private items target is not a type of the first item.
    let candidates: [(type: UTType, target: String)]

    init(targets: [String]) {
        self.targets = targets
        var types = Set<UTType>()
        var candidates: [(type: UTType, target: String)] = []
        for target in self.targets where target != ItemArchive.target {
            guard var type = PasteboardType.forTarget(target) else { continue }
            if type == .plainText || type == .utf8PlainText || type == .utf16PlainText { type = .utf8PlainText }
            if types.insert(type).inserted { candidates.append((type, target)) }
        }
        self.candidates = candidates
    }
}
