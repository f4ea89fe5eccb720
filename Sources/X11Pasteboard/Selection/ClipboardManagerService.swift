/// The clipboard manager's side of the hand-off (ICCCM §2.6.3 `SAVE_TARGETS`, the freedesktop
/// ClipboardManager spec): owns `CLIPBOARD_MANAGER`, and when an application about to exit asks
/// it to save CLIPBOARD, records the request for the manager's loop to carry out.
///
/// `handle()` never blocks on another client: a request is only queued (with the target list
/// the requestor left in its property, if any). The manager's loop takes it with
/// `nextRequest()`, reads CLIPBOARD from its owner with a `SelectionReader` (which keeps every
/// other conversation served meanwhile), and only then answers with `answer(_:saved:)`: the spec
/// asks for the final SelectionNotify after every transfer is done, and Qt and GTK exit as soon
/// as they get it.
///
/// - Warning: not thread-safe; it runs on its connection's thread.
public final class ClipboardManagerService: Conversation {
    /// An application's request to save CLIPBOARD before it exits.
    public struct SaveRequest: Sendable, Hashable {
        /// The window that asked (the CLIPBOARD owner's window, normally).
        public var requestor: XWindow
        /// The targets the requestor listed in its property; nil asks for every target the
        /// owner offers (Qt sends no list).
        public var targets: [String]?
        var property: XAtom
        var time: XTimestamp
    }

    /// A manager that already runs on the display: its window and, when it says, its process.
    public struct RunningManager: Sendable, Hashable {
        /// The `CLIPBOARD_MANAGER` owner's window.
        public var window: XWindow
        /// The process id from the window's `_NET_WM_PID`, when it has one.
        public var processID: Int?
        /// The window's `WM_NAME`, when it has one (xpb names itself `xpb daemon`).
        public var name: String?
    }

    /// The connection the manager serves on.
    public let connection: XConnection
    /// Whether `CLIPBOARD_MANAGER` is ours.
    public private(set) var isOwner = false
    /// Whether another client took `CLIPBOARD_MANAGER` from us (a second manager started).
    public private(set) var wasReplaced = false
    private var acquiredAt = XTimestamp.current
    private var queued: [SaveRequest] = []
    private let atoms: (manager: XAtom, saveTargets: XAtom, targets: XAtom, timestamp: XAtom, null: XAtom)

    /// Prepares to manage the clipboard of `connection`'s display; nothing happens on the server
    /// until `acquire()`.
    public init(connection: XConnection) {
        self.connection = connection
        let names = connection.atoms(["CLIPBOARD_MANAGER", "SAVE_TARGETS", "TARGETS", "TIMESTAMP", "NULL"])
        atoms = (names[0], names[1], names[2], names[3], names[4])
    }

    /// The manager running on `connection`'s display, nil when `CLIPBOARD_MANAGER` has no owner.
    public static func runningManager(on connection: XConnection) -> RunningManager? {
        let window = connection.owner(of: connection.atom("CLIPBOARD_MANAGER"))
        guard window != .none else { return nil }
        let pid: Int? = connection.withProperty(on: window, connection.atom("_NET_WM_PID"), delete: false) { header, bytes in
            header.format == 32 ? PropertyFormat.items32(from: bytes).first.map { Int($0) } : nil
        } ?? nil
        let name: String? = connection.withProperty(on: window, connection.atom("WM_NAME"), delete: false) { header, bytes in
            header.format == 8 && bytes.count > 0 ? String(decoding: bytes, as: UTF8.self) : nil
        } ?? nil
        // A window that vanished between the two requests only costs us its description.
        _ = connection.takeErrors { _ in true }
        return RunningManager(window: window, processID: pid, name: name)
    }

    /// Takes `CLIPBOARD_MANAGER` with a real server time, after labelling our window with
    /// `processID` and `name` (so that a second manager can say which one runs).
    ///
    /// - Throws: `.ownershipRefused` when another manager holds it or took it at the same
    ///   moment; `.timedOut`, `.connectionLost`.
    public func acquire(processID: Int, name: String) throws(PasteboardError) {
        connection.changeProperty32(on: connection.window, connection.atom("_NET_WM_PID"), type: connection.atom("CARDINAL"), values: [UInt(processID)])
        let nameBytes = Array(name.utf8)
        nameBytes.withUnsafeBytes {
            connection.changeProperty(on: connection.window, connection.atom("WM_NAME"), type: connection.atom("UTF8_STRING"), format: 8, bytes: $0)
        }
        guard connection.owner(of: atoms.manager) == .none else {
            throw PasteboardError(.ownershipRefused, "another clipboard manager owns CLIPBOARD_MANAGER")
        }
        let time = try connection.serverTime()
        connection.setOwner(of: atoms.manager, to: connection.window, time: time)
        guard connection.owner(of: atoms.manager) == connection.window else {
            throw PasteboardError(.ownershipRefused, "could not take CLIPBOARD_MANAGER")
        }
        acquiredAt = time
        isOwner = true
        connection.events.register(self)
        // The ICCCM asks a new manager to announce itself to clients that wait for one.
        connection.announceManager(of: atoms.manager, window: connection.window, time: time)
        connection.flush()
    }

    /// Gives `CLIPBOARD_MANAGER` up, if it is still ours.
    public func relinquish() {
        guard isOwner else { return }
        if connection.owner(of: atoms.manager) == connection.window {
            connection.setOwner(of: atoms.manager, to: .none, time: acquiredAt)
            connection.flush()
        }
        isOwner = false
    }

    /// Whether a save request waits for the loop.
    public var hasPendingRequest: Bool { !queued.isEmpty }

    /// The oldest waiting save request, if any.
    public func nextRequest() -> SaveRequest? {
        queued.isEmpty ? nil : queued.removeFirst()
    }

    /// Tells the requestor whether its content was saved: the final SelectionNotify, sent once
    /// every read is done. Success leaves an empty `NULL` property, as for any side-effect
    /// target (ICCCM §2.6.3).
    public func answer(_ request: SaveRequest, saved: Bool) {
        if saved {
            connection.changeProperty32(on: request.requestor, request.property, type: atoms.null, values: [])
        }
        connection.sendSelectionNotify(
            to: request.requestor, selection: atoms.manager, target: atoms.saveTargets,
            property: saved ? request.property : .none, time: request.time)
        connection.flush()
        // The requestor may have exited already: its BadWindow is no concern of ours.
        connection.sync()
        _ = connection.takeErrors { _ in true }
    }

    // MARK: Events

    var isFinished: Bool { !isOwner }

    func handle(_ event: XServerEvent) -> Bool {
        switch event {
        case let .selectionRequest(request) where request.selection == atoms.manager && request.owner == connection.window:
            respond(to: request)
            return true
        case let .selectionClear(selection, window, time) where selection == atoms.manager && window == connection.window:
            if !time.isBefore(acquiredAt) {
                isOwner = false
                wasReplaced = true
            }
            return true
        default:
            return false
        }
    }

    func connectionLost(_ error: PasteboardError) {
        isOwner = false
    }

    private func respond(to request: ConversionRequest) {
        let property = request.property == .none ? request.target : request.property
        switch request.target {
        case atoms.saveTargets:
            // The list is read now (one request, no waiting on anyone): the requestor may
            // reuse its property once we answer.
            var targets: [String]?
            if request.property != .none {
                let listed: [XAtom]? = connection.withProperty(on: request.requestor, request.property, delete: false) { header, bytes in
                    header.format == 32 ? PropertyFormat.items32(from: bytes).map(XAtom.init(rawValue:)) : nil
                } ?? nil
                if let listed, !listed.isEmpty {
                    targets = connection.names(of: listed.filter { $0 != .none }).compactMap { $0 }
                }
            }
            queued.append(SaveRequest(requestor: request.requestor, targets: targets, property: property, time: request.time))
        case atoms.targets:
            connection.changeProperty32(
                on: request.requestor, property, type: .atom,
                values: [atoms.targets, atoms.timestamp, atoms.saveTargets].map(\.rawValue))
            reply(to: request, property: property)
        case atoms.timestamp:
            connection.changeProperty32(on: request.requestor, property, type: .integer, values: [UInt(acquiredAt.rawValue)])
            reply(to: request, property: property)
        default:
            reply(to: request, property: .none)
        }
    }

    private func reply(to request: ConversionRequest, property: XAtom) {
        connection.sendSelectionNotify(
            to: request.requestor, selection: request.selection, target: request.target, property: property,
            time: request.time)
        connection.flush()
    }
}
