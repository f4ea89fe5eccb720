import Glibc
import UniformTypes
import X11Pasteboard

/// One `xpb paste`, with its options as plain values: run by the `paste` subcommand, and by the
/// entry point directly for the everyday forms, without ArgumentParser's set-up.
struct PasteRequest {
    var display: String?
    var selection: String
    var type: String?
    var files: Bool
    var timeout: Double

    /// Writes the selection's content to stdout.
    func run() throws(CommandFailure) {
        MemoryTuning.keepFreedMemoryForReuse()
        let connection = try GlobalOptions.connect(display: display)
        let reader = SelectionReader(connection: connection, timeout: Self.duration(seconds: timeout), selections: [selection])
        let selectionAtom = connection.atom(selection)
        let offered = try offer(reader, selectionAtom)
        if files { return try pasteFiles(reader, selectionAtom, offered) }
        let plan = try PastePlan(typeArgument: type, offer: offered, selectionName: selection)
        try plan.deliver(from: reader, selectionAtom) { bytes in try writeToStdout(bytes) }
    }

    /// Seconds as a Duration; beyond a year is as good as for ever and cannot overflow.
    static func duration(seconds: Double) -> Duration {
        .milliseconds(Int64(min(seconds, 365 * 86400) * 1000))
    }

    /// `--files`: the local paths of a file manager's copy, from `x-special/gnome-copied-files`
    /// or `text/uri-list`, one per line.
    private func pasteFiles(_ reader: SelectionReader, _ selectionAtom: XAtom, _ offered: TargetOffer) throws(CommandFailure) {
        guard let target = offered.fileListTarget else {
            throw CommandFailure("\(selection) holds no files (it offers: \(offered.targets.joined(separator: ", ")))", exitCode: 1)
        }
        let replyType: XAtom
        let bytes: [UInt8]
        do {
            (replyType, bytes) = try reader.read(selectionAtom, as: reader.connection.atom(target))
        } catch {
            throw CommandFailure(error)
        }
        let uris: [String]
        do {
            uris = try XTargetCrosswalk.decodeURIs(bytes, target: target, replyType: reader.connection.name(of: replyType) ?? "")
        } catch {
            throw CommandFailure("cannot read the file list in \(target): \(error)", exitCode: 1)
        }
        let paths = uris.compactMap(FileURL.pathBytes(fromURI:))
        guard !paths.isEmpty else {
            throw CommandFailure("\(selection) holds no local files, only: \(uris.joined(separator: " "))", exitCode: 1)
        }
        do {
            try writeToStdout(paths.flatMap { $0 + [UInt8(ascii: "\n")] })
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The request for arguments in the everyday shapes (`paste`, `paste -p`, `paste -t TYPE`,
    /// `paste --selection NAME --display D --timeout S --files`), or nil for anything else
    /// (help, `--opt=value`, unknown or repeated flags), which goes to the full parser and its
    /// messages.
    init?(fastPathArguments arguments: [String]) {
        guard arguments.first == "paste" else { return nil }
        var display: String?
        var selection: String?
        var type: String?
        var files = false
        var timeout: Double?
        var rest = arguments.dropFirst()
        func value() -> String? {
            guard let next = rest.popFirst(), !next.hasPrefix("-") || next.count == 1 else { return nil }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-b", "--clipboard", "-p", "--primary", "-s", "--secondary":
                guard selection == nil else { return nil }
                selection = ["b": "CLIPBOARD", "c": "CLIPBOARD", "p": "PRIMARY", "s": "SECONDARY"][argument.filter { $0 != "-" }.first.map(String.init) ?? ""]
            case "--selection":
                guard selection == nil, let name = value(), !name.isEmpty else { return nil }
                selection = name
            case "--display":
                guard display == nil, let name = value() else { return nil }
                display = name
            case "-t", "--type":
                guard type == nil, let name = value() else { return nil }
                type = name
            case "--timeout":
                guard timeout == nil, let text = value(), let seconds = Double(text), seconds > 0, seconds.isFinite else { return nil }
                timeout = seconds
            case "--files":
                guard !files else { return nil }
                files = true
            default:
                return nil
            }
        }
        if files && type != nil { return nil }
        self.init(display: display, selection: selection ?? "CLIPBOARD", type: type, files: files, timeout: timeout ?? 5)
    }

    init(display: String?, selection: String, type: String?, files: Bool, timeout: Double) {
        self.display = display
        self.selection = selection
        self.type = type
        self.files = files
        self.timeout = timeout
    }
}
