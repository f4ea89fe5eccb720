import Glibc

/// SIGTERM, SIGINT and SIGHUP, turned from "die now" into "finish properly": a byte on a pipe
/// that the X event loop polls, so `xpb copy` can hand CLIPBOARD to a clipboard manager before
/// it exits (SPEC §4) instead of taking the content with it.
enum TerminationSignals {
    /// Catches the signals; returns the pipe's read end for `XConnection.wakeDescriptor`, or
    /// nil when no pipe could be made (the signals then keep their default action).
    static func catchIntoPipe() -> Int32? {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return nil }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        wakeWriteEnd = descriptors[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            received = 1
            var byte: UInt8 = 1
            _ = write(wakeWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaction(signal, &action, nil) }
        return descriptors[0]
    }

    /// Whether one of the signals came.
    static var wasReceived: Bool { received != 0 }
}

// Written by the signal handler, which can touch nothing but plain globals and write(2).
nonisolated(unsafe) private var received: sig_atomic_t = 0
nonisolated(unsafe) private var wakeWriteEnd: Int32 = -1
