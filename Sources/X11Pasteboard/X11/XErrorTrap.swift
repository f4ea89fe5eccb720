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

/// Errors are collected here instead of letting Xlib's default handler print and exit: a requestor
/// that vanished mid-transfer (BadWindow) must cost only its own transfer.
private let pendingErrors = Mutex<[XProtocolError]>([])

/// Installs the process-wide handlers once. Xlib allows only one handler per process.
enum XErrorTrap {
    static let installed: Void = {
        _ = XSetErrorHandler { _, event in
            guard let event else { return 0 }
            let error = XProtocolError(
                display: UInt(bitPattern: event.pointee.display),
                errorCode: event.pointee.error_code,
                requestCode: event.pointee.request_code,
                minorCode: event.pointee.minor_code,
                resourceID: event.pointee.resourceid,
                serial: event.pointee.serial
            )
            pendingErrors.withLock { errors in
                // Errors nobody asks for (a BadWindow from unwatching a window that just died)
                // must not pile up in a server that runs for days.
                if errors.count >= 256 { errors.removeFirst() }
                errors.append(error)
            }
            return 0
        }
        // Xlib exits after this handler whatever it does; it only gets to choose the words. One
        // line in the program's name instead of Xlib's three-line "XIO: fatal IO error" report.
        _ = XSetIOErrorHandler { _ in
            let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
            let message = "\(program.isEmpty ? "X11Pasteboard" : program): lost the connection to the X server\n"
            var bytes = Array(message.utf8)
            _ = write(2, &bytes, bytes.count)
            _exit(1)
        }
    }()

    /// Removes and returns the errors reported on `display` that `wanted` picks; the others stay
    /// for whoever they concern (several owners and readers may share one connection).
    static func drain(display: UInt, where wanted: (XProtocolError) -> Bool) -> [XProtocolError] {
        pendingErrors.withLock { errors in
            guard errors.contains(where: { $0.display == display && wanted($0) }) else { return [] }
            let taken = errors.filter { $0.display == display && wanted($0) }
            errors.removeAll { $0.display == display && wanted($0) }
            return taken
        }
    }
}
