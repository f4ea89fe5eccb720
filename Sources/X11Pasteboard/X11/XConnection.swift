internal import CX11
import Glibc
import Synchronization

/// One connection to an X server, with a private 1×1 window that the engine uses as requestor and
/// as selection owner.
///
/// Every Xlib call of the engine goes through this type, so the C API stays at this edge.
///
/// - Warning: not thread-safe. Confine a connection to one thread (the `Pasteboard` model runs
///   its own on a dedicated thread).
public final class XConnection {
    let display: OpaquePointer
    /// The name of the display, as given or from `$DISPLAY`.
    public let displayName: String
    /// The connection's own window: the requestor of its conversions and the owner of its selections.
    public let window: XWindow
    /// The most bytes one ChangeProperty can carry on this server (4 × max request length − 28).
    public let maxPropertyBytes: Int
    /// The socket to the X server: a process that detaches and closes every other descriptor
    /// must keep this one.
    public let fileDescriptor: Int32
    private(set) var xfixesEventBase: Int32?
    /// The atoms this connection knows by name. A connection meets a few dozen, so a list does;
    /// a dictionary made the runtime search its conformance tables for `Hashable` on the first
    /// use, which was a third of a small paste's work.
    private var knownAtoms = AtomNameCache()
    /// The property whose zero-length appends give us server timestamps; interned when first needed.
    var timestampProperty: XAtom { atom("_XPB_TIMESTAMP") }
    /// How many transfers need events from each requestor window (`retainRequestorEvents`).
    var requestorWatchCounts: [XWindow: Int] = [:]
    /// The properties conversions land in, one per conversion in flight.
    var conversionProperties = ConversionProperties()
    /// Every conversation on this connection (reads, owners, watchers), and who gets each event.
    public private(set) lazy var events = EventDispatcher(connection: self)
    /// Set by Xlib's exit handler when the server is gone.
    let loss: ConnectionLoss

    /// A descriptor polled together with the X socket so that another thread or a signal handler
    /// can wake the connection's thread (the Pasteboard model hands it work this way; `xpb copy`
    /// learns of SIGTERM so); `nextEvent` drains it and returns `.wake` when it became
    /// readable. It must be non-blocking.
    public var wakeDescriptor: Int32?

    /// Whether the X server went away: every call that needs it fails with `.connectionLost`
    /// from then on, and the connection cannot recover (open a new one).
    public var isLost: Bool { loss.hasHappened }

    /// When true, a lost X server ends the process with one line on stderr (`PROGRAM: lost the
    /// connection to the X server`), as command-line tools want: their every step needs the
    /// server. Off by default, so that a program using the library survives its X server and
    /// gets `.connectionLost` errors instead.
    public static var lossEndsProcess: Bool {
        get { XErrorTrap.lossEndsProcess }
        set { XErrorTrap.lossEndsProcess = newValue }
    }

    private static let threadsInitialised: Void = {
        // The Pasteboard model serves from a background thread; Xlib needs this before any
        // XOpenDisplay when more than one thread may touch it.
        _ = XInitThreads()
        XErrorTrap.installed
    }()

    /// Opens a connection to `displayName`, or to `$DISPLAY` when it is nil.
    ///
    /// - Throws: `PasteboardError` with `.noDisplay` or `.cannotOpenDisplay`.
    /// The corresponding Xlib function is `XOpenDisplay`.
    public init(displayName: String? = nil) throws(PasteboardError) {
        Self.threadsInitialised
        let name: String
        if let displayName, !displayName.isEmpty {
            name = displayName
        } else if let env = getenv("DISPLAY"), env.pointee != 0 {
            name = String(cString: env)
        } else {
            throw PasteboardError(.noDisplay, "no X display: $DISPLAY is not set and no --display was given")
        }
        guard let display = XOpenDisplay(name) else {
            throw PasteboardError(.cannotOpenDisplay, "cannot open X display \"\(name)\"; is an X server running there?")
        }
        let loss = ConnectionLoss()
        XErrorTrap.adopt(display, loss: loss)
        self.loss = loss
        self.display = display
        self.displayName = name
        self.fileDescriptor = XConnectionNumber(display)

        let root = XDefaultRootWindow(display)
        var attributes = XSetWindowAttributes()
        attributes.event_mask = Int(PropertyChangeMask)
        let window = XCreateWindow(
            display, root, -10, -10, 1, 1, 0, 0, UInt32(InputOnly), nil, UInt(CWEventMask), &attributes)
        self.window = XWindow(rawValue: window)

        var maxRequest = XExtendedMaxRequestSize(display)
        if maxRequest == 0 { maxRequest = XMaxRequestSize(display) }
        self.maxPropertyBytes = max(4096, Int(maxRequest) * 4 - 28)
    }

    /// XFixes is negotiated on first use: a paste never needs it, and QueryExtension and
    /// QueryVersion are two round trips of its start-up.
    func negotiateXFixes() -> Int32? {
        if let xfixesEventBase { return xfixesEventBase }
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        guard XFixesQueryExtension(display, &eventBase, &errorBase) != 0 else { return nil }
        var major: Int32 = 5
        var minor: Int32 = 0
        // Every XFixes request but QueryVersion is BadRequest until the version is negotiated.
        guard XFixesQueryVersion(display, &major, &minor) != 0 else { return nil }
        xfixesEventBase = eventBase
        return eventBase
    }

    deinit {
        // Closing syncs: errors it brings must still be trapped, or Xlib's default handler exits.
        XCloseDisplay(display)
        XErrorTrap.release(display)
    }

    // MARK: Atoms

    /// The atom named `name`, created on the server if it does not exist yet.
    ///
    /// The corresponding Xlib function is `XInternAtom`.
    public func atom(_ name: String) -> XAtom {
        if let cached = knownAtoms.atom(named: name) { return XAtom(rawValue: cached) }
        let atom = XInternAtom(display, name, 0)
        knownAtoms.add(name, atom)
        return XAtom(rawValue: atom)
    }

    /// Interns several atoms in one round trip.
    ///
    /// The corresponding Xlib function is `XInternAtoms`.
    public func atoms(_ names: [String]) -> [XAtom] {
        let missing = names.filter { knownAtoms.atom(named: $0) == nil }
        if !missing.isEmpty {
            var cStrings = missing.map { strdup($0) }
            defer { cStrings.forEach { free($0) } }
            var values = [Atom](repeating: 0, count: missing.count)
            _ = XInternAtoms(display, &cStrings, Int32(missing.count), 0, &values)
            for (name, value) in zip(missing, values) {
                knownAtoms.add(name, value)
            }
        }
        return names.map { XAtom(rawValue: knownAtoms.atom(named: $0)!) }
    }

    /// The name of `atom`, or nil when the server knows no such atom.
    ///
    /// The corresponding Xlib function is `XGetAtomName`.
    public func name(of atom: XAtom) -> String? {
        if atom == .none { return nil }
        if let cached = knownAtoms.name(of: atom.rawValue) { return cached }
        guard let cName = XGetAtomName(display, atom.rawValue) else {
            _ = takeErrors { $0.errorCode == XProtocolError.badAtom }  // a peer's bogus TARGETS entry
            return nil
        }
        defer { XFree(cName) }
        let name = String(cString: cName)
        knownAtoms.add(name, atom.rawValue)
        return name
    }

    /// The names of several atoms in one round trip; unknown atoms give nil.
    ///
    /// The corresponding Xlib function is `XGetAtomNames`.
    public func names(of atoms: [XAtom]) -> [String?] {
        var missing: [UInt] = []
        for atom in atoms where atom != .none && knownAtoms.name(of: atom.rawValue) == nil && !missing.contains(atom.rawValue) {
            missing.append(atom.rawValue)
        }
        if !missing.isEmpty {
            var cNames = [UnsafeMutablePointer<CChar>?](repeating: nil, count: missing.count)
            if XGetAtomNames(display, &missing, Int32(missing.count), &cNames) != 0 {
                for (atom, cName) in zip(missing, cNames) {
                    guard let cName else { continue }
                    let name = String(cString: cName)
                    knownAtoms.add(name, atom)
                    XFree(cName)
                }
            } else {
                // One bad atom fails the batch: fall back to asking one at a time.
                _ = takeErrors { $0.errorCode == XProtocolError.badAtom }
                for atom in missing { _ = name(of: XAtom(rawValue: atom)) }
            }
        }
        return atoms.map { knownAtoms.name(of: $0.rawValue) }
    }
}
