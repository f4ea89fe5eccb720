import Foundation
import Testing
import XTestSupport

/// The drop-in xclip, xsel, pbcopy and pbpaste against the real ones: every argument vector
/// that Neovim, pass, tmux-yank, Emacs xclip.el, oh-my-zsh and fish run, with what the drop-in
/// copies read back by real xclip and xsel, and what they copy read back by the drop-in.
@Suite(.xServer, .serialized, .timeLimit(.minutes(3)))
struct CompatInteropTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var tool: String
        var arguments: [String]
        var selection: String
        var testDescription: String { "\(tool) \(arguments.joined(separator: " "))" }
    }

    /// Copies as callers run them, data on a pipe; each returns at once (detached).
    static let copies: [Vector] = [
        Vector(tool: "xclip", arguments: ["-selection", "clipboard"], selection: "CLIPBOARD"),  // pass, tmux-yank
        Vector(tool: "xclip", arguments: ["-selection", "primary"], selection: "PRIMARY"),  // tmux-yank
        Vector(tool: "xclip", arguments: ["-selection", "secondary"], selection: "SECONDARY"),
        Vector(tool: "xclip", arguments: ["-selection", "CLIPBOARD"], selection: "CLIPBOARD"),  // Emacs xclip.el
        Vector(tool: "xclip", arguments: ["-in", "-selection", "clipboard"], selection: "CLIPBOARD"),  // oh-my-zsh
        Vector(tool: "xclip", arguments: ["-sel", "clip"], selection: "CLIPBOARD"),
        Vector(tool: "xclip", arguments: ["-se", "c"], selection: "CLIPBOARD"),
        Vector(tool: "xclip", arguments: ["-i"], selection: "PRIMARY"),
        Vector(tool: "xsel", arguments: ["-i", "--clipboard"], selection: "CLIPBOARD"),  // tmux-yank, Emacs
        Vector(tool: "xsel", arguments: ["-i", "--primary"], selection: "PRIMARY"),
        Vector(tool: "xsel", arguments: ["-i", "--secondary"], selection: "SECONDARY"),
        Vector(tool: "xsel", arguments: ["--clipboard", "--input"], selection: "CLIPBOARD"),  // oh-my-zsh
        Vector(tool: "xsel", arguments: ["-bi"], selection: "CLIPBOARD"),
        Vector(tool: "xsel", arguments: ["-i"], selection: "PRIMARY"),
        Vector(tool: "pbcopy", arguments: [], selection: "CLIPBOARD"),
    ]

    /// Pastes as callers run them.
    static let pastes: [Vector] = [
        Vector(tool: "xclip", arguments: ["-o", "-selection", "clipboard"], selection: "CLIPBOARD"),  // Neovim, pass
        Vector(tool: "xclip", arguments: ["-o", "-selection", "primary"], selection: "PRIMARY"),  // Neovim
        Vector(tool: "xclip", arguments: ["-o", "-selection", "CLIPBOARD"], selection: "CLIPBOARD"),  // Emacs
        Vector(tool: "xclip", arguments: ["-o", "-selection", "SECONDARY"], selection: "SECONDARY"),
        Vector(tool: "xclip", arguments: ["-out", "-selection", "clipboard"], selection: "CLIPBOARD"),  // oh-my-zsh
        Vector(tool: "xsel", arguments: ["-o", "-b"], selection: "CLIPBOARD"),  // Neovim
        Vector(tool: "xsel", arguments: ["-o", "-p"], selection: "PRIMARY"),
        Vector(tool: "xsel", arguments: ["-o", "--clipboard"], selection: "CLIPBOARD"),  // Emacs
        Vector(tool: "xsel", arguments: ["-o", "--primary"], selection: "PRIMARY"),
        Vector(tool: "xsel", arguments: ["-o", "--secondary"], selection: "SECONDARY"),
        Vector(tool: "xsel", arguments: ["--clipboard", "--output"], selection: "CLIPBOARD"),  // oh-my-zsh
        Vector(tool: "xsel", arguments: ["-bo"], selection: "CLIPBOARD"),
        Vector(tool: "pbpaste", arguments: [], selection: "CLIPBOARD"),
    ]

    private static let xclipNames = ["CLIPBOARD": "clipboard", "PRIMARY": "primary", "SECONDARY": "secondary"]
    private static let xselFlags = ["CLIPBOARD": "-b", "PRIMARY": "-p", "SECONDARY": "-s"]

    @Test("a drop-in copy is read back by real xclip and xsel", arguments: copies)
    func copyReadByRealTools(vector: Vector) async throws {
        let x = try XSession.require()
        let text = Data("\(vector.testDescription): \(Samples.unicodeText)".utf8)
        expectSuccess(try await x.dropIn(vector.tool, vector.arguments, stdin: .pipe(text)))
        expectOutput(try await x.xclip(["-o", "-selection", Self.xclipNames[vector.selection]!]), text)
        expectOutput(try await x.xsel([Self.xselFlags[vector.selection]!, "-o"]), text)
    }

    @Test("a drop-in paste reads what real xclip and xsel copied", arguments: pastes)
    func pasteOfRealTools(vector: Vector) async throws {
        let x = try XSession.require()
        let text = Data("\(vector.testDescription): \(Samples.unicodeText)".utf8)
        let xclip = try await x.xclipOwner(Self.xclipNames[vector.selection]!, text)
        expectOutput(try await x.dropIn(vector.tool, vector.arguments), text)
        await x.stop(xclip)
        let xsel = try await x.xselOwner(Self.xselFlags[vector.selection]!, text)
        expectOutput(try await x.dropIn(vector.tool, vector.arguments), text)
        await x.stop(xsel)
    }

    /// Neovim's copies stay in the foreground (`-quiet`, `--nodetach`) until the selection is
    /// taken; Neovim ends them when it copies again.
    @Test("Neovim's foreground copies", arguments: [
        Vector(tool: "xclip", arguments: ["-quiet", "-i", "-selection", "clipboard"], selection: "CLIPBOARD"),
        Vector(tool: "xclip", arguments: ["-quiet", "-i", "-selection", "primary"], selection: "PRIMARY"),
        Vector(tool: "xsel", arguments: ["--nodetach", "-i", "-b"], selection: "CLIPBOARD"),
        Vector(tool: "xsel", arguments: ["--nodetach", "-i", "-p"], selection: "PRIMARY"),
    ])
    func foregroundCopies(vector: Vector) async throws {
        let x = try XSession.require()
        let text = Data("yanked in nvim\n".utf8)
        let before = try await x.owner(vector.selection)
        let owner = try x.spawn(try x.dropIn(vector.tool), vector.arguments, stdin: .bytes(text))
        let now = try await x.waitForNewOwner(vector.selection, previous: before)
        #expect(now != nil, "\(vector.testDescription) did not take \(vector.selection)")
        expectOutput(try await x.xclip(["-o", "-selection", Self.xclipNames[vector.selection]!]), text)
        #expect(owner.isRunning, "\(vector.testDescription) must stay in the foreground while it owns the selection")
        // Another copy takes the selection: the foreground owner exits by itself.
        expectSuccess(try await x.xsel([Self.xselFlags[vector.selection]!, "-c"]))
        #expect(await owner.waitForExit(timeout: .seconds(10)), "\(vector.testDescription) must exit once the selection is gone")
        let result = owner.result()
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test func xclipPngBothWays() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.dropIn("xclip", ["-selection", "clipboard", "-t", "image/png", "-i"], stdin: .pipe(Samples.png)))
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard", "-t", "image/png"]), Samples.png)
        let targets = try await x.dropIn("xclip", ["-o", "-selection", "clipboard", "-t", "TARGETS"])
        #expect(targets.status == 0 && targets.stdoutText.split(separator: "\n").contains("image/png"), "\(targets)")
        #expect(targets.stdoutText.split(separator: "\n").contains("TIMESTAMP"), "the drop-in's owner answers TIMESTAMP: \(targets)")

        let owner = try await x.xclipOwner("clipboard", Samples.png, target: "image/png")
        expectOutput(try await x.dropIn("xclip", ["-selection", "clipboard", "-t", "image/png", "-o"]), Samples.png)
        await x.stop(owner)
    }

    @Test func xclipLoopsOneServesOnePasteThenLeaves() async throws {
        let x = try XSession.require()
        let text = Data("once".utf8)
        expectSuccess(try await x.dropIn("xclip", ["-l", "1", "-selection", "clipboard"], stdin: .pipe(text)))
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), text)
        #expect(try await x.waitForNoOwner("CLIPBOARD"), "xclip -l 1 must give CLIPBOARD up after one paste")
    }

    /// `x=$(echo abc | xclip -selection clipboard)` blocks real xclip until the selection is
    /// taken; the drop-in returns at once.
    @Test func commandSubstitutionReturns() async throws {
        let x = try XSession.require()
        let script = #"x=$(printf 'substituted' | "$0" -selection clipboard); printf '[%s]' "$x""#
        let result = try await x.run("/bin/sh", ["-c", script, try x.dropIn("xclip")], timeout: .seconds(10))
        #expect(!result.timedOut && result.status == 0 && result.stdoutText == "[]", "\(result)")
        expectOutput(try await x.xsel(["-b", "-o"]), Data("substituted".utf8))
    }

    @Test func xselWithNothingToPasteExitsZero() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.dropIn("xsel", ["-c", "-b"]))
        #expect(try await x.waitForNoOwner("CLIPBOARD"))
        let empty = try await x.dropIn("xsel", ["-o", "-b"])
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr.isEmpty, "Neovim picks xsel only if this exits 0: \(empty)")
        let pbpaste = try await x.dropIn("pbpaste", [])
        #expect(pbpaste.status == 0 && pbpaste.stdout.isEmpty, "\(pbpaste)")
        // xclip says so, as xclip does.
        expectXpbError(try await x.dropIn("xclip", ["-o", "-selection", "clipboard"]), status: 1)
    }

    /// fish runs `xsel --clipboard` alone: a pipe in copies, a terminal in pastes. A terminal
    /// comes from script(1).
    @Test func xselDirectionFromTheTerminal() async throws {
        let x = try XSession.require()
        let script = try XSession.tool("script", package: "bsdutils")
        let xsel = try x.dropIn("xsel")
        // stdin a pipe, stdout the terminal: copy.
        let copy = try await x.run(script, ["-qec", "printf 'from fish' | \(xsel) --clipboard", "/dev/null"], timeout: .seconds(10))
        #expect(copy.status == 0 && !copy.timedOut, "\(copy)")
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), Data("from fish".utf8))
        // stdin the terminal, stdout a pipe: paste.
        let paste = try await x.run(script, ["-qec", "\(xsel) --clipboard | od -An -c", "/dev/null"], timeout: .seconds(10))
        #expect(paste.status == 0 && paste.stdoutText.contains("f   r   o   m       f   i   s   h"), "\(paste)")
        // Both terminals: paste, and the selection stays.
        let both = try await x.run(script, ["-qec", "\(xsel) --clipboard", "/dev/null"], timeout: .seconds(10))
        #expect(both.status == 0 && both.stdoutText.contains("from fish"), "\(both)")
        // Neither: the old content out, then the new in.
        let neither = try await x.dropIn("xsel", ["--clipboard"], stdin: .pipe(Data("newer".utf8)))
        expectOutput(neither, Data("from fish".utf8))
        expectOutput(try await x.xsel(["-b", "-o"]), Data("newer".utf8))
    }

    /// A terminal that closes as soon as the copy returns (script(1) here; a terminal window
    /// closed right after `echo x | xclip`) hangs up its process group: the detaching server must
    /// already be out of it. Before the fix, 18 of 40 such copies were lost.
    @Test func aCopySurvivesItsTerminalClosingAtOnce() async throws {
        let x = try XSession.require()
        let script = try XSession.tool("script", package: "bsdutils")
        for round in 1...10 {
            let copy = try await x.run(script, ["-qec", "printf 'round \(round)' | \(x.xpbPath) copy", "/dev/null"], timeout: .seconds(10))
            #expect(copy.status == 0, "\(copy)")
            expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), Data("round \(round)".utf8))
        }
    }

    @Test func xclipFilterRmlastnlAndFiles() async throws {
        let x = try XSession.require()
        let filtered = try await x.dropIn("xclip", ["-f", "-rmlastnl", "-selection", "clipboard"], stdin: .pipe(Data("tee me\n".utf8)))
        expectOutput(filtered, Data("tee me\n".utf8))
        expectOutput(try await x.xsel(["-b", "-o"]), Data("tee me".utf8))
        let owner = try await x.xclipOwner("clipboard", Data("line\n".utf8))
        expectOutput(try await x.dropIn("xclip", ["-o", "-sel", "c", "-r"]), Data("line".utf8))
        expectOutput(try await x.dropIn("xsel", ["-b", "-o", "--trim"]), Data("line".utf8))
        await x.stop(owner)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("one\n".utf8).write(to: directory.appendingPathComponent("a"))
        try Data("two\n".utf8).write(to: directory.appendingPathComponent("b"))
        expectSuccess(try await x.dropIn("xclip", ["-sel", "c", directory.appendingPathComponent("a").path, directory.appendingPathComponent("b").path]))
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), Data("one\ntwo\n".utf8))
    }

    @Test func xselAppendClearExchangeAndKeep() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.dropIn("xsel", ["-b", "-i"], stdin: .pipe(Data("first ".utf8))))
        expectSuccess(try await x.dropIn("xsel", ["-b", "-a"], stdin: .pipe(Data("second".utf8))))
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), Data("first second".utf8))
        expectSuccess(try await x.dropIn("xsel", ["-b", "-c"]))
        #expect(try await x.waitForNoOwner("CLIPBOARD"))

        let primary = try await x.xclipOwner("primary", Data("P".utf8))
        let secondary = try await x.xclipOwner("secondary", Data("S".utf8))
        expectSuccess(try await x.dropIn("xsel", ["-x"]))
        expectOutput(try await x.xsel(["-p", "-o"]), Data("S".utf8))
        expectOutput(try await x.xsel(["-s", "-o"]), Data("P".utf8))
        await x.stop(primary)
        await x.stop(secondary)
        // -k: the texts outlive the programs that selected them (here: the exchanging xsel).
        expectSuccess(try await x.dropIn("xsel", ["-k"]))
        expectOutput(try await x.xclip(["-o", "-selection", "primary"]), Data("S".utf8))
        expectOutput(try await x.xclip(["-o", "-selection", "secondary"]), Data("P".utf8))
    }

    /// Unlike xsel, which keeps only text, the drop-in keeps every representation.
    @Test func xselKeepKeepsAnImage() async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("primary", Samples.png, target: "image/png")
        expectSuccess(try await x.dropIn("xsel", ["-k"]))
        await x.stop(owner)
        expectOutput(try await x.xclip(["-o", "-selection", "primary", "-t", "image/png"]), Samples.png)
    }

    @Test func usageErrorsAreOneLine() async throws {
        let x = try XSession.require()
        expectXpbError(try await x.dropIn("xclip", ["-bogus"]), status: 1)
        expectXpbError(try await x.dropIn("xsel", ["--bogus"]), status: 1)
        expectXpbError(try await x.dropIn("pbcopy", ["-x"]), status: 1)
        let help = try await x.dropIn("xclip", ["-h"])
        #expect(help.status == 0 && help.stdoutText.hasPrefix("Usage: xclip"), "\(help)")
        let version = try await x.dropIn("xsel", ["--version"])
        #expect(version.status == 0 && version.stdoutText.contains("xsel version"), "\(version)")
    }
}

extension XSession {
    /// A tool from PATH, as the harness finds the peers.
    static func tool(_ name: String, package: String) throws -> String {
        try Tools.required(name, package: package)
    }
}
