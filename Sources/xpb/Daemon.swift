import ArgumentParser
import Glibc
import X11Pasteboard

extension XPB {
    /// `xpb daemon`: the clipboard manager of one display, in the foreground.
    struct Daemon: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the clipboard manager: keep the clipboard when the program that copied exits.",
            discussion: """
                Runs in the foreground for one display (start it from systemd or the session's \
                autostart; see dist/systemd/xpb-daemon.service). It owns CLIPBOARD_MANAGER and \
                answers the SAVE_TARGETS hand-off that Qt, GTK and xpb send when they exit; it \
                also reads every representation of each new CLIPBOARD owner as soon as XFixes \
                reports it, and when that owner goes away (exits, crashes, is killed) it takes \
                CLIPBOARD with exactly the same targets and bytes; a clipboard cleared on purpose \
                (xpb clear, xsel -c) stays empty. Each entry \
                goes to the history ($XDG_STATE_HOME/xpb), without a bridge's private \
                _XPB_BRIDGE_ORIGIN marker; at start, when CLIPBOARD has no owner, \
                the newest entry is put back.

                Content marked secret (x-kde-passwordManagerHint = secret, as KeePassXC and \
                `xpb copy --sensitive` set it; org.nspasteboard.ConcealedType) is never read or \
                kept. PRIMARY is recorded only with --primary. One line on stderr per event worth \
                knowing. One daemon per display: a second one exits 1 naming the first. SIGTERM \
                or SIGINT: finish what is being written, exit 0. Without a clipboard manager, \
                what a program copied is gone when it exits.

                Examples:
                  xpb daemon
                  xpb daemon --primary --max-entry-size 64M
                  systemctl --user enable --now xpb-daemon
                """
        )

        @Option(help: "The X display to use (default: $DISPLAY).")
        var display: String?

        @Flag(name: .customLong("primary"), help: "Record PRIMARY (the mouse selection) in the history too.")
        var primary = false

        @Option(
            name: .customLong("max-entry-size"),
            help: ArgumentHelp("The most bytes one entry keeps (every representation together); K, M, G suffixes. Default 256M.", valueName: "size"))
        var maxEntrySize: String = "256M"

        func validate() throws {
            if ByteCount.parse(maxEntrySize) == nil {
                throw ValidationError("--max-entry-size needs a size such as 1048576, 64M or 1G")
            }
        }

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            MemoryTuning.reuseChunksReturnFreedMemory()
            try reportingFailures {
                let connection = try GlobalOptions.connect(display: display)
                let service = ClipboardManagerService(connection: connection)
                if let running = ClipboardManagerService.runningManager(on: connection) {
                    throw CommandFailure(
                        "a clipboard manager already runs on display \(connection.displayName): \(Self.describe(running))",
                        exitCode: 1)
                }
                connection.wakeDescriptor = TerminationSignals.catchIntoPipe()
                do {
                    try service.acquire(processID: Int(getpid()), name: "xpb daemon")
                } catch {
                    guard (error as? PasteboardError)?.code == .ownershipRefused else { throw error }
                    let running = ClipboardManagerService.runningManager(on: connection)
                    throw CommandFailure(
                        "a clipboard manager already runs on display \(connection.displayName): \(running.map(Self.describe) ?? "it started at the same moment")",
                        exitCode: 1)
                }
                let history = DaemonHistory.open(log: DaemonLog.line)
                let keeper = try ClipboardKeeper(
                    connection: connection, service: service, recordsPrimary: primary,
                    sizeLimit: ByteCount.parse(maxEntrySize)!, history: history)
                DaemonLog.line("managing the clipboard of display \(connection.displayName) (pid \(getpid()))")
                defer { history?.finish() }
                try keeper.run(stoppingWhen: { TerminationSignals.wasReceived })
                service.relinquish()
                if service.wasReplaced {
                    throw CommandFailure("another clipboard manager took over display \(connection.displayName)", exitCode: 1)
                }
                DaemonLog.line("stopped")
            }
        }

        /// "xpb daemon (pid 1234, window 0x200001)": what a user needs to find the running one.
        static func describe(_ manager: ClipboardManagerService.RunningManager) -> String {
            var facts: [String] = []
            if let pid = manager.processID { facts.append("pid \(pid)") }
            facts.append("window \(manager.window)")
            return "\(manager.name ?? "a program") (\(facts.joined(separator: ", ")))"
        }
    }
}

/// The daemon's stderr lines: one per event worth knowing.
enum DaemonLog {
    static func line(_ text: String) {
        StandardError.write("xpb daemon: \(text)\n")
    }
}

/// Sizes as users write them: `1048576`, `64K`, `256M`, `1G` (binary multiples; `MiB` too).
enum ByteCount {
    /// The number of bytes, nil for anything else.
    static func parse(_ text: String) -> Int? {
        var digits = Substring(text.uppercased())
        var multiplier = 1
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        switch digits.last {
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard let value = Int(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// "1.2 MiB", for log lines.
    static func describe(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }
}
