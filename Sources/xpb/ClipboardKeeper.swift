import ClipboardHistory
import Dispatch
import Glibc
import X11Pasteboard

/// The work of `xpb daemon`: keeps a snapshot of whatever owns CLIPBOARD, answers the hand-off,
/// and takes CLIPBOARD over with that snapshot when its owner goes away.
///
/// One thread, one X connection, no timer: it sleeps in the event loop until XFixes reports an
/// owner change or the `ClipboardManagerService` queues a `SAVE_TARGETS`, so an idle daemon uses
/// no CPU. Reads go through `SelectionReader`, which keeps serving our own CLIPBOARD and answering
/// `CLIPBOARD_MANAGER` while it waits for a slow owner.
final class ClipboardKeeper {
    let connection: XConnection
    let service: ClipboardManagerService
    let sizeLimit: Int
    let history: DaemonHistory?
    private let reader: SelectionReader
    private let watcher: SelectionWatcher
    private let clipboard: XAtom
    private let primary: XAtom?
    /// What the current CLIPBOARD owner holds; nil when it is secret, empty or unread.
    private var kept: SelectionSnapshot?
    /// Our own ownership of CLIPBOARD, serving `kept` after its owner left.
    private var serving: SelectionOwner?

    init(
        connection: XConnection, service: ClipboardManagerService, recordsPrimary: Bool, sizeLimit: Int,
        history: DaemonHistory?
    ) throws(PasteboardError) {
        self.connection = connection
        self.service = service
        self.sizeLimit = sizeLimit
        self.history = history
        clipboard = connection.atom("CLIPBOARD")
        primary = recordsPrimary ? .primary : nil
        reader = SelectionReader(connection: connection, timeout: .seconds(5), selections: ["CLIPBOARD"])
        watcher = try SelectionWatcher(connection: connection, selections: [clipboard] + (primary.map { [$0] } ?? []))
    }

    /// Restores or reads the current content, then serves until `shouldStop` holds (a
    /// termination signal, which also wakes the loop) or another manager takes over.
    ///
    /// - Throws: `.connectionLost`.
    func run(stoppingWhen shouldStop: () -> Bool) throws(PasteboardError) {
        let owner = connection.owner(of: clipboard)
        if owner == .none {
            restoreNewest()
        } else {
            keep(owner: owner, reason: "owned CLIPBOARD at start")
        }
        while true {
            try connection.events.serve(until: {
                shouldStop() || service.wasReplaced || service.hasPendingRequest || watcher.hasQueuedChange(of: clipboard)
                    || primary.map(watcher.hasQueuedChange(of:)) == true
            })
            if shouldStop() || service.wasReplaced { return }
            if let request = service.nextRequest() {
                save(request)
            } else if let change = try watcher.nextChange(timeout: .zero) {
                handle(change)
            }
        }
    }

    // MARK: Owner changes

    private func handle(_ change: OwnerChange) {
        // Our own takeover, reported back.
        if change.owner == connection.window { return }
        // A newer change of the same selection is already queued: this owner is history, and
        // what we kept belongs to the one before it, so it must not come back when it leaves.
        if watcher.hasQueuedChange(of: change.selection) {
            if change.selection == clipboard && change.owner != .none { kept = nil }
            return
        }
        if change.selection == primary {
            if change.owner != .none { recordPrimary() }
            return
        }
        if change.owner == .none {
            takeOver(after: change.reason)
        } else {
            keep(owner: change.owner, reason: "new owner")
        }
    }

    /// Reads every representation of the new CLIPBOARD owner and records it.
    private func keep(owner: XWindow, reason: String) {
        let started = ContinuousClock.now
        // The last owner's content is in the history now: let it go before the new one arrives,
        // so that only one entry is held at a time.
        kept = nil
        do {
            guard let snapshot = try SelectionSnapshot.capture(clipboard, with: reader, sizeLimit: sizeLimit) else {
                kept = nil
                DaemonLog.line("CLIPBOARD of \(owner) is marked secret: not read, not kept")
                return
            }
            guard !snapshot.representations.isEmpty else {
                kept = nil
                DaemonLog.line("CLIPBOARD of \(owner) offers nothing readable within \(ByteCount.describe(sizeLimit))")
                return
            }
            kept = snapshot
            DaemonLog.line("kept CLIPBOARD of \(owner) (\(reason)): \(Self.summary(snapshot)) in \(Self.milliseconds(since: started))")
            record(snapshot, selection: "CLIPBOARD")
        } catch {
            kept = nil
            DaemonLog.line("could not read CLIPBOARD of \(owner): \(error.message)")
        }
    }

    private func recordPrimary() {
        guard let primary else { return }
        do {
            guard let snapshot = try SelectionSnapshot.capture(primary, with: reader, sizeLimit: sizeLimit),
                !snapshot.representations.isEmpty
            else { return }
            record(snapshot, selection: "PRIMARY")
        } catch {
            DaemonLog.line("could not read PRIMARY: \(error.message)")
        }
    }

    /// CLIPBOARD has no owner any more: serve what its last owner held, unless somebody cleared
    /// it on purpose (`xpb clear`, `xsel -c`, a password manager's timeout): a clear must leave
    /// the clipboard empty, as the spec of `xpb clear` says. XFixes does not tell a program that
    /// clears on its way out from a user who clears, so such a program's content goes too.
    private func takeOver(after reason: OwnerChange.Reason) {
        guard let snapshot = kept else { return }
        let why: String
        switch reason {
        case .ownerClientClosed: why = "its owner exited"
        case .ownerWindowDestroyed: why = "its owner's window was destroyed"
        case .newOwner:
            kept = nil
            DaemonLog.line("CLIPBOARD was cleared: left empty")
            return
        }
        if serve(snapshot.content) { DaemonLog.line("took CLIPBOARD over after \(why): \(Self.summary(snapshot))") }
    }

    /// Takes CLIPBOARD and serves `content`: exactly its targets, types, formats and bytes.
    @discardableResult
    private func serve(_ content: SelectionContent) -> Bool {
        let owner = SelectionOwner(connection: connection, selection: clipboard, content: content)
        do {
            try owner.acquire()
        } catch {
            DaemonLog.line("could not take CLIPBOARD: \(error.message)")
            return false
        }
        serving?.supersede()
        serving = owner
        return true
    }

    private func restoreNewest() {
        guard let history else { return }
        do {
            // Large representations stay in their files until someone pastes them.
            guard let newest = try history.newestContent(), !newest.isSensitive, !newest.entries.isEmpty else { return }
            if serve(newest) {
                let targets = newest.entries.map(\.target)
                DaemonLog.line("restored the newest entry to CLIPBOARD: \(targets.count) targets (\(targets.joined(separator: ", ")))")
            }
        } catch {
            DaemonLog.line("could not read the history: \(error)")
        }
    }

    // MARK: SAVE_TARGETS

    /// Saves CLIPBOARD for an application about to exit, takes it, and only then answers.
    private func save(_ request: ClipboardManagerService.SaveRequest) {
        let started = ContinuousClock.now
        let owner = connection.owner(of: clipboard)
        if owner == connection.window {
            // Already ours (the content was kept when its owner left): nothing to copy.
            service.answer(request, saved: true)
            return
        }
        guard owner != .none else {
            DaemonLog.line("SAVE_TARGETS from \(request.requestor) refused: CLIPBOARD has no owner")
            service.answer(request, saved: false)
            return
        }
        do {
            // The program waits for us on its way out: MULTIPLE, which Qt answers in that state.
            guard var snapshot = try SelectionSnapshot.capture(clipboard, with: reader, sizeLimit: sizeLimit, viaMultiple: true) else {
                kept = nil
                DaemonLog.line("SAVE_TARGETS from \(request.requestor) refused: the content is marked secret")
                service.answer(request, saved: false)
                return
            }
            if let listed = request.targets {
                snapshot.representations.removeAll { !listed.contains($0.target) }
            }
            guard !snapshot.representations.isEmpty else {
                DaemonLog.line("SAVE_TARGETS from \(request.requestor) refused: nothing readable")
                service.answer(request, saved: false)
                return
            }
            kept = snapshot
            record(snapshot, selection: "CLIPBOARD")
            // Ours before the application hears back: it exits at once, and the clipboard must
            // not be empty in between.
            let took = serve(snapshot.content)
            service.answer(request, saved: took)
            DaemonLog.line(
                "saved CLIPBOARD for \(request.requestor) (SAVE_TARGETS\(request.targets == nil ? "" : " with \(request.targets!.count) targets")): \(Self.summary(snapshot)) in \(Self.milliseconds(since: started))")
        } catch {
            DaemonLog.line("SAVE_TARGETS from \(request.requestor) failed: \(error.message)")
            service.answer(request, saved: false)
        }
    }

    // MARK: Helpers

    private func record(_ snapshot: SelectionSnapshot, selection: String) {
        history?.record(snapshot, selection)
    }

    static func summary(_ snapshot: SelectionSnapshot) -> String {
        let targets = snapshot.representations.map(\.target)
        let shown = targets.count > 6 ? targets.prefix(6).joined(separator: ", ") + ", …" : targets.joined(separator: ", ")
        return "\(targets.count) targets (\(shown)), \(ByteCount.describe(snapshot.size))"
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return "\((ms * 10).rounded() / 10) ms"
    }
}

/// Where the daemon records what it saw, and finds what to restore: the history store.
///
/// Writes run on a thread of their own, in order: hashing and syncing a 64 MiB entry to disk
/// takes long enough that Qt, waiting for its SAVE_TARGETS answer, would give up if the X loop
/// waited for it. `finish()` waits for the writes queued so far (SIGTERM: finish writing).
final class DaemonHistory: @unchecked Sendable {
    private let store: HistoryStore
    private let writer = DispatchQueue(label: "xpb daemon history writer")

    private init(store: HistoryStore) {
        self.store = store
    }

    /// The history under `$XDG_STATE_HOME/xpb`; nil (with a log line) when it cannot be opened,
    /// so the daemon still keeps the clipboard alive.
    static func open(log: (String) -> Void) -> DaemonHistory? {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let directory = HistoryStore.defaultDirectory(environment: environment)
        do {
            let store = try HistoryStore(directory: directory)
            log("recording the history in \(directory)")
            return DaemonHistory(store: store)
        } catch {
            log("cannot open the history in \(directory), keeping the clipboard without it: \(error)")
            return nil
        }
    }

    /// Queues `snapshot` for the history; failures are logged.
    func record(_ snapshot: SelectionSnapshot, _ selection: String) {
        writer.async { [store] in
            do {
                try store.record(snapshot, selection: selection)
            } catch {
                DaemonLog.line("could not write the history: \(error)")
            }
        }
    }

    /// What serves the newest CLIPBOARD entry (its large representations read from their
    /// files when first asked for), once the writes queued so far are done; nil when there is
    /// none. A PRIMARY entry (`--primary`) is a mouse selection, not something copied: it does
    /// not come back as the clipboard.
    func newestContent() throws -> SelectionContent? {
        try writer.sync {
            guard let entry = try store.entries().first(where: { $0.selection == "CLIPBOARD" }) else { return nil }
            do {
                return try store.content(at: entry.index)
            } catch let error as HistoryError where error.isMissingEntry {
                return nil
            }
        }
    }

    /// Waits for every queued write.
    func finish() {
        writer.sync {}
    }
}
