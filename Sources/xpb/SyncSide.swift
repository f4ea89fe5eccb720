import Glibc
import Synchronization
import X11Pasteboard

/// Content for a selection, handed to the thread of the display that will own it.
struct Publication: Sendable {
    /// The selection's atom name.
    var selection: String
    /// What to serve.
    var content: SelectionContent
    /// For a two-way mirror: where the copy stands among those that crossed (`CrossingCopies`).
    var stamp: CopyStamp?
}

/// One display's half of `xpb sync` and `xpb bridge`: watches selections, captures every
/// representation when someone else copies, and takes the selections with content handed over
/// from the other half. Changes it made itself (its window is the owner) are never captured,
/// so nothing echoes; bursts are coalesced (`ChangeCoalescer`).
///
/// - Warning: confined to the thread that runs it, like its connection.
final class SyncSide {
    let connection: XConnection
    let mirror: SelectionMirror
    private let reader: SelectionReader
    private let watcher: SelectionWatcher
    /// The watched selections' atoms and names.
    private let watched: [(atom: XAtom, name: String)]
    private var coalescers: [XAtom: ChangeCoalescer] = [:]
    /// The most bytes one capture keeps.
    var sizeLimit = 256 << 20
    /// Where failures to read or take a selection are reported ("sync", "bridge").
    let context: String
    /// The owner whose content the last capture read.
    private(set) var capturedOwner = XWindow.none
    /// Whether a publication from the inbox is to be taken (a bridge drops the loser of two
    /// crossing copies).
    var accepts: (Publication) -> Bool = { _ in true }

    /// A side on `connection` that watches `selections` (none: it only takes what it is given).
    init(connection: XConnection, watching selections: [String], context: String) throws(PasteboardError) {
        self.connection = connection
        self.context = context
        mirror = SelectionMirror(connection: connection)
        reader = SelectionReader(connection: connection, timeout: .seconds(2), selections: selections)
        watched = selections.map { (connection.atom($0), $0) }
        watcher = try SelectionWatcher(connection: connection, selections: watched.map(\.atom))
    }

    /// Captures `name` now, unless nobody or this side owns it; nil when there is nothing to
    /// hand on (no owner, secret content, an owner that failed).
    func capture(_ name: String) throws(PasteboardError) -> SelectionSnapshot? {
        let atom = connection.atom(name)
        let owner = connection.owner(of: atom)
        guard owner != .none, owner != connection.window else { return nil }
        capturedOwner = owner
        do {
            guard let snapshot = try SelectionSnapshot.capture(atom, with: reader, sizeLimit: sizeLimit),
                !snapshot.representations.isEmpty
            else { return nil }
            return snapshot
        } catch where error.code == .connectionLost {
            throw error
        } catch where error.code == .noOwner {
            return nil
        } catch {
            StandardError.write("xpb: \(context): cannot read \(name): \(error.message)\n")
            return nil
        }
    }

    /// Takes `publication.selection` with its content.
    func publish(_ publication: Publication) {
        do {
            try mirror.publish(publication.content, as: connection.atom(publication.selection))
        } catch {
            StandardError.write("xpb: \(context): cannot take \(publication.selection): \(error.message)\n")
        }
    }

    /// Takes what `inbox` holds, as `accepts` lets it.
    func take(_ inbox: Mailbox<Publication>) {
        for publication in inbox.takeAll() where accepts(publication) { publish(publication) }
    }

    /// Serves, watches and publishes until asked to stop (`SyncStop`), then hands CLIPBOARD,
    /// if it serves it, to the clipboard manager: `handOn` gets every change someone else makes
    /// (captured), `inbox` brings content to take and wakes the loop for a stop.
    ///
    /// - Throws: `.connectionLost`, and what `handOn` throws.
    func run(
        inbox: Mailbox<Publication>, handOn: (String, SelectionSnapshot) throws(PasteboardError) -> Void
    ) throws(PasteboardError) {
        connection.wakeDescriptor = inbox.wakeDescriptor
        defer { mirror.handOffToClipboardManager() }
        while !SyncStop.isRequested {
            take(inbox)
            let now = ContinuousClock.now
            for (atom, name) in watched where coalescers[atom]?.takeDue(at: now) == true {
                if let snapshot = try capture(name) { try handOn(name, snapshot) }
            }
            let nextDue = coalescers.values.compactMap(\.pendingDue).min()
            let timeout = nextDue.map { max(.zero, ContinuousClock.now.duration(to: $0)) }
            guard let change = try watcher.nextChange(timeout: timeout, stoppingWhen: { inbox.hasMessages || SyncStop.isRequested }),
                let name = watched.first(where: { $0.atom == change.selection })?.name
            else { continue }
            if mirror.madeChange(change) { continue }
            if change.owner == .none {
                coalescers[change.selection, default: ChangeCoalescer()].cancel()
                continue
            }
            // A newer change already queued makes this owner stale: the newer one is held back
            // by the coalescer and mirrored once the burst is over.
            if coalescers[change.selection, default: ChangeCoalescer()].changed(at: .now),
                !watcher.hasQueuedChange(of: change.selection),
                let snapshot = try capture(name)
            {
                try handOn(name, snapshot)
            }
        }
    }
}

/// How `xpb sync` and `xpb bridge` end properly (SIGTERM, SIGINT, SIGHUP, or the end of the
/// bridge's stream): every side is asked to stop, leaves its loop and hands the CLIPBOARD it
/// serves to the clipboard manager, as `xpb copy` does, instead of taking it away.
enum SyncStop {
    private static let flag = Atomic(false)

    /// Whether the sides are to stop.
    static var isRequested: Bool { flag.load(ordering: .acquiring) }

    /// Asks every side to stop, waking each through its inbox.
    static func request(waking inboxes: [Mailbox<Publication>]) {
        flag.store(true, ordering: .releasing)
        for inbox in inboxes { inbox.wake() }
    }

    /// Turns the termination signals into `request(waking:)`, from a thread of its own (a
    /// signal handler can do nothing but write a byte).
    static func onTerminationSignals(waking inboxes: [Mailbox<Publication>]) {
        guard let descriptor = TerminationSignals.catchIntoPipe() else { return }
        DetachedThread.start {
            var byte: UInt8 = 0
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while read(descriptor, &byte, 1) != 1 { _ = poll(&waiting, 1, -1) }
            request(waking: inboxes)
        }
    }
}
