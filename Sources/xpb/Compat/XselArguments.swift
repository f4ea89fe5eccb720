import ArgumentParser

/// xsel's command line: short flags alone or combined (`-bi`, `-bo`), GNU long options
/// (`--clipboard --input`), PRIMARY by default, and the direction inferred from the terminal
/// when neither `-i` nor `-o` is given.
enum XselArguments {
    private static let longFlags: [String: Character] = [
        "--append": "a", "--follow": "f", "--zeroflush": "z", "--input": "i", "--output": "o", "--clear": "c",
        "--delete": "d", "--primary": "p", "--secondary": "s", "--clipboard": "b", "--keep": "k",
        "--exchange": "x", "--nodetach": "n", "--verbose": "v", "--quiet": "q", "--help": "h",
        "--trim": "T", "--version": "V",
    ]

    /// The action for xsel's arguments (without the program name). `stdinIsTerminal` and
    /// `stdoutIsTerminal` decide the direction when no option does, as xsel does.
    static func parse(
        _ arguments: [String], stdinIsTerminal: Bool, stdoutIsTerminal: Bool
    ) throws(CompatUsageError) -> CompatAction {
        var flags = Set<Character>()
        var selection = "PRIMARY"
        var display: String?
        var timeoutMilliseconds: Int?
        var rest = arguments[...]
        func value(for option: String) throws(CompatUsageError) -> String {
            guard let next = rest.popFirst() else { throw CompatUsageError("xsel option \(option) needs a value") }
            return next
        }
        func take(_ flag: Character) throws(CompatUsageError) {
            switch flag {
            case "p": selection = "PRIMARY"
            case "s": selection = "SECONDARY"
            case "b": selection = "CLIPBOARD"
            case "t":
                let text = try value(for: "-t")
                guard let milliseconds = Int(text), milliseconds >= 0 else {
                    throw CompatUsageError("xsel -t needs milliseconds, not '\(text)'")
                }
                timeoutMilliseconds = milliseconds
            case "l": _ = try value(for: "-l")  // the log file: errors go to stderr or nowhere
            case "a", "f", "z", "i", "o", "c", "d", "k", "x", "n", "v", "q", "h", "T", "V": flags.insert(flag)
            default: throw CompatUsageError("xsel has no option -\(flag) (xsel --help lists them)")
            }
        }
        while let argument = rest.popFirst() {
            if argument.hasPrefix("--") {
                switch argument {
                case "--display": display = try value(for: argument)
                case "--selectionTimeout": try take("t")
                case "--logfile": try take("l")
                default:
                    guard let flag = longFlags[argument] else {
                        throw CompatUsageError("xsel has no option \(argument) (xsel --help lists them)")
                    }
                    try take(flag)
                }
            } else if argument.hasPrefix("-") && argument.count > 1 {
                for flag in argument.dropFirst() { try take(flag) }
            } else {
                throw CompatUsageError("xsel takes no file names ('\(argument)'): it reads stdin")
            }
        }
        if flags.contains("h") { return .show(help) }
        if flags.contains("V") { return .show(version) }
        let foreground = flags.contains("n")
        if flags.contains("k") { return .keep(display: display, foreground: foreground) }
        if flags.contains("x") { return .exchange(display: display, foreground: foreground) }
        if flags.contains("c") || flags.contains("d") {
            return .clear(display: display, selection: selection, delete: flags.contains("d"))
        }

        var paste = CompatPaste(display: display, selection: selection, removeLastNewline: flags.contains("T"), nothingIsSuccess: true)
        if let timeoutMilliseconds, timeoutMilliseconds > 0 { paste.timeout = Double(timeoutMilliseconds) / 1000 }
        var copy = CompatCopy(display: display, selection: selection, foreground: foreground)
        copy.append = flags.contains("a") || flags.contains("f")
        copy.removeLastNewline = flags.contains("T")
        if let timeoutMilliseconds, timeoutMilliseconds > 0 { copy.expiry = Double(timeoutMilliseconds) / 1000 }

        var input = !flags.isDisjoint(with: ["i", "a", "f"])
        var output = flags.contains("o")
        if !input && !output {
            // xsel: with no direction given, read a redirected stdin and write to a redirected
            // stdout; both terminals means output.
            input = !stdinIsTerminal
            output = !stdoutIsTerminal || stdinIsTerminal
        }
        switch (input, output) {
        case (true, true): return .pasteThenCopy(paste, copy)
        case (true, false): return .copy(copy)
        default: return .paste(paste)
        }
    }

    static let help = """
        Usage: xsel [options]
        Manipulate the X selection (xpb's drop-in xsel).

        By default the current selection is output and not modified if both
        standard input and standard output are terminals (ttys). Otherwise,
        the current selection is output if standard output is not a terminal
        (tty), and the selection is set from standard input if standard input
        is not a terminal (tty). If any input or output options are given then
        the program behaves only in the requested mode.

        Input options
          -a, --append          Append standard input to the selection
          -f, --follow          Append to selection as standard input grows
          -i, --input           Read standard input into the selection
        Output options
          -o, --output          Write the selection to standard output
        Action options
          -c, --clear           Clear the selection
          -d, --delete          Request that the selection be cleared and that
                                the application owning it delete its contents
        Selection options
          -p, --primary         Operate on the PRIMARY selection (default)
          -s, --secondary       Operate on the SECONDARY selection
          -b, --clipboard       Operate on the CLIPBOARD selection
          -k, --keep            Make PRIMARY and SECONDARY outlive their programs
          -x, --exchange        Exchange the PRIMARY and SECONDARY selections
        X options
          --display displayname
          -t ms, --selectionTimeout ms
                                Timeout for retrieving the selection; in input
                                mode, the background server exits after it
        Miscellaneous options
          --trim                Remove the last newline character if present
          -l, --logfile         Accepted; xpb reports errors on stderr
          -n, --nodetach        Do not detach from the controlling terminal
          -h, --help            Display this help and exit
          -v, --verbose         Accepted
          --version             Output version information and exit

        """

    static var version: String { "xsel version 1.2.0 (xpb \(XPB.configuration.version) drop-in)\n" }
}
