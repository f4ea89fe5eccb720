import SystemPackage
import UniformTypes
import X11Pasteboard

/// Carries a drop-in's action out on xpb's own copy and paste (`CopyRequest`, `PastePlan`):
/// the drop-ins get xpb's owner (TIMESTAMP, MULTIPLE, INCR, detaching without holding the
/// caller's pipes) and reader, not a copy of them.
enum CompatRunner {
    static func run(_ action: CompatAction) throws(CommandFailure) {
        switch action {
        case .show(let text):
            try write(Array(text.utf8))
        case .copy(let copy):
            try run(copy)
        case .paste(let paste):
            try run(paste)
        case .pasteThenCopy(let paste, let copy):
            try run(paste)
            try run(copy)
        case .clear(let display, let selection, let delete):
            let connection = try GlobalOptions.connect(display: display)
            let atom = connection.atom(selection)
            if delete {
                // ICCCM DELETE: the owner deletes the selected contents; most owners refuse.
                let reader = SelectionReader(connection: connection, timeout: .seconds(1), selections: [selection])
                _ = try? reader.read(atom, as: connection.atom("DELETE"))
            }
            do {
                try connection.clear(atom)
            } catch {
                throw CommandFailure(error)
            }
        case .keep(let display, let foreground):
            try serveSnapshots(display: display, foreground: foreground, exchange: false)
        case .exchange(let display, let foreground):
            try serveSnapshots(display: display, foreground: foreground, exchange: true)
        }
    }

    // MARK: Copy

    private static func run(_ copy: CompatCopy) throws(CommandFailure) {
        var data: [UInt8] = []
        if copy.files.isEmpty {
            data = try FileDescriptorIO.readAll(.standardInput)
            if copy.filter { try write(data) }
        } else {
            for file in copy.files { data += try FileDescriptorIO.readFile(file) }
        }
        if copy.removeLastNewline, data.last == UInt8(ascii: "\n") { data.removeLast() }
        if copy.append, let current = try? currentText(display: copy.display, selection: copy.selection) {
            data = current + data
        }
        try CopyRequest(
            display: copy.display, selection: copy.selection,
            content: try content(data, target: copy.target, sensitive: copy.sensitive),
            foreground: copy.foreground, conversionLimit: copy.loops, expiry: copy.expiry
        ).run()
    }

    /// The data under the target xclip was told (`-t image/png`, `-t UTF8_STRING`, any atom), or
    /// sniffed; a target that names no type xpb knows is served as it is under that atom.
    static func content(_ data: [UInt8], target: String?, sensitive: Bool) throws(CommandFailure) -> SelectionContent {
        guard let target else {
            return try CopyRequest.content(data, typeArgument: nil, from: "stdin", isSensitive: sensitive)
        }
        if let type = try? TypeArgumentParsing.resolve(target),
            (try? CopyRequest.requireConvertible(data, as: type, from: "stdin")) != nil,
            XTargetCrosswalk.offeredTargets(for: type).contains(target) || !TypeArgumentParsing.looksLikeAtomName(target)
        {
            return SelectionContent(representations: [(type, data)], isSensitive: sensitive)
        }
        var entries = [SelectionContent.Entry(target: target, value: ServedValue(bytes: data, type: target))]
        if sensitive {
            let hint = SelectionContent.passwordManagerHintTarget
            entries.append(.init(target: hint, value: ServedValue(bytes: Array(ConcealedContent.hintValue.utf8), type: hint)))
        }
        return SelectionContent(entries: entries, isSensitive: sensitive)
    }

    // MARK: Paste

    private static func run(_ paste: CompatPaste) throws(CommandFailure) {
        do {
            try pasteOrFail(paste)
        } catch let failure where failure.exitCode == 1 && paste.nothingIsSuccess {
            return
        }
    }

    private static func pasteOrFail(_ paste: CompatPaste) throws(CommandFailure) {
        MemoryTuning.keepFreedMemoryForReuse()
        let connection = try GlobalOptions.connect(display: paste.display)
        let reader = SelectionReader(
            connection: connection, timeout: PasteRequest.duration(seconds: paste.timeout), selections: [paste.selection])
        let selection = connection.atom(paste.selection)
        if paste.listTargets {
            let names: [String]
            do {
                names = try reader.targets(of: selection).map { connection.name(of: $0) ?? "" }
            } catch {
                throw CommandFailure(error)
            }
            return try write(Array(names.map { $0 + "\n" }.joined().utf8))
        }
        let offered = try offer(reader, selection)
        let plan: PastePlan
        if let target = paste.target {
            plan = try PastePlan(typeArgument: target, offer: offered, selectionName: paste.selection)
        } else {
            // xclip and xsel paste text, and only text.
            guard let text = offered.defaultPlan(), text.type != nil else {
                throw CommandFailure("\(paste.selection) holds no text (it offers: \(offered.targets.joined(separator: ", ")))", exitCode: 1)
            }
            plan = PastePlan(plan: text)
        }
        var trimmer = TrailingNewlineTrimmer(enabled: paste.removeLastNewline)
        try plan.deliver(from: reader, selection) { bytes in
            try trimmer.pass(bytes) { try writeToStdout($0) }
        }
    }

    /// The selection's text, for xsel -a; nil when it has none.
    private static func currentText(display: String?, selection: String) throws -> [UInt8]? {
        let connection = try GlobalOptions.connect(display: display)
        let reader = SelectionReader(connection: connection, timeout: .seconds(2), selections: [selection])
        let atom = connection.atom(selection)
        guard let plan = try reader.offer(of: atom).defaultPlan(), plan.type != nil else { return nil }
        return try reader.read(atom, plan: plan)
    }

    // MARK: Keep and exchange

    /// xsel -k and -x: captures PRIMARY and SECONDARY (every representation, not only text as
    /// xsel keeps; never a secret), then owns each with the snapshot `arrange` gives it, serving
    /// both from one process until both are taken. A selection given nothing is left alone by
    /// -k and cleared by -x.
    private static func serveSnapshots(
        display: String?, foreground: Bool, exchange: Bool
    ) throws(CommandFailure) {
        let connection = try GlobalOptions.connect(display: display)
        let reader = SelectionReader(connection: connection, timeout: .seconds(2), selections: ["PRIMARY", "SECONDARY"])
        let primary = connection.atom("PRIMARY")
        let secondary = connection.atom("SECONDARY")
        let captured = [primary, secondary].map { (try? SelectionSnapshot.capture($0, with: reader)) ?? nil }
        let assignments = exchange ? [(primary, captured[1]), (secondary, captured[0])] : [(primary, captured[0]), (secondary, captured[1])]
        var owners: [SelectionOwner] = []
        do throws(PasteboardError) {
            for (selection, snapshot) in assignments {
                guard let snapshot, !snapshot.representations.isEmpty else {
                    if exchange { try connection.clear(selection) }
                    continue
                }
                let owner = SelectionOwner(connection: connection, selection: selection, content: snapshot.content)
                try owner.acquire()
                owners.append(owner)
            }
        } catch {
            throw CommandFailure(error)
        }
        if owners.isEmpty { return }
        if !foreground { try Detach.intoBackground(keeping: FileDescriptor(rawValue: connection.fileDescriptor)) }
        do throws(PasteboardError) {
            // Each serve also answers the other owner's requests: they share the connection.
            for owner in owners { _ = try owner.serve() }
        } catch {
            throw CommandFailure(error)
        }
    }

    private static func write(_ bytes: [UInt8]) throws(CommandFailure) {
        do {
            try writeToStdout(bytes)
        } catch {
            throw CommandFailure(error)
        }
    }
}

/// Holds back a newline at the end of what has been written so far, so that the very last one
/// of a streamed paste can be dropped (xclip -rmlastnl, xsel --trim) without holding the paste.
struct TrailingNewlineTrimmer {
    var enabled: Bool
    private var heldNewline = false

    init(enabled: Bool) { self.enabled = enabled }

    /// Hands `bytes` to `sink`, less a final newline that is released if more bytes follow.
    mutating func pass(_ bytes: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard enabled else { return try sink(bytes) }
        guard !bytes.isEmpty else { return }
        if heldNewline {
            var newline = UInt8(ascii: "\n")
            try withUnsafeBytes(of: &newline) { try sink($0) }
            heldNewline = false
        }
        if bytes.last == UInt8(ascii: "\n") {
            heldNewline = true
            try sink(UnsafeRawBufferPointer(rebasing: bytes.dropLast()))
        } else {
            try sink(bytes)
        }
    }
}
