import ArgumentParser

/// xclip's command line (xclip 0.13 as Debian ships it, and upstream's later options): single-dash
/// long options, each matched by any unambiguous prefix (`-sel`, `-se`, `-o`, `-out`), the
/// selection named by its first letter, and file names among the options.
enum XclipArguments {
    /// One option: its full name, whether it takes a value, and whether xclip 0.13 had it
    /// (a prefix that fits several options goes to the 0.13 one: `-se` was `-selection` long
    /// before `-sensitive` existed, and scripts were written then).
    private struct Option {
        var name: String
        var takesValue: Bool
        var classic: Bool
    }

    private static let options: [Option] = [
        .init(name: "loops", takesValue: true, classic: true),
        .init(name: "display", takesValue: true, classic: true),
        .init(name: "selection", takesValue: true, classic: true),
        .init(name: "filter", takesValue: false, classic: true),
        .init(name: "in", takesValue: false, classic: true),
        .init(name: "out", takesValue: false, classic: true),
        .init(name: "version", takesValue: false, classic: true),
        .init(name: "help", takesValue: false, classic: true),
        .init(name: "silent", takesValue: false, classic: true),
        .init(name: "quiet", takesValue: false, classic: true),
        .init(name: "verbose", takesValue: false, classic: true),
        .init(name: "noutf8", takesValue: false, classic: true),
        .init(name: "target", takesValue: true, classic: true),
        .init(name: "rmlastnl", takesValue: false, classic: true),
        .init(name: "debug", takesValue: false, classic: false),
        .init(name: "sensitive", takesValue: false, classic: false),
        .init(name: "wait", takesValue: true, classic: false),
        .init(name: "alt-text", takesValue: true, classic: false),
        .init(name: "clipboard", takesValue: false, classic: false),
        .init(name: "TARGETS", takesValue: false, classic: false),
    ]

    /// One-letter spellings that always mean one option, whatever else they prefix.
    private static let letters: [String: String] = [
        "i": "in", "o": "out", "f": "filter", "t": "target", "l": "loops", "d": "display", "h": "help",
        "v": "verbose", "V": "version", "r": "rmlastnl", "c": "clipboard", "b": "clipboard", "T": "TARGETS",
    ]

    /// The action for xclip's arguments (without the program name). `stdinIsTerminal`: xclip
    /// pastes when stdin is a terminal and neither `-i` nor a file says otherwise.
    static func parse(_ arguments: [String], stdinIsTerminal: Bool) throws(CompatUsageError) -> CompatAction {
        var values: [String: String] = [:]
        var flags = Set<String>()
        var files: [String] = []
        var direction: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--help" { return .show(help) }
            guard argument.count > 1, argument.hasPrefix("-") else {
                files.append(argument)
                continue
            }
            let option = try resolve(String(argument.dropFirst()))
            if option.takesValue {
                guard let value = rest.popFirst() else { throw CompatUsageError("xclip option -\(option.name) needs a value") }
                values[option.name] = value
            } else if option.name == "in" || option.name == "out" {
                direction = option.name
            } else {
                flags.insert(option.name)
            }
        }
        if flags.contains("help") { return .show(help) }
        if flags.contains("version") { return .show(version) }

        let selection = try selectionName(values["selection"] ?? (flags.contains("clipboard") ? "clipboard" : "primary"))
        let display = values["display"]
        var target = values["target"]
        if flags.contains("TARGETS") { target = "TARGETS" }
        if flags.contains("noutf8") { target = "STRING" }
        let isInput = direction.map { $0 == "in" } ?? (!files.isEmpty || !stdinIsTerminal)
        if target == "TARGETS" && direction != "in" || !isInput {
            if target == "TARGETS" {
                return .paste(CompatPaste(display: display, selection: selection, listTargets: true))
            }
            return .paste(CompatPaste(
                display: display, selection: selection, target: target, removeLastNewline: flags.contains("rmlastnl")))
        }
        // -noutf8 only changes what a paste asks for: a copy of text offers STRING anyway.
        if flags.contains("noutf8") { target = values["target"] }
        var copy = CompatCopy(display: display, selection: selection, files: files, target: target)
        // -quiet, -verbose and -debug keep xclip in the foreground; -silent is the default.
        copy.foreground = !flags.isDisjoint(with: ["quiet", "verbose", "debug"])
        if let loops = values["loops"] {
            guard let count = Int(loops), count >= 0 else { throw CompatUsageError("xclip -loops needs a number, not '\(loops)'") }
            copy.loops = count == 0 ? nil : count
        }
        copy.sensitive = flags.contains("sensitive")
        if copy.sensitive && copy.loops == nil { copy.loops = 1 }
        copy.removeLastNewline = flags.contains("rmlastnl")
        copy.filter = flags.contains("filter")
        return .copy(copy)
    }

    /// `-sel`, `-se`, `-o`: an exact name, a one-letter spelling, a unique prefix, or a prefix
    /// whose only classic match decides.
    private static func resolve(_ word: String) throws(CompatUsageError) -> Option {
        if let exact = options.first(where: { $0.name == word }) { return exact }
        if let name = letters[word], let option = options.first(where: { $0.name == name }) { return option }
        let matches = options.filter { $0.name.hasPrefix(word) }
        if matches.count == 1 { return matches[0] }
        let classic = matches.filter(\.classic)
        if classic.count == 1 { return classic[0] }
        if matches.isEmpty { throw CompatUsageError("xclip has no option -\(word) (xclip -h lists them)") }
        throw CompatUsageError("xclip option -\(word) is ambiguous: \(matches.map { "-" + $0.name }.joined(separator: ", "))")
    }

    /// xclip names a selection by its first letter: p, s, c (and b, the old cut buffer, which
    /// no current program uses and xpb does not serve).
    static func selectionName(_ word: String) throws(CompatUsageError) -> String {
        switch word.first.map({ String($0).lowercased() }) {
        case "p": return "PRIMARY"
        case "s": return "SECONDARY"
        case "c": return "CLIPBOARD"
        default: throw CompatUsageError("xclip -selection takes primary, secondary or clipboard, not '\(word)'")
        }
    }

    static let help = """
        Usage: xclip [OPTION] [FILE]...
        Access an X server selection for reading or writing (xpb's drop-in xclip).

          -i, -in          read text into X selection from standard input or files (default)
          -o, -out         print the selection to standard output
          -l, -loops N     number of selection requests to serve before exiting
          -d, -display D   X display to connect to (eg localhost:0)
          -h, -help        usage information
              -selection   selection to access ("primary", "secondary" or "clipboard")
              -noutf8      don't treat text as utf-8, use old unicode
          -t, -target T    use the given target atom (-t TARGETS lists the targets)
          -r, -rmlastnl    remove the last newline character if present
              -sensitive   serve once, marked secret for clipboard managers
              -version     version information
              -silent      errors only, run in background (default)
              -quiet       run in foreground
              -verbose     run in foreground
              -f, -filter  copy standard input to standard output too

        Unlike xclip, a copy never keeps the caller's stdout or stderr open.

        """

    static var version: String { "xclip version 0.13 (xpb \(XPB.configuration.version ) drop-in)\n" }
}
