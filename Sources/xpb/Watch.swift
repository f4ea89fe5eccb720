import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb watch`: one line per change of the named selections, from XFixes notifications.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a line each time a selection changes owner (no polling: XFixes tells us).",
            discussion: """
                Selections: clipboard, primary, secondary (any case) or any atom name; -b/-p/-s/--selection \
                add one more. The default is CLIPBOARD. Changes that happened before xpb watch started \
                are not reported. Each line names the selection, the change count, the event \
                (owner-changed or cleared), the owner's window and the types (UTIs) it offers.

                --exec runs CMD through /bin/sh -c after each change, with the content (the text, \
                else the first type offered) on its stdin and XPB_SELECTION, XPB_CHANGE_COUNT in its \
                environment; commands run one at a time, and a burst of PRIMARY changes (a mouse drag) \
                runs CMD once, after 150 ms of quiet.

                Examples:
                  xpb watch
                  xpb watch clipboard primary --json
                  xpb watch --count 1 && xpb paste          (wait for the next copy)
                  xpb watch --exec 'cat >> ~/clips.txt; echo >> ~/clips.txt'
                """
        )

        @OptionGroup var options: GlobalOptions

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

        /// The selections, in order, without repeats: the -b/-p/-s/--selection choice, then the
        /// positional names; CLIPBOARD when neither names one.
        var selectionNames: [String] {
            var names: [String] = []
            if options.clipboard || options.primary || options.secondary || options.selectionName != nil {
                names.append(options.selection)
            }
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
            let outcome = Mutex<Result<Void, CommandFailure>?>(nil)
            let done = DispatchSemaphore(value: 0)
            let watcher = ChangePrinter(
                names: selectionNames, display: options.display, json: json, count: count, command: command)
            Task {
                let result: Result<Void, CommandFailure>
                do throws(CommandFailure) {
                    try await watcher.run()
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                outcome.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            try reportingFailures {
                try outcome.withLock { $0! }.get()
            }
        }
    }
}

/// The work of `xpb watch`: merges the change streams, prints lines and feeds `--exec`.
private struct ChangePrinter: Sendable {
    let names: [String]
    let display: String?
    let json: Bool
    let count: Int?
    let command: String?

    /// PRIMARY changes once per drag step; `--exec` waits this long for quiet.
    static let primaryQuiet: Duration = .milliseconds(150)

    func run() async throws(CommandFailure) {
        var pasteboards: [Pasteboard.Name: Pasteboard] = [:]
        for name in names {
            pasteboards[Pasteboard.Name(name)] = Pasteboard(name: Pasteboard.Name(name), create: true, displayName: display)!
        }
        // Subscribe before anything else, so no change after the start is missed.
        let (merged, sink) = AsyncStream.makeStream(of: PasteboardChange.self)
        let forwarders = pasteboards.values.map { pasteboard in
            let changes = pasteboard.changes
            return Task {
                for await change in changes { sink.yield(change) }
            }
        }
        defer { forwarders.forEach { $0.cancel() } }
        do {
            // Opens the display now: no display is an error, not a silent wait.
            _ = try await pasteboards[Pasteboard.Name(names[0])]!.async.changeCount
        } catch {
            throw CommandFailure(error)
        }

        let executor = command.map { CommandRunner(command: $0, pasteboards: pasteboards) }
        var seen = 0
        for await change in merged {
            seen += 1
            let pasteboard = pasteboards[change.name]!
            let types = change.kind == .cleared ? [] : ((try? await pasteboard.async.types) ?? [])
            guard writeLine(line(for: change, types: types)) else { break }
            if let executor {
                if change.name == .primary {
                    executor.runAfterQuiet(change, quiet: Self.primaryQuiet)
                } else {
                    executor.run(change)
                }
            }
            if let count, seen >= count { break }
        }
        await executor?.finish(waitingForQuiet: Self.primaryQuiet)
    }

    private func line(for change: PasteboardChange, types: [String]) -> String {
        if json {
            let typeList = types.map { JSONValue.quote($0) }.joined(separator: ",")
            return "{\"changeCount\":\(change.changeCount),\"selection\":\(JSONValue.quote(change.name.rawValue)),"
                + "\"event\":\"\(change.kind.rawValue)\",\"owner\":\(change.owner.rawValue),\"types\":[\(typeList)]}\n"
        }
        switch change.kind {
        case .cleared:
            return "\(change.name.rawValue) #\(change.changeCount) cleared\n"
        case .ownerChanged:
            let offered = types.isEmpty ? "(no types)" : types.joined(separator: ", ")
            return "\(change.name.rawValue) #\(change.changeCount) owner-changed by \(change.owner): \(offered)\n"
        }
    }

    /// Writes one whole line at once (pipes see complete lines); false once stdout is closed.
    private func writeLine(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { FileDescriptorIO.writeAll(1, UnsafeRawBufferPointer($0)) }
    }
}

/// Runs `--exec` commands one at a time, in the order of the changes.
private final class CommandRunner: Sendable {
    private let command: String
    private let pasteboards: [Pasteboard.Name: Pasteboard]
    private let requests: AsyncStream<PasteboardChange>.Continuation
    private let worker: Task<Void, Never>
    /// Bumped per PRIMARY change: a delayed run goes ahead only if no newer change came.
    private let primaryGeneration = Mutex<UInt64>(0)
    private let pendingQuiet = Mutex(0)

    init(command: String, pasteboards: [Pasteboard.Name: Pasteboard]) {
        self.command = command
        self.pasteboards = pasteboards
        let (stream, continuation) = AsyncStream.makeStream(of: PasteboardChange.self)
        requests = continuation
        worker = Task { [pasteboards] in
            for await change in stream {
                let content = await Self.content(of: pasteboards[change.name]!, cleared: change.kind == .cleared)
                await ShellCommand.run(command, stdin: content, environment: [
                    "XPB_SELECTION": change.name.rawValue, "XPB_CHANGE_COUNT": String(change.changeCount),
                ])
            }
        }
    }

    func run(_ change: PasteboardChange) { requests.yield(change) }

    /// Runs for `change` once no newer change of the same kind came for `quiet`.
    func runAfterQuiet(_ change: PasteboardChange, quiet: Duration) {
        let generation = primaryGeneration.withLock { value in
            value += 1
            return value
        }
        pendingQuiet.withLock { $0 += 1 }
        Task {
            try? await Task.sleep(for: quiet)
            if primaryGeneration.withLock({ $0 }) == generation { requests.yield(change) }
            pendingQuiet.withLock { $0 -= 1 }
        }
    }

    /// Lets delayed runs happen, then waits for every command to finish.
    func finish(waitingForQuiet quiet: Duration) async {
        while pendingQuiet.withLock({ $0 }) > 0 { try? await Task.sleep(for: quiet / 3) }
        requests.finish()
        await worker.value
    }

    /// What `xpb paste` would print: the text, else the first type offered; nothing when cleared.
    private static func content(of pasteboard: Pasteboard, cleared: Bool) async -> [UInt8] {
        guard !cleared else { return [] }
        if (try? await pasteboard.async.hasStrings) == true, let text = try? await pasteboard.async.string {
            return Array(text.utf8)
        }
        guard let first = try? await pasteboard.async.types.first,
            let data = try? await pasteboard.async.data(forPasteboardType: first)
        else { return [] }
        return Array(data)
    }
}

/// `/bin/sh -c CMD` with bytes on its stdin, waited for on a thread of its own (waitpid blocks,
/// and the cooperative pool must not).
private enum ShellCommand {
    static func run(_ command: String, stdin: [UInt8], environment: [String: String]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let job = Job(command: command, stdin: stdin, environment: environment) { continuation.resume() }
            let context = Unmanaged.passRetained(job).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                job.execute()
                return nil
            }, context)
            if started == 0 {
                pthread_detach(thread)
            } else {
                Unmanaged<Job>.fromOpaque(context).release()
                StandardError.write("xpb: cannot run --exec: \(String(cString: strerror(started)))\n")
                continuation.resume()
            }
        }
    }

    private final class Job: @unchecked Sendable {
        let command: String
        let stdin: [UInt8]
        let environment: [String: String]
        let done: () -> Void

        init(command: String, stdin: [UInt8], environment: [String: String], done: @escaping () -> Void) {
            self.command = command
            self.stdin = stdin
            self.environment = environment
            self.done = done
        }

        func execute() {
            defer { done() }
            var descriptors: [Int32] = [-1, -1]
            guard pipe(&descriptors) == 0 else {
                StandardError.write("xpb: cannot run --exec: \(String(cString: strerror(errno)))\n")
                return
            }
            let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
            _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
            if readEnd != 0 { posix_spawn_file_actions_addclose(&actions, readEnd) }

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            // We ignore SIGPIPE; the command gets the default back, and no blocked signals.
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGPIPE)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

            var variables: [String] = []
            var entry = environ
            while let variable = entry.pointee {
                let text = String(cString: variable)
                let key = String(text.prefix { $0 != "=" })
                if environment[key] == nil { variables.append(text) }
                entry += 1
            }
            variables += environment.map { "\($0.key)=\($0.value)" }
            let arguments: [String] = ["sh", "-c", command]
            let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
            defer {
                argv.forEach { free($0) }
                envp.forEach { free($0) }
            }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            close(readEnd)
            guard status == 0 else {
                close(writeEnd)
                StandardError.write("xpb: cannot run /bin/sh: \(String(cString: strerror(status)))\n")
                return
            }
            // A command that does not read its input just closes the pipe (EPIPE, ignored).
            _ = stdin.withUnsafeBytes { FileDescriptorIO.writeAll(writeEnd, $0) }
            close(writeEnd)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        }
    }
}
