import SystemPackage
import UniformTypes
import X11Pasteboard

/// One `xpb copy` once its data is read, with its options as plain values: run by the `copy`
/// subcommand, by the entry point for the everyday forms (without ArgumentParser's set-up, which
/// cost more than the copy itself), and by the drop-in `xclip`, `xsel` and `pbcopy`.
struct CopyRequest {
    var display: String?
    var selection: String
    /// What is served: every target and its bytes.
    var content: SelectionContent
    /// Serve from the calling process instead of a detached one.
    var foreground = false
    /// Exit after this many pastes (TARGETS queries do not count).
    var conversionLimit: Int?
    /// Clear the selection after this many seconds if it is still ours.
    var expiry: Double?

    /// Takes the selection, detaches (unless `foreground`) and serves until another client
    /// copies, the limits are reached or a termination signal comes (`SelectionServing`).
    func run() throws(CommandFailure) {
        let connection = try GlobalOptions.connect(display: display)
        var configuration = SelectionOwner.Configuration()
        configuration.conversionLimit = conversionLimit
        if let expiry { configuration.expiry = PasteRequest.duration(seconds: expiry) }
        do {
            try SelectionServing.serve(
                content, on: connection, selection: selection, configuration: configuration, foreground: foreground)
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as PasteboardError {
            throw CommandFailure(error)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}

extension CopyRequest {
    /// The request for arguments in the everyday shapes (`copy`, `copy -p`, `copy FILE`,
    /// `copy -t TYPE --display D --selection NAME --foreground --paste-once --sensitive`), with
    /// its data read; nil for anything else (help, `--opt=value`, `-t T=FILE`, `--files`,
    /// unknown or repeated flags), which goes to the full parser and its messages.
    ///
    /// - Throws: what reading the data or naming its type throws, as `xpb copy` reports it.
    init?(fastPathArguments arguments: [String]) throws(CommandFailure) {
        guard let parsed = FastCopyArguments(arguments) else { return nil }
        let data = try FileDescriptorIO.readFile(parsed.file ?? "-")
        self.init(
            display: parsed.display, selection: parsed.selection,
            content: try Self.content(data, typeArgument: parsed.type, from: parsed.file ?? "stdin", isSensitive: parsed.sensitive),
            foreground: parsed.foreground, conversionLimit: parsed.pasteOnce ? 1 : nil)
    }

    /// What one copy of `data` serves: as the type `typeArgument` names, else as its sniffed
    /// type. Text, the everyday case, is served without loading the type table.
    static func content(
        _ data: [UInt8], typeArgument: String?, from source: String, isSensitive: Bool
    ) throws(CommandFailure) -> SelectionContent {
        if typeArgument == nil && ContentSniffer.isUTF8PlainText(data) {
            return SelectionContent(utf8Text: data, isSensitive: isSensitive)
        }
        let type = try typeArgument.map { (name) throws(CommandFailure) in try TypeArgumentParsing.resolve(name) }
            ?? ContentSniffer.sniff(data)
        try requireConvertible(data, as: type, from: source)
        return SelectionContent(representations: [(type, data)], isSensitive: isSensitive)
    }

    /// Data that its type cannot carry (bytes that are not UTF-8 named as text, a URL list with no
    /// URL) is refused here with a message, rather than offered under targets that then fail.
    static func requireConvertible(_ data: [UInt8], as type: UTType, from source: String) throws(CommandFailure) {
        guard let first = XTargetCrosswalk.offeredTargets(for: type).first,
            XTargetCrosswalk.encode(data, of: type, asTarget: first) == nil
        else { return }
        throw CommandFailure("the data from \(source) is not valid \(type.localizedDescription ?? type.identifier); drop -t to have its type sniffed")
    }
}

/// The everyday `xpb copy` arguments, parsed without ArgumentParser (pure, unit-tested).
struct FastCopyArguments: Equatable {
    var display: String?
    var selection = "CLIPBOARD"
    var type: String?
    var foreground = false
    var pasteOnce = false
    var sensitive = false
    var file: String?

    private static let selectionFlags = [
        "-b": "CLIPBOARD", "--clipboard": "CLIPBOARD", "-p": "PRIMARY", "--primary": "PRIMARY",
        "-s": "SECONDARY", "--secondary": "SECONDARY",
    ]

    /// Nil unless every argument is one of the everyday forms, each at most once.
    init?(_ arguments: [String]) {
        guard arguments.first == "copy" else { return nil }
        var rest = arguments.dropFirst()
        var seen = Set<String>()
        var selectionChosen = false
        func value() -> String? {
            guard let next = rest.popFirst(), !next.hasPrefix("-") || next.count == 1 else { return nil }
            return next
        }
        while let argument = rest.popFirst() {
            if let named = Self.selectionFlags[argument] {
                guard !selectionChosen else { return nil }
                selectionChosen = true
                selection = named
                continue
            }
            guard seen.insert(argument).inserted else { return nil }
            switch argument {
            case "--selection":
                guard !selectionChosen, let name = value(), !name.isEmpty else { return nil }
                selectionChosen = true
                selection = name
            case "--display":
                guard let name = value() else { return nil }
                display = name
            case "-t", "--type":
                // TYPE=FILE adds a representation: the full parser's job.
                guard type == nil, let name = value(), !name.contains("=") else { return nil }
                type = name
            case "--foreground": foreground = true
            case "--paste-once": pasteOnce = true
            case "--sensitive": sensitive = true
            default:
                guard file == nil, argument == "-" || !argument.hasPrefix("-") else { return nil }
                file = argument
            }
        }
        if seen.contains("-t") && seen.contains("--type") { return nil }
    }
}
