import ArgumentParser
import Glibc
import SystemPackage
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb watch`: one line per change of the named selections, from XFixes notifications.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a line each time a selection changes owner (no polling: XFixes tells us).",
            discussion: """
                Selections: clipboard, primary, secondary (any case) or any atom name; -b/-p/-s/--selection \
                add one each, and may be combined. The default is CLIPBOARD. Changes that happened before xpb watch started \
                are not reported. Each line names the selection, the change count, the event \
                (owner-changed or cleared), the owner's window and the types (UTIs) it offers.

                --exec runs CMD through /bin/sh -c after each change, with the content (the text, \
                else the first type offered) on its stdin and XPB_SELECTION, XPB_CHANGE_COUNT in its \
                environment; commands run one at a time, and a burst of PRIMARY changes (a mouse drag) \
                runs CMD once, after 150 ms of quiet.

                Examples:
                  xpb watch
                  xpb watch clipboard primary --json
                  xpb watch -b -p --selection MY_APP_SELECTION
                  xpb watch --count 1 && xpb paste          (wait for the next copy)
                  xpb watch --exec 'cat >> ~/clips.txt; echo >> ~/clips.txt'
                """
        )

        @OptionGroup var options: WatchOptions

        @Argument(help: ArgumentHelp("Selections to watch (clipboard, primary, secondary or an atom name).", valueName: "selection"))
        var selections: [String] = []

        @Flag(help: "Print one JSON object per line: changeCount, selection, event, owner, types.")
        var json = false

        @Option(help: ArgumentHelp("Exit after N changes.", valueName: "n"))
        var count: Int?

        @Option(name: .customLong("exec"), help: ArgumentHelp("Run CMD (with /bin/sh -c) for each change, the content on its stdin.", valueName: "cmd"))
        var command: String?

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count needs a number of at least 1") }
            if selections.contains(where: \.isEmpty) { throw ValidationError("a selection name cannot be empty") }
        }

        /// The selections, in order, without repeats: those of -b/-p/-s/--selection, then the
        /// positional names; CLIPBOARD when none is named.
        var selectionNames: [String] {
            var names = options.selections
            for name in selections {
                switch name.uppercased() {
                case "CLIPBOARD", "PRIMARY", "SECONDARY": names.append(name.uppercased())
                default: names.append(name)
                }
            }
            if names.isEmpty { names = ["CLIPBOARD"] }
            var seen = Set<String>()
            return names.filter { seen.insert($0).inserted }
        }

        func run() throws {
            // A command that stops reading its stdin must not kill us; stdout gone ends the watch.
            signal(SIGPIPE, SIG_IGN)
            try reportingFailures {
                let connection = try GlobalOptions.connect(display: options.display)
                let names = selectionNames
                let atoms = names.map(connection.atom)
                let watcher = try SelectionWatcher(connection: connection, selections: atoms)
                var printer = ChangePrinter(
                    reader: SelectionReader(connection: connection, timeout: .seconds(2)), json: json, command: command)
                var seen = 0
                while count.map({ seen < $0 }) ?? true {
                    // One thread blocking on the X socket: idle costs nothing, not even a timer.
                    guard let change = try watcher.nextChange(timeout: printer.quietTimeLeft) else {
                        printer.runPendingCommand()
                        continue
                    }
                    let name = names[atoms.firstIndex(of: change.selection)!]
                    // A newer change of the same selection is queued: this owner is gone already,
                    // and asking the new one would credit it with this change.
                    let isStale = watcher.hasQueuedChange(of: change.selection)
                    guard printer.report(change, name: name, readOffer: !isStale) else { return }
                    seen += 1
                }
                printer.finish()
            }
        }
    }
}

/// The work of `xpb watch` per change: a line on stdout, and `--exec`.
private struct ChangePrinter {
    let reader: SelectionReader
    let json: Bool
    let command: String?
    private var changeCounts: [XAtom: Int] = [:]
    /// A PRIMARY change whose command waits for the drag to end, with what its owner offered.
    private var pending: (change: OwnerChange, name: String, count: Int, offer: TargetOffer, due: ContinuousClock.Instant)?

    /// PRIMARY changes once per drag step; `--exec` waits this long for quiet.
    static let primaryQuiet: Duration = .milliseconds(150)

    init(reader: SelectionReader, json: Bool, command: String?) {
        self.reader = reader
        self.json = json
        self.command = command
    }

    /// How long the watch may wait before a pending command is due; nil when none is.
    var quietTimeLeft: Duration? {
        pending.map { max(.zero, ContinuousClock.now.duration(to: $0.due)) }
    }

    /// Prints the change and runs or schedules its command; false once stdout is closed.
    /// Without `readOffer` the owner is not asked for its types (it is gone already).
    mutating func report(_ change: OwnerChange, name: String, readOffer: Bool) -> Bool {
        let count = changeCounts[change.selection, default: 0] + 1
        changeCounts[change.selection] = count
        // One TARGETS per change, for the line and for the command's content.
        let offered = change.owner == .none || !readOffer
            ? TargetOffer(targets: []) : ((try? reader.offer(of: change.selection)) ?? TargetOffer(targets: []))
        let types = offered.types.map(\.identifier)
        guard writeLine(line(for: change, name: name, count: count, types: types)) else { return false }
        guard command != nil else { return true }
        if change.selection == .primary {
            // A drag replaces the pending run; a pending PRIMARY run goes first when another
            // selection changes, so commands keep the order of the changes.
            pending = (change, name, count, offered, ContinuousClock.now.advanced(by: Self.primaryQuiet))
        } else {
            runPendingCommand()
            run(change, name: name, count: count, offer: offered)
        }
        return true
    }

    /// Runs the PRIMARY command that waited for quiet.
    mutating func runPendingCommand() {
        guard let waiting = pending else { return }
        pending = nil
        run(waiting.change, name: waiting.name, count: waiting.count, offer: waiting.offer)
    }

    /// Lets a waiting command run before the watch ends.
    mutating func finish() {
        if let left = quietTimeLeft, left > .zero {
            var pause = timespec(tv_sec: Int(left.components.seconds), tv_nsec: Int(left.components.attoseconds / 1_000_000_000))
            // An interrupted sleep writes what is left into `pause` itself: the retry sleeps only that.
            _ = withUnsafeMutablePointer(to: &pause) { pause in try? systemCall { nanosleep(pause, pause) } }
        }
        runPendingCommand()
    }

    private func run(_ change: OwnerChange, name: String, count: Int, offer: TargetOffer) {
        guard let command else { return }
        ShellCommand.run(command, stdin: content(of: change, offer: offer), environment: [
            "XPB_SELECTION": name, "XPB_CHANGE_COUNT": String(count),
        ])
    }

    /// What `xpb paste` would print now: the text, else the first target; nothing when cleared.
    private func content(of change: OwnerChange, offer: TargetOffer) -> [UInt8] {
        guard change.owner != .none,
            let plan = try? PastePlan(typeArgument: nil, offer: offer, selectionName: "")
        else { return [] }
        var bytes: [UInt8] = []
        _ = try? plan.deliver(from: reader, change.selection) { bytes.append(contentsOf: $0) }
        return bytes
    }

    private func line(for change: OwnerChange, name: String, count: Int, types: [String]) -> String {
        let cleared = change.owner == .none
        if json {
            // Keys in the order SPEC §2 documents; a dictionary-based encoder would shuffle them.
            return JSONValue.object([
                JSONMember("changeCount", .int(count)),
                JSONMember("selection", .string(name)),
                JSONMember("event", .string(cleared ? "cleared" : "owner-changed")),
                JSONMember("owner", .int(Int(change.owner.rawValue))),
                JSONMember("types", .array(types.map(JSONValue.string))),
            ]).serialized + "\n"
        }
        if cleared { return "\(name) #\(count) cleared\n" }
        let offered = types.isEmpty ? "(no types)" : types.joined(separator: ", ")
        return "\(name) #\(count) owner-changed by \(change.owner): \(offered)\n"
    }

    /// Writes one whole line at once (pipes see complete lines); false once stdout is closed.
    private func writeLine(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { FileDescriptorIO.writeAll(1, UnsafeRawBufferPointer($0)) }
    }
}

/// `/bin/sh -c CMD` with bytes on its stdin, waited for before the watch goes on, so commands
/// run one at a time in the order of the changes.
private enum ShellCommand {
    static func run(_ command: String, stdin: [UInt8], environment: [String: String]) {
        Job(command: command, stdin: stdin, environment: environment).execute()
    }

    private struct Job {
        let command: String
        let stdin: [UInt8]
        let environment: [String: String]

        func execute() {
            let readEnd: FileDescriptor
            let writeEnd: FileDescriptor
            do {
                (readEnd, writeEnd) = try FileDescriptor.pipe(options: .closeOnExec)
            } catch {
                StandardError.write("xpb: cannot run --exec: \(error)\n")
                return
            }

            var variables: [String] = []
            var entry = environ
            while let variable = entry.pointee {
                let text = String(cString: variable)
                let key = String(text.prefix { $0 != "=" })
                if environment[key] == nil { variables.append(text) }
                entry += 1
            }
            variables += environment.map { "\($0.key)=\($0.value)" }
            let pid: pid_t
            do {
                pid = try ChildSpawn.spawn(["/bin/sh", "-c", command], environment: variables, stdin: readEnd)
            } catch {
                try? readEnd.close()
                try? writeEnd.close()
                StandardError.write("xpb: cannot run /bin/sh: \(error)\n")
                return
            }
            try? readEnd.close()
            // A command that does not read its input just closes the pipe (EPIPE, ignored).
            _ = stdin.withUnsafeBytes { try? FileDescriptorIO.writeAll(writeEnd, $0) }
            try? writeEnd.close()
            var raw: Int32 = 0
            _ = try? systemCall { waitpid(pid, &raw, 0) }
        }
    }
}
