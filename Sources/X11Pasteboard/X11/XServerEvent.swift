internal import CX11

/// An event from the X server, as a Swift value: Xlib's event structs hold a `Display*` and are
/// not Sendable, so they are converted at the edge.
enum XServerEvent: Sendable {
    /// An owner answered (or refused) one of our conversions.
    case selectionNotify(ConversionReply)
    /// A requestor asks us, as owner, to convert.
    case selectionRequest(ConversionRequest)
    /// We lost a selection.
    case selectionClear(selection: XAtom, window: XWindow, time: XTimestamp)
    /// A property on some window changed or was deleted.
    case propertyNotify(window: XWindow, property: XAtom, time: XTimestamp, deleted: Bool)
    /// XFixes: the owner of a watched selection changed.
    case selectionOwnerChange(OwnerChange)
    /// A window we watch was destroyed.
    case destroyNotify(window: XWindow)
    /// Another thread or a signal handler woke the connection (`XConnection.wakeDescriptor`).
    case wake
    /// Anything else.
    case other
}

/// A `SelectionNotify` event: the owner's answer to a `ConvertSelection`.
struct ConversionReply: Sendable, Hashable {
    var requestor: XWindow
    var selection: XAtom
    var target: XAtom
    /// `.none` when the owner refused.
    var property: XAtom
    var time: XTimestamp
}

/// A `SelectionRequest` event: somebody wants our selection converted.
struct ConversionRequest: Sendable, Hashable {
    var owner: XWindow
    var requestor: XWindow
    var selection: XAtom
    var target: XAtom
    /// `.none` from obsolete clients (ICCCM §2.2: then use the target as the property).
    var property: XAtom
    var time: XTimestamp
}

/// An XFixes selection notification, as a watcher reports it.
public struct OwnerChange: Sendable, Hashable {
    /// Why the owner changed.
    public enum Reason: Sendable, Hashable {
        /// A client called SetSelectionOwner (possibly with `None`, which clears).
        case newOwner
        /// The owner's window was destroyed.
        case ownerWindowDestroyed
        /// The owner's connection closed.
        case ownerClientClosed
    }
    /// Why.
    public var reason: Reason
    /// The selection that changed.
    public var selection: XAtom
    /// The new owner, `.none` when nobody owns it now.
    public var owner: XWindow
    /// When the server processed the change.
    public var timestamp: XTimestamp
    /// The time the new owner passed to SetSelectionOwner.
    public var selectionTimestamp: XTimestamp
}

extension XServerEvent {
    init(_ event: XEvent, xfixesEventBase: Int32?) {
        switch event.type {
        case SelectionNotify:
            let e = event.xselection
            self = .selectionNotify(ConversionReply(
                requestor: XWindow(rawValue: e.requestor), selection: XAtom(rawValue: e.selection),
                target: XAtom(rawValue: e.target), property: XAtom(rawValue: e.property),
                time: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.time))))
        case SelectionRequest:
            let e = event.xselectionrequest
            self = .selectionRequest(ConversionRequest(
                owner: XWindow(rawValue: e.owner), requestor: XWindow(rawValue: e.requestor),
                selection: XAtom(rawValue: e.selection), target: XAtom(rawValue: e.target),
                property: XAtom(rawValue: e.property),
                time: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.time))))
        case SelectionClear:
            let e = event.xselectionclear
            self = .selectionClear(
                selection: XAtom(rawValue: e.selection), window: XWindow(rawValue: e.window),
                time: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.time)))
        case PropertyNotify:
            let e = event.xproperty
            self = .propertyNotify(
                window: XWindow(rawValue: e.window), property: XAtom(rawValue: e.atom),
                time: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.time)),
                deleted: e.state == PropertyDelete)
        case DestroyNotify:
            self = .destroyNotify(window: XWindow(rawValue: event.xdestroywindow.window))
        default:
            if let base = xfixesEventBase, event.type == base + XFixesSelectionNotify {
                let e = withUnsafeBytes(of: event) { $0.load(as: XFixesSelectionNotifyEvent.self) }
                let reason: OwnerChange.Reason
                switch e.subtype {
                case XFixesSelectionWindowDestroyNotify: reason = .ownerWindowDestroyed
                case XFixesSelectionClientCloseNotify: reason = .ownerClientClosed
                default: reason = .newOwner
                }
                self = .selectionOwnerChange(OwnerChange(
                    reason: reason, selection: XAtom(rawValue: e.selection), owner: XWindow(rawValue: e.owner),
                    timestamp: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.timestamp)),
                    selectionTimestamp: XTimestamp(rawValue: UInt32(truncatingIfNeeded: e.selection_timestamp))))
            } else {
                self = .other
            }
        }
    }
}
