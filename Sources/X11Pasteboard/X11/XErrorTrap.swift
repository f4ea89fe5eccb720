internal import CX11
import Glibc
import Synchronization

/// A protocol error the X server reported for one request, copied out of Xlib's event.
struct XProtocolError: Sendable, Hashable {
    /// The `Display*` the error arrived on, as an integer so the record stays Sendable.
    var display: UInt
    var errorCode: UInt8
    var requestCode: UInt8
    var minorCode: UInt8
    var resourceID: UInt
    var serial: UInt

    static let badWindow: UInt8 = 3
    static let badAtom: UInt8 = 5
    static let badAlloc: UInt8 = 11
}

/// Set once the server of one connection is gone. Xlib calls the exit handler that sets it from
/// the call that failed, on the connection's own thread, which is the only one that reads it.
final class ConnectionLoss: @unchecked Sendable {
    /// Whether the connection broke.
    private(set) var hasHappened = false

    func record() { hasHappened = true }
}

/// What the handlers share. One Mutex of plain values: every other generic instance of the
/// Synchronization types costs the small paste its runtime metadata set-up.
private struct TrapState {
    /// Errors are collected here instead of letting Xlib's default handler print and exit: a
    /// requestor that vanished mid-transfer (BadWindow) must cost only its own transfer.
    var errors: [XProtocolError] = []
    /// The displays this library opened: errors on any other display belong to the host.
    var displays: [UInt] = []
    var lossEndsProcess = false
}

private let trapState = Mutex(TrapState())

/// The handlers the host program had installed before ours, called for its own displays. Written
/// once, before any display of ours exists, under `XErrorTrap.installed`'s one-time initialiser.
nonisolated(unsafe) private var hostErrorHandler: XErrorHandler?
nonisolated(unsafe) private var hostIOErrorHandler: XIOErrorHandler?

/// Xlib's error handlers are process-wide: one for protocol errors, one for a lost connection.
/// Ours take what concerns the displays this library opened and pass everything else on to the
/// handlers the host had, so a program that uses Xlib itself keeps its own behaviour.
enum XErrorTrap {
    /// When true, a lost server ends the process with one line (`PROGRAM: lost the connection to
    /// the X server`) instead of failing the library's calls: for command-line tools, whose
    /// every step needs the server. Off by default: a library must not end its host.
    static var lossEndsProcess: Bool {
        get { trapState.withLock { $0.lossEndsProcess } }
        set { trapState.withLock { $0.lossEndsProcess = newValue } }
    }

    static let installed: Void = {
        hostErrorHandler = XSetErrorHandler { display, event in
            guard let event else { return 0 }
            let key = UInt(bitPattern: display)
            guard trapState.withLock({ $0.displays.contains(key) }) else {
                return hostErrorHandler?(display, event) ?? 0
            }
            let error = XProtocolError(
                display: key,
                errorCode: event.pointee.error_code,
                requestCode: event.pointee.request_code,
                minorCode: event.pointee.minor_code,
                resourceID: event.pointee.resourceid,
                serial: event.pointee.serial
            )
            trapState.withLock { state in
                // Errors nobody asks for (a BadWindow from unwatching a window that just died)
                // must not pile up in a server that runs for days.
                if state.errors.count >= 256 { state.errors.removeFirst() }
                state.errors.append(error)
            }
            return 0
        }
        // Xlib calls this first, then the display's exit handler (below), which by default exits.
        hostIOErrorHandler = XSetIOErrorHandler { display in
            let (ours, endsProcess) = trapState.withLock { ($0.displays.contains(UInt(bitPattern: display)), $0.lossEndsProcess) }
            guard ours else { return hostIOErrorHandler?(display) ?? 0 }
            if endsProcess { XErrorTrap.endProcess() }
            return 0
        }
    }()

    /// Takes `display` under our handlers: its errors are collected, and a lost connection is
    /// recorded in `loss` (libX11 1.7+ `XSetIOErrorExitHandler`) instead of ending the process;
    /// Xlib's calls on it then return at once without talking to anyone.
    static func adopt(_ display: OpaquePointer, loss: ConnectionLoss) {
        _ = installed
        trapState.withLock { $0.displays.append(UInt(bitPattern: display)) }
        XSetIOErrorExitHandler(display, { _, context in
            guard let context else { return }
            Unmanaged<ConnectionLoss>.fromOpaque(context).takeUnretainedValue().record()
        }, Unmanaged.passUnretained(loss).toOpaque())
    }

    /// Forgets `display` before it is closed: its address may be reused for a host's display.
    static func release(_ display: OpaquePointer) {
        let key = UInt(bitPattern: display)
        trapState.withLock { state in
            state.displays.removeAll { $0 == key }
            state.errors.removeAll { $0.display == key }
        }
    }

    /// Removes and returns the errors reported on `display` that `wanted` picks; the others stay
    /// for whoever they concern (several owners and readers may share one connection).
    static func drain(display: UInt, where wanted: (XProtocolError) -> Bool) -> [XProtocolError] {
        trapState.withLock { state in
            guard state.errors.contains(where: { $0.display == display && wanted($0) }) else { return [] }
            let taken = state.errors.filter { $0.display == display && wanted($0) }
            state.errors.removeAll { $0.display == display && wanted($0) }
            return taken
        }
    }

    /// One line in the program's name instead of Xlib's three-line "XIO: fatal IO error" report.
    private static func endProcess() -> Never {
        let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
        let message = "\(program.isEmpty ? "X11Pasteboard" : program): lost the connection to the X server\n"
        var bytes = Array(message.utf8)
        _ = write(2, &bytes, bytes.count)
        _exit(1)
    }
}
