import Glibc

/// The tool `xpb` stands in for when it runs under another name (argv[0]'s base name, as the
/// links `make install` puts on PATH): programs that call xclip, xsel, pbcopy or pbpaste with
/// their fixed arguments run on xpb unchanged.
enum Personality: String, CaseIterable {
    case xclip, xsel, pbcopy, pbpaste

    /// The personality for a program path, nil for `xpb` itself (and any other name).
    init?(programPath: String) {
        let base = programPath.split(separator: "/").last.map(String.init) ?? programPath
        self.init(rawValue: base)
    }

    /// What the arguments ask for. The terminal checks are passed in, so parsing stays pure.
    func action(
        for arguments: [String], stdinIsTerminal: Bool, stdoutIsTerminal: Bool
    ) throws(CompatUsageError) -> CompatAction {
        switch self {
        case .xclip: try XclipArguments.parse(arguments, stdinIsTerminal: stdinIsTerminal)
        case .xsel: try XselArguments.parse(arguments, stdinIsTerminal: stdinIsTerminal, stdoutIsTerminal: stdoutIsTerminal)
        case .pbcopy: try PbArguments.parse(arguments, isCopy: true)
        case .pbpaste: try PbArguments.parse(arguments, isCopy: false)
        }
    }

    /// Parses and runs; never returns.
    func run(_ arguments: [String]) -> Never {
        let action: CompatAction
        do {
            action = try self.action(for: arguments, stdinIsTerminal: isatty(0) == 1, stdoutIsTerminal: isatty(1) == 1)
        } catch {
            // 1, as xclip and macOS's pbcopy exit on a bad option (xsel's 0 is a bug: the
            // caller would take the copy for done).
            exit(CommandFailure(error.message, exitCode: 1).report())
        }
        do {
            try CompatRunner.run(action)
            exit(0)
        } catch {
            exit(error.report())
        }
    }
}
