import Testing
@testable import xpb

/// The drop-in grammars, without a server: every argument vector the programs that call xclip
/// and xsel use (Neovim, pass, tmux-yank, Emacs xclip.el, oh-my-zsh, fish), and their edges.
@Suite struct CompatParsingTests {
    private func xclip(_ arguments: [String], stdinIsTerminal: Bool = false) throws -> CompatAction {
        try XclipArguments.parse(arguments, stdinIsTerminal: stdinIsTerminal)
    }

    private func xsel(_ arguments: [String], stdinIsTerminal: Bool = false, stdoutIsTerminal: Bool = false) throws -> CompatAction {
        try XselArguments.parse(arguments, stdinIsTerminal: stdinIsTerminal, stdoutIsTerminal: stdoutIsTerminal)
    }

    @Test func personalityComesFromTheProgramsBaseName() {
        #expect(Personality(programPath: "/usr/local/lib/xpb/compat/xclip") == .xclip)
        #expect(Personality(programPath: "xsel") == .xsel)
        #expect(Personality(programPath: "/usr/bin/pbcopy") == .pbcopy)
        #expect(Personality(programPath: "./pbpaste") == .pbpaste)
        #expect(Personality(programPath: "/usr/bin/xpb") == nil)
        #expect(Personality(programPath: "xclip-copyfile") == nil)
    }

    @Test("xclip copies, as callers write them", arguments: [
        (["-quiet", "-i", "-selection", "clipboard"], "CLIPBOARD", true),  // Neovim
        (["-quiet", "-i", "-selection", "primary"], "PRIMARY", true),
        (["-selection", "clipboard"], "CLIPBOARD", false),  // pass, tmux-yank
        (["-selection", "CLIPBOARD"], "CLIPBOARD", false),  // Emacs xclip.el
        (["-in", "-selection", "clipboard"], "CLIPBOARD", false),  // oh-my-zsh
        (["-sel", "clip"], "CLIPBOARD", false),
        (["-se", "c"], "CLIPBOARD", false),
        (["-selection", "secondary"], "SECONDARY", false),
        ([], "PRIMARY", false),
        (["-i"], "PRIMARY", false),
        (["-c"], "CLIPBOARD", false),
        (["-verbose", "-sel", "p"], "PRIMARY", true),
    ])
    func xclipCopies(arguments: [String], selection: String, foreground: Bool) throws {
        let action = try xclip(arguments)
        #expect(action == .copy(CompatCopy(selection: selection, foreground: foreground)), "\(arguments)")
    }

    @Test("xclip pastes, as callers write them", arguments: [
        (["-o", "-selection", "clipboard"], "CLIPBOARD"),  // Neovim, pass
        (["-o", "-selection", "primary"], "PRIMARY"),
        (["-o", "-selection", "SECONDARY"], "SECONDARY"),  // Emacs
        (["-out", "-selection", "clipboard"], "CLIPBOARD"),  // oh-my-zsh
        (["-ou", "-sel", "c"], "CLIPBOARD"),
        (["-o"], "PRIMARY"),
    ])
    func xclipPastes(arguments: [String], selection: String) throws {
        #expect(try xclip(arguments) == .paste(CompatPaste(selection: selection)), "\(arguments)")
    }

    @Test func xclipOptionsWithValues() throws {
        #expect(try xclip(["-selection", "clipboard", "-t", "image/png", "-i"])
            == .copy(CompatCopy(selection: "CLIPBOARD", target: "image/png")))
        #expect(try xclip(["-selection", "clipboard", "-target", "image/png", "-o"])
            == .paste(CompatPaste(selection: "CLIPBOARD", target: "image/png")))
        #expect(try xclip(["-o", "-t", "TARGETS"]) == .paste(CompatPaste(selection: "PRIMARY", listTargets: true)))
        #expect(try xclip(["-sel", "c", "-T"]) == .paste(CompatPaste(selection: "CLIPBOARD", listTargets: true)))
        #expect(try xclip(["-l", "1", "-d", ":9", "-i"]) == .copy(CompatCopy(display: ":9", selection: "PRIMARY", loops: 1)))
        #expect(try xclip(["-loops", "0"]) == .copy(CompatCopy(selection: "PRIMARY")))
        #expect(try xclip(["-display", ":3", "-o"]) == .paste(CompatPaste(display: ":3", selection: "PRIMARY")))
        #expect(try xclip(["-o", "-noutf8"]) == .paste(CompatPaste(selection: "PRIMARY", target: "STRING")))
        #expect(try xclip(["-i", "-noutf8"]) == .copy(CompatCopy(selection: "PRIMARY")))
    }

    @Test func xclipFlags() throws {
        #expect(try xclip(["-sensitive", "-sel", "c"]) == .copy(CompatCopy(selection: "CLIPBOARD", loops: 1, sensitive: true)))
        #expect(try xclip(["-rmlastnl", "-o"]) == .paste(CompatPaste(selection: "PRIMARY", removeLastNewline: true)))
        #expect(try xclip(["-r", "-i"]) == .copy(CompatCopy(selection: "PRIMARY", removeLastNewline: true)))
        #expect(try xclip(["-f", "-selection", "clipboard"]) == .copy(CompatCopy(selection: "CLIPBOARD", filter: true)))
        #expect(try xclip(["-filter", "-silent"]) == .copy(CompatCopy(selection: "PRIMARY", filter: true)))
    }

    @Test func xclipDirectionFromTheTerminalAndFiles() throws {
        #expect(try xclip([], stdinIsTerminal: true) == .paste(CompatPaste(selection: "PRIMARY")))
        #expect(try xclip(["notes.txt"], stdinIsTerminal: true) == .copy(CompatCopy(selection: "PRIMARY", files: ["notes.txt"])))
        #expect(try xclip(["-sel", "c", "a", "-", "b"]) == .copy(CompatCopy(selection: "CLIPBOARD", files: ["a", "-", "b"])))
        #expect(try xclip(["-i"], stdinIsTerminal: true) == .copy(CompatCopy(selection: "PRIMARY")))
    }

    @Test func xclipHelpAndVersion() throws {
        for arguments in [["-h"], ["-help"], ["--help"], ["-he"]] {
            guard case .show(let text) = try xclip(arguments) else { Issue.record("\(arguments)"); continue }
            #expect(text.hasPrefix("Usage: xclip"))
        }
        guard case .show(let version) = try xclip(["-version"]) else { Issue.record("-version"); return }
        #expect(version.contains("xclip version") && version.contains("xpb"))
    }

    @Test("xclip refuses what it cannot take", arguments: [
        ["-bogus"], ["-s"], ["-selection"], ["-selection", "x"], ["-loops", "many"], ["-t"],
    ])
    func xclipUsageErrors(arguments: [String]) {
        #expect(throws: CompatUsageError.self, "\(arguments)") { try xclip(arguments) }
    }

    @Test("xsel copies, as callers write them", arguments: [
        (["--nodetach", "-i", "-b"], "CLIPBOARD", true),  // Neovim
        (["--nodetach", "-i", "-p"], "PRIMARY", true),
        (["-i", "--clipboard"], "CLIPBOARD", false),  // tmux-yank, Emacs
        (["-i", "--primary"], "PRIMARY", false),
        (["-i", "--secondary"], "SECONDARY", false),
        (["--clipboard", "--input"], "CLIPBOARD", false),  // oh-my-zsh
        (["-bi"], "CLIPBOARD", false),
        (["-ib"], "CLIPBOARD", false),
        (["-n", "-si"], "SECONDARY", true),
        (["-i"], "PRIMARY", false),
    ])
    func xselCopies(arguments: [String], selection: String, foreground: Bool) throws {
        #expect(try xsel(arguments) == .copy(CompatCopy(selection: selection, foreground: foreground)), "\(arguments)")
    }

    @Test("xsel pastes, as callers write them", arguments: [
        (["-o", "-b"], "CLIPBOARD"),  // Neovim
        (["-o", "-p"], "PRIMARY"),
        (["-o", "--clipboard"], "CLIPBOARD"),  // Emacs
        (["-o", "--secondary"], "SECONDARY"),
        (["--clipboard", "--output"], "CLIPBOARD"),  // oh-my-zsh
        (["-bo"], "CLIPBOARD"),
        (["-o"], "PRIMARY"),
    ])
    func xselPastes(arguments: [String], selection: String) throws {
        #expect(try xsel(arguments) == .paste(CompatPaste(selection: selection, nothingIsSuccess: true)), "\(arguments)")
    }

    /// fish runs `xsel --clipboard` alone: the direction comes from which ends are terminals.
    @Test func xselDirectionFromTheTerminal() throws {
        let paste = CompatPaste(selection: "CLIPBOARD", nothingIsSuccess: true)
        let copy = CompatCopy(selection: "CLIPBOARD")
        #expect(try xsel(["--clipboard"], stdinIsTerminal: false, stdoutIsTerminal: true) == .copy(copy))
        #expect(try xsel(["--clipboard"], stdinIsTerminal: true, stdoutIsTerminal: false) == .paste(paste))
        #expect(try xsel(["--clipboard"], stdinIsTerminal: true, stdoutIsTerminal: true) == .paste(paste))
        #expect(try xsel(["--clipboard"], stdinIsTerminal: false, stdoutIsTerminal: false) == .pasteThenCopy(paste, copy))
        // A direction given overrides the terminals.
        #expect(try xsel(["-b", "-o"], stdinIsTerminal: false, stdoutIsTerminal: true) == .paste(paste))
        #expect(try xsel(["-i", "-o", "-b"]) == .pasteThenCopy(paste, copy))
    }

    @Test func xselOtherOptions() throws {
        #expect(try xsel(["-c", "-b"]) == .clear(display: nil, selection: "CLIPBOARD", delete: false))
        #expect(try xsel(["-d"]) == .clear(display: nil, selection: "PRIMARY", delete: true))
        #expect(try xsel(["-bc", "-i"]) == .clear(display: nil, selection: "CLIPBOARD", delete: false))
        #expect(try xsel(["-k"]) == .keep(display: nil, foreground: false))
        #expect(try xsel(["-x", "-n", "--display", ":4"]) == .exchange(display: ":4", foreground: true))
        #expect(try xsel(["-a", "-b"]) == .copy(CompatCopy(selection: "CLIPBOARD", append: true)))
        #expect(try xsel(["-f"]) == .copy(CompatCopy(selection: "PRIMARY", append: true)))
        #expect(try xsel(["--trim", "-o"]) == .paste(CompatPaste(selection: "PRIMARY", removeLastNewline: true, nothingIsSuccess: true)))
        #expect(try xsel(["-t", "1500", "-o"]) == .paste(CompatPaste(selection: "PRIMARY", timeout: 1.5, nothingIsSuccess: true)))
        #expect(try xsel(["--selectionTimeout", "250", "-i"]) == .copy(CompatCopy(selection: "PRIMARY", expiry: 0.25)))
        #expect(try xsel(["-l", "/tmp/log", "-v", "-q", "-z", "-i"]) == .copy(CompatCopy(selection: "PRIMARY")))
        #expect(try xsel(["--display", ":2", "-o"]) == .paste(CompatPaste(display: ":2", selection: "PRIMARY", nothingIsSuccess: true)))
        guard case .show(let help) = try xsel(["-h"]), case .show(let version) = try xsel(["--version"]) else {
            Issue.record("help and version")
            return
        }
        #expect(help.hasPrefix("Usage: xsel") && version.contains("xsel version"))
    }

    @Test("xsel refuses what it cannot take", arguments: [["-y"], ["--bogus"], ["file.txt"], ["-t"], ["-t", "soon"], ["--display"]])
    func xselUsageErrors(arguments: [String]) {
        #expect(throws: CompatUsageError.self, "\(arguments)") { try xsel(arguments) }
    }

    @Test func pbcopyAndPbpaste() throws {
        #expect(try PbArguments.parse([], isCopy: true) == .copy(CompatCopy(selection: "CLIPBOARD")))
        #expect(try PbArguments.parse(["-pboard", "general"], isCopy: true) == .copy(CompatCopy(selection: "CLIPBOARD")))
        #expect(try PbArguments.parse([], isCopy: false) == .paste(CompatPaste(selection: "CLIPBOARD", nothingIsSuccess: true)))
        #expect(try PbArguments.parse(["-Prefer", "txt", "-pboard", "find"], isCopy: false)
            == .paste(CompatPaste(selection: "CLIPBOARD", nothingIsSuccess: true)))
        #expect(throws: CompatUsageError.self) { try PbArguments.parse(["-Prefer", "txt"], isCopy: true) }
        #expect(throws: CompatUsageError.self) { try PbArguments.parse(["-pboard", "other"], isCopy: false) }
    }

    @Test func trailingNewlineIsDroppedOnlyAtTheVeryEnd() throws {
        func trimmed(_ chunks: [String]) throws -> String {
            var trimmer = TrailingNewlineTrimmer(enabled: true)
            var output: [UInt8] = []
            for chunk in chunks {
                try Array(chunk.utf8).withUnsafeBytes { raw in try trimmer.pass(raw) { output += $0 } }
            }
            return String(decoding: output, as: UTF8.self)
        }
        #expect(try trimmed(["a\n"]) == "a")
        #expect(try trimmed(["a\n", "b\n"]) == "a\nb")
        #expect(try trimmed(["a\n", "", "b"]) == "a\nb")
        #expect(try trimmed(["a\n\n"]) == "a\n")
        #expect(try trimmed(["a"]) == "a")
    }

    @Test func copyFastPathTakesTheEverydayForms() throws {
        #expect(FastCopyArguments(["copy"]) == FastCopyArguments(["copy", "-b"]))
        #expect(FastCopyArguments(["copy", "-p"])?.selection == "PRIMARY")
        let full = try #require(FastCopyArguments(["copy", "--selection", "XPB_X", "--display", ":5", "-t", "text/html", "--foreground", "--paste-once", "--sensitive", "page.html"]))
        #expect(full.selection == "XPB_X" && full.display == ":5" && full.type == "text/html" && full.foreground && full.pasteOnce && full.sensitive && full.file == "page.html")
        for arguments in [["paste"], ["copy", "--help"], ["copy", "-t", "text/html=a.html"], ["copy", "--files", "a"], ["copy", "-b", "-p"],
                          ["copy", "--loops", "2"], ["copy", "a", "b"], ["copy", "--foreground", "--foreground"], ["copy", "-t", "x", "--type", "y"],
                          ["copy", "--type=x"], ["copy", "--expire", "3"]] {
            #expect(FastCopyArguments(arguments) == nil, "\(arguments)")
        }
    }
}
