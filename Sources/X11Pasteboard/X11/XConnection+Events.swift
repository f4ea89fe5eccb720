internal import CX11
import Glibc
import SystemPackage

extension XConnection {
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

    /// The next event, waiting on the socket until `deadline`; nil when it passed first, `.wake`
    /// when the wake descriptor became readable.
    ///
    /// Blocks in `poll(2)` on the connection's descriptor: no sleeping, no busy loop.
    /// - Throws: `.connectionLost` when the server is gone or the socket cannot be waited on.
    func nextEvent(before deadline: Deadline) throws(PasteboardError) -> XServerEvent? {
        while true {
            try checkAlive()
            if XEventsQueued(display, QueuedAfterFlush) > 0 {
                var event = XEvent()
                XNextEvent(display, &event)
                return XServerEvent(event, xfixesEventBase: xfixesEventBase)
            }
            try checkAlive()
            var descriptors = [
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, wakeDescriptor == nil ? 1 : 2, deadline.pollTimeout)
            if ready < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                throw PasteboardError(.connectionLost, "cannot wait for the X server \"\(displayName)\": \(error)")
            }
            if ready == 0 { return nil }
            if descriptors.contains(where: { $0.revents & Int16(POLLNVAL) != 0 }) {
                // Not a descriptor any more: waiting again would return at once, for ever.
                throw PasteboardError(.connectionLost, "cannot wait for the X server \"\(displayName)\": a descriptor was closed under the connection")
            }
            if descriptors[1].revents != 0, let wake = wakeDescriptor {
                // Work was handed over: the waiter's caller looks at its queue once this returns.
                Self.drain(wake)
                return .wake
            }
            // Reads what arrived; a dead server ends in the exit handler, which records the loss.
            _ = XEventsQueued(display, QueuedAfterReading)
            if deadline.hasPassed && XEventsQueued(display, QueuedAlready) == 0 {
                try checkAlive()
                return nil
            }
        }
    }

    /// - Throws: `.connectionLost` once the server is gone.
    func checkAlive() throws(PasteboardError) {
        if isLost { throw PasteboardError.connectionLost(displayName) }
    }

    private static func drain(_ descriptor: Int32) {
        var drained = [UInt8](repeating: 0, count: 64)
        let wake = FileDescriptor(rawValue: descriptor)
        while (try? drained.withUnsafeMutableBytes { try wake.read(into: $0) }).map({ $0 > 0 }) == true {}
    }

    /// A real server timestamp, from a zero-length append to a property of our window
    /// (ICCCM §2.1: never use CurrentTime to take ownership). Other conversations on the
    /// connection go on meanwhile.
    ///
    /// - Throws: `.timedOut` when the server does not answer within 5 s; `.connectionLost`.
    func serverTime() throws(PasteboardError) -> XTimestamp {
        let probe = TimestampProbe(window: window, property: timestampProperty)
        changeProperty(on: window, timestampProperty, type: .integer, format: 8, bytes: UnsafeRawBufferPointer(start: nil, count: 0), append: true)
        flush()
        events.register(probe)
        defer { probe.isFinished = true }
        guard try events.pump(until: { probe.time != nil }, deadline: .after(.seconds(5))), let time = probe.time else {
            throw PasteboardError(.timedOut, "the X server \"\(displayName)\" did not answer within 5 s")
        }
        return time
    }
}

/// Waits for the PropertyNotify of a zero-length append: its time is the server's clock.
private final class TimestampProbe: Conversation {
    let window: XWindow
    let property: XAtom
    var time: XTimestamp?
    var isFinished = false

    init(window: XWindow, property: XAtom) {
        self.window = window
        self.property = property
    }

    func handle(_ event: XServerEvent) -> Bool {
        guard case let .propertyNotify(window, property, time, _) = event, window == self.window,
            property == self.property
        else { return false }
        // Another probe's append also names the time; every one waiting takes the first.
        if self.time == nil { self.time = time }
        isFinished = true
        return true
    }
}
