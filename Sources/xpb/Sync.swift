import ArgumentParser
import Glibc
import X11Pasteboard

extension XPB {
    /// `xpb sync`: keeps two selections, or one display's selections and another's, in step.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep two selections, or two displays' selections, in step (every type, no echo).",
            discussion: """
                Selections are named as xpb watch names them: clipboard, primary, secondary (any \
                case) or any atom name.

                --from SEL --to SEL mirrors every representation of SEL to the other selection as \
                soon as it changes (what SEL holds when sync starts is mirrored at once); --two-way \
                mirrors both ways. --to-display NAME keeps the named selections (default CLIPBOARD) \
                of --display and of NAME in step, both ways. A burst of changes (a mouse drag setting \
                PRIMARY) is mirrored at its first and last change only; a change sync made itself is \
                never mirrored back; secret content (xpb copy --sensitive, password managers) is \
                never mirrored. Runs in the foreground until interrupted (SIGTERM, SIGINT), then hands \
                the CLIPBOARD it serves to the clipboard manager.

                Examples:
                  xpb sync --from primary --to clipboard
                  xpb sync --from primary --to clipboard --two-way
                  xpb sync --display :0 --to-display :1 clipboard primary
                """
        )

        @Option(help: "The X display to use (default: $DISPLAY).")
        var display: String?

        @Option(help: ArgumentHelp("The selection to mirror from.", valueName: "selection"))
        var from: String?

        @Option(help: ArgumentHelp("The selection to mirror to.", valueName: "selection"))
        var to: String?

        @Flag(help: "Mirror both ways between --from and --to.")
        var twoWay = false

        @Option(help: ArgumentHelp("Keep this display's selections in step with --display's.", valueName: "name"))
        var toDisplay: String?

        @Argument(help: ArgumentHelp("With --to-display: the selections to keep in step (default CLIPBOARD).", valueName: "selection"))
        var selections: [String] = []

        func validate() throws {
            if let toDisplay {
                if toDisplay.isEmpty { throw ValidationError("--to-display needs a display name") }
                if from != nil || to != nil || twoWay {
                    throw ValidationError("--to-display syncs whole selections between displays; drop --from, --to and --two-way")
                }
            } else {
                guard let from, let to else { throw ValidationError("give --from SEL --to SEL, or --to-display NAME") }
                if !selections.isEmpty { throw ValidationError("selections are named with --from and --to") }
                if from.isEmpty || to.isEmpty { throw ValidationError("a selection name cannot be empty") }
                if SelectionNames.atomName(from) == SelectionNames.atomName(to) {
                    throw ValidationError("--from and --to name the same selection")
                }
            }
            if selections.contains(where: \.isEmpty) { throw ValidationError("a selection name cannot be empty") }
        }

        func run() throws {
            try reportingFailures {
                if let toDisplay {
                    try syncDisplays(toDisplay)
                } else {
                    try syncSelections()
                }
            }
        }

        /// One display, one thread: changes of --from (and of --to with --two-way) become the
        /// other's content.
        private func syncSelections() throws {
            let from = SelectionNames.atomName(from!)
            let to = SelectionNames.atomName(to!)
            let connection = try GlobalOptions.connect(display: display)
            let side = try SyncSide(connection: connection, watching: twoWay ? [from, to] : [from], context: "sync")
            let inbox = try Mailbox<Publication>()
            SyncStop.onTerminationSignals(waking: [inbox])
            if let snapshot = try side.capture(from) {
                side.publish(Publication(selection: to, content: snapshot.content))
            }
            try side.run(inbox: inbox) { name, snapshot in
                side.publish(Publication(selection: name == from ? to : from, content: snapshot.content))
            }
        }

        /// Two displays, a thread each: what one captures, the other takes.
        private func syncDisplays(_ otherName: String) throws {
            let names = SelectionNames.atomNames(selections)
            let first = try GlobalOptions.connect(display: display)
            let second = try GlobalOptions.connect(display: otherName)
            let firstSide = try SyncSide(connection: first, watching: names, context: "sync")
            // Copies made on both displays at once: both end with the first display's.
            let (atFirst, atSecond) = (CrossingCopies(), CrossingCopies())
            firstSide.accepts = { publication in
                publication.stamp.map { atFirst.accepts($0, for: publication.selection, winsCrossing: true) } ?? true
            }
            let toFirst = try Mailbox<Publication>()
            let toSecond = try Mailbox<Publication>()
            SyncStop.onTerminationSignals(waking: [toFirst, toSecond])
            let secondDone = CountingSemaphore()
            // The first display's content wins at start.
            for name in names {
                if let snapshot = try firstSide.capture(name) { toSecond.post(Publication(selection: name, content: snapshot.content)) }
            }
            let handOff = ConnectionHandOff(connection: second)
            DetachedThread.start {
                do {
                    let side = try SyncSide(connection: handOff.connection, watching: names, context: "sync")
                    side.accepts = { publication in
                        publication.stamp.map { atSecond.accepts($0, for: publication.selection, winsCrossing: false) } ?? true
                    }
                    try side.run(inbox: toSecond) { name, snapshot in
                        let seen = atSecond.sending(name)
                        toFirst.post(Publication(
                            selection: name, content: snapshot.content, stamp: CopyStamp(index: atFirst.receivedOne(), seen: seen)))
                    }
                } catch {
                    exitReporting(error)
                }
                secondDone.signal()
            }
            try firstSide.run(inbox: toFirst) { name, snapshot in
                let seen = atFirst.sending(name)
                toSecond.post(Publication(
                    selection: name, content: snapshot.content, stamp: CopyStamp(index: atSecond.receivedOne(), seen: seen)))
            }
            // The second display hands its CLIPBOARD off too before the process ends.
            secondDone.wait()
        }
    }
}
