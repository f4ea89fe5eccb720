import ArgumentParser
import Glibc
import Synchronization
import SystemPackage
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb bridge`: the selections of this display and of another machine's, in step over a
    /// byte stream (stdin/stdout, or ssh).
    struct Bridge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep selections in step with another machine over stdin/stdout or ssh.",
            discussion: """
                Speaks the xpb bridge protocol (docs/bridge-protocol.md) on stdin and stdout: each \
                copy on either side becomes the other side's selection, every representation. \
                Content up to 1 MiB in all travels at once; larger content is announced, the far \
                side takes the selection with its targets, and the bytes cross only when someone \
                pastes there. Secret content never crosses. End of the stream or SIGTERM ends the bridge \
                (exit 0), handing the CLIPBOARD it serves to the clipboard manager.

                --ssh [USER@]HOST runs `xpb bridge` on HOST through ssh and connects the two: xpb \
                must be on HOST's PATH. Options after -- go to ssh.

                Examples:
                  xpb bridge --ssh laptop
                  xpb bridge --ssh me@server --remote-display :1 clipboard primary -- -p 2222
                  xpb bridge --send-only --ssh server
                """
        )

        @Option(help: "The X display to use (default: $DISPLAY).")
        var display: String?

        @Argument(help: ArgumentHelp("The selections to bridge (clipboard, primary, secondary or an atom name; default CLIPBOARD); with --ssh, then -- and options for ssh.", valueName: "selection"))
        var words: [String] = []

        @Option(help: ArgumentHelp("Run the far side on HOST through ssh.", valueName: "[user@]host"))
        var ssh: String?

        @Option(help: ArgumentHelp("With --ssh: the display on HOST (default: ssh's $DISPLAY there).", valueName: "name"))
        var remoteDisplay: String?

        @Flag(help: "Only send this side's changes; take nothing from the far side.")
        var sendOnly = false

        @Flag(help: "Only take the far side's changes; send nothing.")
        var receiveOnly = false

        @Option(help: ArgumentHelp("The largest content bridged, in bytes (default 256 MiB, at most 4 GiB); both sides should agree.", valueName: "bytes"))
        var maxSize: Int = 256 << 20

        /// The largest `--max-size` taken.
        static let largestMaxSize = 4 << 30

        /// ArgumentParser puts the words after `--` at the end of the one positional array
        /// (it allows no second one): as many as the command line has after its `--`.
        private var terminatedCount: Int {
            let arguments = CommandLine.arguments
            guard let terminator = arguments.firstIndex(of: "--") else { return 0 }
            return min(words.count, arguments.count - terminator - 1)
        }

        /// The selections named before `--`.
        var selections: [String] { Array(words.dropLast(terminatedCount)) }

        /// The words after `--`: options for ssh.
        var sshOptions: [String] { Array(words.suffix(terminatedCount)) }

        func validate() throws {
            if sendOnly && receiveOnly { throw ValidationError("--send-only and --receive-only exclude each other") }
            if maxSize < 1 { throw ValidationError("--max-size needs a positive number of bytes") }
            // Beyond this, a frame's length no longer fits memory anyone has, and 2^63 - 1 would
            // overflow the frame limit (the size plus room for names).
            if maxSize > Self.largestMaxSize { throw ValidationError("--max-size is at most \(Self.largestMaxSize) bytes (4 GiB)") }
            if selections.contains(where: \.isEmpty) { throw ValidationError("a selection name cannot be empty") }
            if ssh?.isEmpty == true { throw ValidationError("--ssh needs a host") }
            if ssh == nil && (remoteDisplay != nil || !sshOptions.isEmpty) {
                throw ValidationError("--remote-display and ssh options go with --ssh")
            }
        }

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            try reportingFailures {
                let names = SelectionNames.atomNames(selections)
                let connection = try GlobalOptions.connect(display: display)
                let stream = try ssh.map { host throws(CommandFailure) in try SSHPeer.start(host: host, options: sshOptions, command: remoteCommand(names)) }
                let session = try BridgeSession(
                    connection: connection, selections: names, maxSize: maxSize, sendOnly: sendOnly, receiveOnly: receiveOnly,
                    input: stream?.input ?? 0, output: stream?.output ?? 1, peer: stream)
                try session.run()
            }
        }

        /// The far side's command line: the same selections, the flags mirrored.
        private func remoteCommand(_ names: [String]) -> [String] {
            var command = ["xpb", "bridge"]
            if let remoteDisplay { command += ["--display", remoteDisplay] }
            if sendOnly { command.append("--receive-only") }
            if receiveOnly { command.append("--send-only") }
            command += ["--max-size", String(maxSize)]
            return command + names
        }
    }
}

/// One running bridge: the X side on this thread, the stream read on another, frames written
/// by a third.
final class BridgeSession {
    let side: SyncSide
    let names: [String]
    let maxSize: Int
    let sendOnly: Bool
    let receiveOnly: Bool
    let input: Int32
    let writer: FrameWriter
    let peer: SSHPeer?
    /// Names this process in the protocol, so its own copies are never taken back.
    let origin = UInt64.random(in: 1...UInt64.max)
    private var generation: UInt64 = 0
    let announced = AnnouncedContent()
    let fetches: RemoteFetches
    let inbox: Mailbox<Publication>
    /// Ends the bridge properly from the stream's or the writer's thread.
    let stopping: Stopping
    /// Whether the far side said hello yet (set by the stream's thread).
    let greeting = Greeting()
    /// The far side's origin id (set by the stream's thread).
    let received = ReceivedOffers()
    /// The offers that crossed the stream each way, to weigh copies made on both sides at once.
    let crossing = CrossingCopies()

    init(
        connection: XConnection, selections: [String], maxSize: Int, sendOnly: Bool, receiveOnly: Bool,
        input: Int32, output: Int32, peer: SSHPeer?
    ) throws(CommandFailure) {
        do {
            side = try SyncSide(connection: connection, watching: receiveOnly ? [] : selections, context: "bridge")
        } catch {
            throw CommandFailure(error)
        }
        side.sizeLimit = maxSize
        names = selections
        self.maxSize = maxSize
        self.sendOnly = sendOnly
        self.receiveOnly = receiveOnly
        self.input = input
        self.peer = peer
        // A pipe holds 64 KiB by default: 64 MiB would cross in a thousand handovers between
        // writer and reader. 1 MiB (Linux's default cap for users) is 64 of them. Not a pipe, or
        // not allowed: nothing changes. 1031 is F_SETPIPE_SZ, which the Glibc module leaves out.
        for descriptor in [input, output] { _ = fcntl(descriptor, 1031, Int32(1 << 20)) }
        let greeting = self.greeting
        let stopping = Stopping()
        self.stopping = stopping
        writer = FrameWriter(descriptor: output) {
            // The peer went away. Once greeted, that is the end of the stream: quietly.
            if greeting.greeted { stopping.stop() }
            // Before its hello, the reader is about to see the stream end too and says why
            // (ssh's exit status): this thread must not end the process first with status 0.
            sleep(5)
            if greeting.greeted { stopping.stop() }
            StandardError.write("xpb: bridge: the other side closed the stream before it said hello\n")
            _exit(1)
        }
        inbox = try Mailbox<Publication>()
        fetches = RemoteFetches(writer: writer, inbox: inbox)
        stopping.session = (fetches, inbox)
    }

    /// Bridges until the stream ends or a termination signal comes (CLIPBOARD goes to the
    /// clipboard manager, exit 0) or the stream breaks (one line, exit 1).
    func run() throws(CommandFailure) -> Never {
        SyncStop.onTerminationSignals(waking: [inbox])
        side.accepts = { [unowned self] in accepts($0) }
        writer.send(.hello(version: BridgeFrame.version, origin: origin))
        let reader = BridgeStreamReader(session: self)
        DetachedThread.start { reader.run() }
        do {
            try side.run(inbox: inbox) { name, snapshot in announce(snapshot, as: name) }
        } catch {
            throw CommandFailure(error)
        }
        // _exit: the stream's thread is still running, and exit's handlers would close what it uses.
        _exit(0)
    }

    /// Sends a local change to the far side, unless it came from there (or round a ring).
    private func announce(_ snapshot: SelectionSnapshot, as selection: String) {
        var offerOrigin = origin
        let offerGeneration: UInt64
        if let marker = snapshot.representation(forTarget: BridgeOffer.originTarget),
            let named = BridgeOffer.origin(fromMarker: marker.bytes),
            named.owner == side.capturedOwner
        {
            // Content another bridge here took from afar, served by that bridge's window:
            // forwarded under its first name. The same marker served by any other window (a
            // history restore, a manager that kept every target) is an old name: a new copy.
            if named.origin == origin { return }
            (offerOrigin, offerGeneration) = (named.origin, named.generation)
        } else {
            generation += 1
            offerGeneration = generation
        }
        let seen = crossing.sending(selection)
        let offer = BridgeOffer(snapshot: snapshot, origin: offerOrigin, generation: offerGeneration, seen: seen, selection: selection)
        announced.keep(snapshot, origin: offerOrigin, generation: offerGeneration, as: selection)
        writer.send(.offer(offer))
    }

    /// Whether to take an offer from afar (on the X thread). Two copies cross when each side
    /// sent its offer before the other's arrived: both sides must then keep the same one, that
    /// of the bridge with the higher origin id. An offer this side had already received when it
    /// sent its own later copy is older than that copy, which the far side takes.
    func accepts(_ publication: Publication) -> Bool {
        guard let stamp = publication.stamp else { return true }
        return crossing.accepts(stamp, for: publication.selection, winsCrossing: origin > received.peerOrigin)
    }

    /// What this side serves for a far-side offer: the bytes that came with it, a request to
    /// the far side for the rest, and the origin target.
    func content(for offer: BridgeOffer) -> SelectionContent {
        let fetches = self.fetches
        // Used only inside conversions, which run on the connection's thread.
        let connection = ConnectionHandOff(connection: side.connection)
        let side = SideHandOff(side: self.side, inbox: inbox)
        var entries = offer.items.map { item in
            if let bytes = item.bytes {
                return SelectionContent.Entry(target: item.target, value: ServedValue(bytes: bytes, type: item.type, format: item.format))
            }
            return SelectionContent.Entry(target: item.target) {
                fetches.fetch(
                    origin: offer.origin, generation: offer.generation, selection: offer.selection, target: item.target, timeout: .seconds(5),
                    serving: connection.connection, takeInbox: side.takeInbox
                ).map { ServedValue(bytes: $0, type: item.type, format: item.format) }
            }
        }
        entries.append(SelectionContent.Entry(
            target: BridgeOffer.originTarget, value: ServedValue(bytes: offer.originMarker(owner: side.side.connection.window), type: "STRING")))
        return SelectionContent(entries: entries)
    }
}
