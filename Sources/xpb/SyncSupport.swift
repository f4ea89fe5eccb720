import Glibc
import Synchronization
import SystemPackage
import X11Pasteboard

/// Work handed to a connection's thread from another: queued under a lock, with a byte on a
/// pipe that the connection polls (`XConnection.wakeDescriptor`) so the thread looks at once.
final class Mailbox<Message: Sendable>: Sendable {
    private let queue = Mutex<[Message]>([])
    /// The read end, for `XConnection.wakeDescriptor`.
    let wakeDescriptor: Int32
    private let wakeWriteEnd: Int32

    init() throws(CommandFailure) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw CommandFailure("cannot create a pipe: \(Errno(rawValue: errno))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        wakeDescriptor = descriptors[0]
        wakeWriteEnd = descriptors[1]
    }

    /// Queues `message` and wakes the receiving thread.
    func post(_ message: Message) {
        queue.withLock { $0.append(message) }
        wake()
    }

    /// Wakes the receiving thread without a message: something else it waits for happened.
    func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up: losing this byte loses nothing.
        _ = write(wakeWriteEnd, &byte, 1)
    }

    /// Whether anything is queued.
    var hasMessages: Bool { queue.withLock { !$0.isEmpty } }

    /// Everything queued, oldest first.
    func takeAll() -> [Message] {
        queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}

/// A connection handed to the thread that will use it alone from then on.
struct ConnectionHandOff: @unchecked Sendable {
    let connection: XConnection
}

/// Selection names as `xpb watch` takes them: clipboard, primary, secondary in any case, or
/// any atom name as it is.
enum SelectionNames {
    static func atomName(_ name: String) -> String {
        switch name.uppercased() {
        case "CLIPBOARD", "PRIMARY", "SECONDARY": name.uppercased()
        default: name
        }
    }

    /// The names in order without repeats; CLIPBOARD when none is given.
    static func atomNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        let all = names.isEmpty ? ["CLIPBOARD"] : names.map(atomName)
        return all.filter { seen.insert($0).inserted }
    }
}

/// Ends the process from a thread other than the command's: the one `xpb: …` line and its
/// code. `_exit`, because the other thread still uses its display, which exit's handlers close.
func exitReporting(_ error: any Error) -> Never {
    switch error {
    case let failure as CommandFailure: _exit(failure.report())
    case let error as PasteboardError: _exit(CommandFailure(error).report())
    default: _exit(CommandFailure("\(error)").report())
    }
}
