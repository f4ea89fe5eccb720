internal import CX11
import Glibc

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
    private var timestampProperty: XAtom { atom("_XPB_TIMESTAMP") }
    private var conversionGeneration = 0

    /// A descriptor polled together with the X socket so that another thread or a signal handler
    /// can wake the connection's thread (the Pasteboard model hands it work this way; `xpb copy`
    /// learns of SIGTERM so); `nextEvent` drains it and returns `.other` when it became
    /// readable. It must be non-blocking.
    public var wakeDescriptor: Int32?

    /// Handlers for events that arrive while somebody else waits (a reader waiting for its
    /// SelectionNotify must not starve an owner on the same connection). Each returns true when
    /// the event was its.
    var eventHandlers: [(XEventKind) -> Bool] = []

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
    private func negotiateXFixes() -> Int32? {
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
        XCloseDisplay(display)
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

    // MARK: Selections

    /// The window that owns `selection`, `.none` when nobody does.
    ///
    /// The corresponding Xlib function is `XGetSelectionOwner`.
    public func owner(of selection: XAtom) -> XWindow {
        XWindow(rawValue: XGetSelectionOwner(display, selection.rawValue))
    }

    /// Makes `window` (or nobody, with `.none`) the owner of `selection` as of `time`.
    ///
    /// The corresponding Xlib function is `XSetSelectionOwner`.
    func setOwner(of selection: XAtom, to window: XWindow, time: XTimestamp) {
        XSetSelectionOwner(display, selection.rawValue, window.rawValue, Time(time.rawValue))
    }

    /// Asks the owner of `selection` to convert it to `target` into `property` on our window.
    ///
    /// The corresponding Xlib function is `XConvertSelection`.
    func convertSelection(_ selection: XAtom, to target: XAtom, property: XAtom, time: XTimestamp) {
        XConvertSelection(display, selection.rawValue, target.rawValue, property.rawValue, window.rawValue, Time(time.rawValue))
    }

    /// Tells `requestor` a conversion is done (`property`) or refused (`.none`).
    ///
    /// The corresponding Xlib function is `XSendEvent`.
    func sendSelectionNotify(to requestor: XWindow, selection: XAtom, target: XAtom, property: XAtom, time: XTimestamp) {
        var event = XEvent()
        event.xselection = XSelectionEvent(
            type: SelectionNotify, serial: 0, send_event: 1, display: display, requestor: requestor.rawValue,
            selection: selection.rawValue, target: target.rawValue, property: property.rawValue, time: Time(time.rawValue))
        XSendEvent(display, requestor.rawValue, 0, 0, &event)
    }

    /// Sets the events this client receives from `window` (PropertyChangeMask on a requestor
    /// during an INCR send, StructureNotifyMask to learn that it died).
    ///
    /// The corresponding Xlib function is `XSelectInput`.
    func selectInput(on window: XWindow, propertyChanges: Bool, structure: Bool) {
        var mask = 0
        if propertyChanges { mask |= Int(PropertyChangeMask) }
        if structure { mask |= Int(StructureNotifyMask) }
        XSelectInput(display, window.rawValue, mask)
    }

    /// Asks XFixes to report owner changes of `selection` to our window.
    ///
    /// - Throws: `.missingExtension` when the server has no XFixes.
    /// The corresponding Xlib function is `XFixesSelectSelectionInput`.
    func watchOwnerChanges(of selection: XAtom) throws(PasteboardError) {
        guard negotiateXFixes() != nil else {
            throw PasteboardError(.missingExtension, "the X server \"\(displayName)\" has no XFixes extension")
        }
        let mask = UInt(XFixesSetSelectionOwnerNotifyMask | XFixesSelectionWindowDestroyNotifyMask
            | XFixesSelectionClientCloseNotifyMask)
        XFixesSelectSelectionInput(display, window.rawValue, selection.rawValue, mask)
    }

    // MARK: Properties

    /// What `XGetWindowProperty` says of a property before its data.
    struct PropertyHeader {
        var type: XAtom
        var format: Int
        var itemCount: Int
    }

    /// Reads a whole property in one request and hands its bytes to `body` before freeing them.
    ///
    /// Format-32 data arrives from Xlib as C longs; it is repacked as 32-bit values so `body`
    /// sees the wire layout. Returns nil when the property does not exist.
    /// The corresponding Xlib function is `XGetWindowProperty`.
    func withProperty<R, E: Error>(
        on window: XWindow, _ property: XAtom, delete: Bool,
        _ body: (PropertyHeader, UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R? {
        var type: Atom = 0
        var format: Int32 = 0
        var itemCount: UInt = 0
        var bytesAfter: UInt = 0
        var data: UnsafeMutablePointer<UInt8>? = nil
        let status = XGetWindowProperty(
            display, window.rawValue, property.rawValue, 0, 0x1FFF_FFFF, delete ? 1 : 0, Atom(AnyPropertyType),
            &type, &format, &itemCount, &bytesAfter, &data)
        defer { if let data { XFree(data) } }
        guard status == Success, type != 0 else { return nil }
        let header = PropertyHeader(type: XAtom(rawValue: type), format: Int(format), itemCount: Int(itemCount))
        guard let data, itemCount > 0 else {
            return try body(header, UnsafeRawBufferPointer(start: nil, count: 0))
        }
        switch format {
        case 32:
            let longs = UnsafeRawPointer(data).assumingMemoryBound(to: Int.self)
            let packed = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Int(itemCount))
            defer { packed.deallocate() }
            for index in 0..<Int(itemCount) { packed[index] = UInt32(truncatingIfNeeded: longs[index]) }
            return try body(header, UnsafeRawBufferPointer(packed))
        case 16:
            return try body(header, UnsafeRawBufferPointer(start: data, count: Int(itemCount) * 2))
        default:
            return try body(header, UnsafeRawBufferPointer(start: data, count: Int(itemCount)))
        }
    }

    /// Replaces (or appends to) a property with 8- or 16-bit data.
    ///
    /// The corresponding Xlib function is `XChangeProperty`.
    func changeProperty(
        on window: XWindow, _ property: XAtom, type: XAtom, format: Int, bytes: UnsafeRawBufferPointer, append: Bool = false
    ) {
        let unit = format == 16 ? 2 : 1
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        XChangeProperty(
            display, window.rawValue, property.rawValue, type.rawValue, Int32(format),
            append ? PropModeAppend : PropModeReplace, base, Int32(bytes.count / unit))
    }

    /// Replaces a property with 32-bit items (atoms, timestamps), which Xlib takes as C longs.
    ///
    /// The corresponding Xlib function is `XChangeProperty`.
    func changeProperty32(on window: XWindow, _ property: XAtom, type: XAtom, values: [UInt]) {
        var longs = values.map { Int(bitPattern: $0) }
        _ = longs.withUnsafeMutableBytes { raw in
            XChangeProperty(
                display, window.rawValue, property.rawValue, type.rawValue, 32, PropModeReplace,
                raw.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(values.count))
        }
    }

    /// Deletes a property.
    ///
    /// The corresponding Xlib function is `XDeleteProperty`.
    func deleteProperty(on window: XWindow, _ property: XAtom) {
        XDeleteProperty(display, window.rawValue, property.rawValue)
    }

    /// The property our conversions land in. One at a time per connection, so one name serves
    /// until a conversion times out.
    func conversionProperty() -> XAtom {
        atom(conversionPropertyName())
    }

    func conversionPropertyName() -> String {
        "_XPB_SELECTION_\(conversionGeneration)"
    }

    /// Moves on to a fresh property name after a timeout, so that a late answer to the abandoned
    /// conversion cannot be taken for the next one's (Qt recreates its window for the same reason).
    func abandonConversionProperty() {
        conversionGeneration += 1
    }

    // MARK: The event loop

    /// Sends buffered requests.
    ///
    /// The corresponding Xlib function is `XFlush`.
    func flush() { XFlush(display) }

    /// Waits until every request so far has been processed, so their errors have arrived.
    ///
    /// The corresponding Xlib function is `XSync`.
    func sync() { XSync(display, 0) }

    /// The serial number the next request will carry: errors name the serial of the request that
    /// failed, so a transfer can tell its own failures from stale ones about a window id that
    /// the server has since handed to another client.
    ///
    /// The corresponding Xlib function is `XNextRequest`.
    func nextRequestSerial() -> UInt {
        XNextRequest(display)
    }

    /// Removes and returns the protocol errors reported on this connection that `wanted` picks.
    func takeErrors(where wanted: (XProtocolError) -> Bool) -> [XProtocolError] {
        XErrorTrap.drain(display: UInt(bitPattern: display), where: wanted)
    }

    /// The next event, waiting on the socket until `deadline`; nil when it passed first.
    ///
    /// Blocks in `poll(2)` on the connection's descriptor: no sleeping, no busy loop.
    func nextEvent(before deadline: Deadline) -> XEventKind? {
        while true {
            if XEventsQueued(display, QueuedAfterFlush) > 0 {
                var event = XEvent()
                XNextEvent(display, &event)
                return XEventKind(event, xfixesEventBase: xfixesEventBase)
            }
            var descriptors = [
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, wakeDescriptor == nil ? 1 : 2, deadline.pollTimeout)
            if ready == 0 { return nil }
            if ready < 0 && errno != EINTR { return nil }
            if ready > 0, descriptors[1].revents != 0, let wake = wakeDescriptor {
                // Work was handed over: the waiter's caller looks at its queue once this returns.
                var drained = [UInt8](repeating: 0, count: 64)
                while read(wake, &drained, drained.count) > 0 {}
                return .other
            }
            if ready > 0 {
                // Reads what arrived; a dead server ends in Xlib's I/O error handler.
                _ = XEventsQueued(display, QueuedAfterReading)
            }
            if deadline.hasPassed && XEventsQueued(display, QueuedAlready) == 0 { return nil }
        }
    }

    /// Passes an event that the current waiter does not want to the other parties on this
    /// connection (owners, watchers).
    func route(_ event: XEventKind) {
        for handler in eventHandlers where handler(event) { return }
    }

    /// A real server timestamp, from a zero-length append to a property of our window
    /// (ICCCM §2.1: never use CurrentTime to take ownership).
    ///
    /// - Throws: `.timedOut` when the server does not answer within 5 s.
    func serverTime() throws(PasteboardError) -> XTimestamp {
        changeProperty(on: window, timestampProperty, type: .integer, format: 8, bytes: UnsafeRawBufferPointer(start: nil, count: 0), append: true)
        flush()
        let deadline = Deadline.after(.seconds(5))
        while let event = nextEvent(before: deadline) {
            if case let .propertyNotify(window, property, time, _) = event, window == self.window,
                property == timestampProperty
            {
                return time
            }
            route(event)
        }
        throw PasteboardError(.timedOut, "the X server \"\(displayName)\" did not answer within 5 s")
    }
}

extension XConnection {
    /// Leaves `selection` with no owner, as of a real server time; the old owner gets a
    /// SelectionClear and stops serving.
    ///
    /// - Returns: the server time the selection was cleared as of; nil when nobody owned it.
    /// - Throws: `.ownershipRefused` when a new owner appeared in the meantime and kept it.
    /// The corresponding Xlib function is `XSetSelectionOwner` with `None`.
    @discardableResult
    public func clear(_ selection: XAtom) throws(PasteboardError) -> XTimestamp? {
        guard owner(of: selection) != .none else { return nil }
        let time = try serverTime()
        setOwner(of: selection, to: .none, time: time)
        guard owner(of: selection) == .none else {
            throw PasteboardError(.ownershipRefused, "could not clear \(name(of: selection) ?? "the selection"): another client took it at the same moment")
        }
        return time
    }
}
