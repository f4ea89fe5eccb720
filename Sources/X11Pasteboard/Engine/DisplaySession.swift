import FoundationEssentials
import UniformTypes

/// The state of one display's loop: the connection, the selections this process owns, and the
/// selections it watches. Everything a `Pasteboard` does runs here, as a task isolated to this
/// actor, whose executor is the loop's thread; a call that waits for an owner suspends, and the
/// calls behind it run meanwhile. The connection's dispatcher brings each event to its
/// conversation (owners, reads, this session's change counting).
actor DisplaySession: Conversation {
    /// Only ever used on the loop's thread, which is this actor's executor.
    nonisolated(unsafe) let connection: XConnection
    private let hub: ChangeHub
    private let reader: SelectionReader
    private let executor: DisplayExecutor
    /// The selections this process owns now, with the items they serve.
    private var owned: [XAtom: OwnedSelection] = [:]
    /// Owners replaced or cleared whose transfers are still going (ICCCM: a transfer in flight
    /// finishes even if ownership moves on); the dispatcher holds conversations weakly.
    private var retired: [SelectionOwner] = []
    /// Clears of other clients' selections this process made and XFixes has not reported yet,
    /// by the time they were made as of: the report that carries that time is ours (isLocal).
    private var ownClearsInFlight: [XAtom: XTimestamp] = [:]
    private var watched: [XAtom: Pasteboard.Name] = [:]

    struct OwnedSelection {
        let owner: SelectionOwner
        let items: [StoredItem]
    }

    init(connection: XConnection, hub: ChangeHub, executor: DisplayExecutor) {
        self.connection = connection
        self.hub = hub
        self.reader = SelectionReader(connection: connection)
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    // MARK: Counting changes

    nonisolated var isFinished: Bool { false }

    // The dispatcher calls these on the loop's thread: the actor's own.
    nonisolated func runDueWork() -> Deadline {
        assumeIsolated { session in session.retired.removeAll { $0.isFinished } }
        return .never
    }

    nonisolated func handle(_ event: XServerEvent) -> Bool {
        guard case .selectionOwnerChange(let change) = event else { return false }
        return assumeIsolated { session in session.record(change) }
    }

    private func record(_ change: OwnerChange) -> Bool {
        guard let name = watched[change.selection] else { return false }
        let ownWrite = change.owner == connection.window && change.reason == .newOwner
        var ownClear = false
        if change.owner == .none, change.reason == .newOwner {
            if ownClearsInFlight[change.selection] == change.selectionTimestamp {
                ownClear = true
                ownClearsInFlight[change.selection] = nil
            } else if let time = owned[change.selection]?.owner.relinquishedAt, time == change.selectionTimestamp {
                // An expiry, or a clear of our own selection.
                ownClear = true
            }
        }
        hub.record(change, of: name, isLocal: ownWrite || ownClear)
        return true
    }

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
    func changeCount(of name: Pasteboard.Name) throws(PasteboardError) -> Int {
        try connection.events.dispatchReceived(roundTrip: true)
        return hub.changeCount(of: name)
    }

    // MARK: Writing

    /// Whether a change of content is under way, and the changes waiting for it to end.
    private var isChanging = false
    private var waitingToChange: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other change of content runs: an append reads, awaits the owner and
    /// writes, and another write must not slip in between (it would be lost).
    func oneChangeAtATime<T>(_ body: () async throws(PasteboardError) -> T) async throws(PasteboardError) -> T {
        if isChanging {
            // The change that ends hands its turn over: isChanging stays true for this one.
            await withCheckedContinuation { waitingToChange.append($0) }
        } else {
            isChanging = true
        }
        defer {
            if waitingToChange.isEmpty {
                isChanging = false
            } else {
                waitingToChange.removeFirst().resume()
            }
        }
        return try await body()
    }

    /// Takes `selection` and serves `items` from now on; an empty list clears it.
    func write(_ items: [StoredItem], to selection: XAtom, expiry: Duration?) throws(PasteboardError) {
        guard !items.isEmpty else {
            try clear(selection)
            return
        }
        var configuration = SelectionOwner.Configuration()
        configuration.expiry = expiry
        let owner = SelectionOwner(
            connection: connection, selection: selection, content: ItemOffer.content(for: items), configuration: configuration)
        try owner.acquire()
        if let previous = owned[selection]?.owner {
            previous.supersede()
            retire(previous)
        }
        owned[selection] = OwnedSelection(owner: owner, items: items)
        try connection.events.dispatchReceived(roundTrip: false)
    }

    /// Leaves `selection` with no owner, whoever owned it.
    func clear(_ selection: XAtom) throws(PasteboardError) {
        if ownsSelection(selection), let owner = owned[selection]?.owner {
            owner.relinquish()
            retire(owner)
        } else if let time = try connection.clear(selection) {
            ownClearsInFlight[selection] = time
        }
        try connection.events.dispatchReceived(roundTrip: true)
    }

    /// Keeps an owner that lost its selection until its transfers end.
    private func retire(_ owner: SelectionOwner) {
        if !owner.isFinished { retired.append(owner) }
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
        case foreign(TargetOffer)
    }

    func source(of selection: XAtom) async throws(PasteboardError) -> Source {
        let owner = connection.owner(of: selection)
        if owner == .none { return .empty }
        if owner == connection.window, let entry = owned[selection], entry.owner.isOwner { return .local(entry.items) }
        do {
            return .foreign(try await reader.fetchOffer(of: selection))
        } catch where error.code == .noOwner {
            return .empty
        }
    }

    /// The types of a selection's content, from TARGETS alone (or our snapshot).
    func offeredTypes(of selection: XAtom) async throws(PasteboardError) -> [UTType] {
        switch try await source(of: selection) {
        case .empty: []
        case .local(let items): items.first?.types ?? []
        case .foreign(let offer): offer.types
        }
    }

    /// Whether any item holds a type conforming to one of `types`, from TARGETS alone.
    func offersAny(of types: [UTType], in selection: XAtom) async throws(PasteboardError) -> Bool {
        let matches = { (type: UTType) in types.contains { type.conforms(to: $0) } }
        switch try await source(of: selection) {
        case .empty: return false
        case .local(let items): return items.contains { $0.types.contains(where: matches) }
        case .foreign(let offer): return offer.types.contains(where: matches)
        }
    }

    /// Every item, with only the representations `keep` accepts (items keep their places).
    /// A foreign owner's representations are read together: in one round trip through
    /// `MULTIPLE` where it offers that, else side by side.
    func items(of selection: XAtom, keeping keep: @escaping @Sendable (UTType) -> Bool) async throws(PasteboardError) -> [StoredItem] {
        switch try await source(of: selection) {
        case .empty:
            return []
        case .local(let items):
            return items.map { $0.filtered(keep) }
        case .foreign(let offer):
            if let archived = try await archivedItems(of: selection, offer: offer) { return archived.map { $0.filtered(keep) } }
            let plans = offer.candidates.filter { keep($0.type) }.compactMap { offer.plan(for: $0.type) }
            // Side by side, not through MULTIPLE: xsel lists MULTIPLE and dies of it.
            let first = await read(plans, from: selection, multiple: false)
            return [StoredItem(first.compactMap { $0 })] + (try await extraURLItems(of: selection, offer: offer, keeping: keep))
        }
    }

    /// The representation of `type` in each item (nil where an item has none).
    func representations(of type: UTType, in selection: XAtom, firstOnly: Bool) async throws(PasteboardError) -> [StoredItem.Representation?] {
        switch try await source(of: selection) {
        case .empty:
            return []
        case .local(let items):
            return (firstOnly ? Array(items.prefix(1)) : items).map { $0.representation(for: type) }
        case .foreign(let offer):
            if let archived = try await archivedItems(of: selection, offer: offer) {
                return (firstOnly ? Array(archived.prefix(1)) : archived).map { $0.representation(for: type) }
            }
            var first: StoredItem.Representation?
            if let plan = offer.plan(for: type) { first = await read([plan], from: selection, multiple: false)[0] }
            if firstOnly { return [first] }
            let extra = try await extraURLItems(of: selection, offer: offer) { $0.conforms(to: type) }
            return [first] + extra.map { $0.representation(for: type) }
        }
    }

    /// Reads several plans at once; a plan the owner refuses or the translator cannot convert
    /// gives nil.
    private func read(_ plans: [ReadPlan], from selection: XAtom, multiple: Bool) async -> [StoredItem.Representation?] {
        let results = await reader.fetch(selection, targets: connection.atoms(plans.map(\.target)), viaMultiple: multiple)
        return zip(plans, results).map { plan, result in
            guard case let .success(value) = result, let type = plan.type,
                let decoded = try? plan.decode(value.bytes, replyType: connection.name(of: value.type) ?? "")
            else { return nil }
            return StoredItem.Representation(type: type, bytes: decoded)
        }
    }

    /// The items of another xpb process, from its private target.
    private func archivedItems(of selection: XAtom, offer: TargetOffer) async throws(PasteboardError) -> [StoredItem]? {
        guard offer.targets.contains(ItemArchive.target) else { return nil }
        do {
            let (_, bytes) = try await reader.fetch(selection, as: connection.atom(ItemArchive.target))
            return try? ItemArchive.decode(bytes)
        } catch where error.code == .targetNotOffered {
            return nil
        }
    }

    /// A foreign owner shows several files or URLs as one `text/uri-list`; every URI after the
    /// first is an item of its own, as an xpb writer of several items meant it.
    private func extraURLItems(
        of selection: XAtom, offer: TargetOffer, keeping keep: (UTType) -> Bool
    ) async throws(PasteboardError) -> [StoredItem] {
        guard keep(.url) || keep(.fileURL), offer.targets.contains("text/uri-list") else { return [] }
        let uris: [String]
        do {
            let (replyType, bytes) = try await reader.fetch(selection, as: connection.atom("text/uri-list"))
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

    /// Hands `selection` to the clipboard manager (ICCCM §2.6.3 SAVE_TARGETS; selection-protocol.md
    /// §7 items 22–23) if it is our CLIPBOARD, serving every owner of this loop meanwhile.
    func handOffToClipboardManager(of selection: XAtom, timeout: Duration) -> HandOffResult {
        guard let entry = owned[selection] else { return .notOwner }
        let result = entry.owner.handOffToClipboardManager(timeout: timeout)
        try? connection.events.dispatchReceived(roundTrip: result == .refusedSensitive)
        return result
    }
}
