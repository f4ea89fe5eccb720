internal import CX11

extension XConnection {
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

    /// Tells clients waiting for a manager of `selection` that `window` now is one (ICCCM §2.8:
    /// a `MANAGER` client message to the root window).
    ///
    /// The corresponding Xlib function is `XSendEvent`.
    func announceManager(of selection: XAtom, window: XWindow, time: XTimestamp) {
        let root = XDefaultRootWindow(display)
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = root
        event.xclient.message_type = atom("MANAGER").rawValue
        event.xclient.format = 32
        event.xclient.data.l.0 = Int(time.rawValue)
        event.xclient.data.l.1 = Int(selection.rawValue)
        event.xclient.data.l.2 = Int(window.rawValue)
        XSendEvent(display, root, 0, Int(StructureNotifyMask), &event)
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

    /// Counts one more transfer that needs events from `requestor` (chunk deletions, its
    /// destruction); the first one selects them. The event mask on another client's window is
    /// one per connection, so every owner on it shares the count.
    func retainRequestorEvents(_ requestor: XWindow) {
        guard requestor != window else { return }
        requestorWatchCounts[requestor, default: 0] += 1
        if requestorWatchCounts[requestor] == 1 { selectInput(on: requestor, propertyChanges: true, structure: true) }
    }

    /// Counts one transfer less; the last one deselects the events.
    func releaseRequestorEvents(_ requestor: XWindow) {
        guard let count = requestorWatchCounts[requestor] else { return }
        if count > 1 {
            requestorWatchCounts[requestor] = count - 1
            return
        }
        requestorWatchCounts[requestor] = nil
        selectInput(on: requestor, propertyChanges: false, structure: false)
        flush()
    }

    /// A requestor window that is gone: nothing more is asked of it.
    func forgetRequestor(_ requestor: XWindow) {
        requestorWatchCounts[requestor] = nil
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
            let longs = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: Int.self), count: Int(itemCount))
            let packed = PropertyFormat.packed(fromCLongs: longs)
            let result: Result<R, E> = packed.withUnsafeBytes { raw in Result { () throws(E) in try body(header, raw) } }
            return try result.get()
        default:
            let size = Int(itemCount) * PropertyFormat.itemSize(Int(format))
            return try body(header, UnsafeRawBufferPointer(start: data, count: size))
        }
    }

    /// Replaces (or appends to) a property with data of `format` 8, 16 or 32, given as it goes
    /// on the wire (format-32 items packed as 32-bit values); a trailing partial item is dropped.
    ///
    /// The corresponding Xlib function is `XChangeProperty`.
    func changeProperty(
        on window: XWindow, _ property: XAtom, type: XAtom, format: Int, bytes: UnsafeRawBufferPointer, append: Bool = false
    ) {
        let mode = append ? PropModeAppend : PropModeReplace
        if format == 32 {
            // Xlib reads format-32 items as C longs: repack, or it reads twice the buffer.
            var longs = PropertyFormat.cLongs(fromPacked: bytes)
            let count = Int32(longs.count)
            longs.withUnsafeMutableBytes { raw in
                _ = XChangeProperty(
                    display, window.rawValue, property.rawValue, type.rawValue, 32, mode,
                    raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
            }
            return
        }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        XChangeProperty(
            display, window.rawValue, property.rawValue, type.rawValue, Int32(format), mode, base,
            Int32(PropertyFormat.itemCount(byteCount: bytes.count, format: format)))
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
