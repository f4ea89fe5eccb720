import Foundation
import Testing
import XTestSupport

/// Real programs that call xclip and xsel, run unchanged with xpb's drop-ins first on PATH:
/// Debian's Neovim (headless) yanking to and putting from `+` and `*`, and Debian's pass copying
/// a password with `-c` and putting the previous clipboard back.
@Suite(.xServer, .serialized, .timeLimit(.minutes(3)))
struct CallerTests {
    /// A directory holding only the named drop-ins, for a PATH on which they are all there is.
    private func onlyDropIns(_ names: [String], _ x: XSession) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-callers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(name).path, withDestinationPath: x.xpbPath)
        }
        return directory.path
    }

    private func nvim(_ x: XSession, path: String, _ commands: [String]) async throws -> RunResult {
        let nvim = try Tools.required("nvim", package: "neovim")
        let arguments = ["PATH=\(path)", "SHELL=/bin/sh", nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
            + commands.flatMap { ["-c", $0] } + ["-c", "qa!"]
        return try await x.run("/usr/bin/env", arguments, timeout: .seconds(30))
    }

    /// Vim script that waits (up to 5 s) until real xclip reads `text` from `selection`: Neovim
    /// starts its copy job asynchronously.
    private func waitForReal(_ selection: String, _ text: String) -> String {
        "for i in range(50) | if system(['\(XSession.realXclip)', '-o', '-selection', '\(selection)']) ==# '\(text)\n' | break | endif | sleep 100m | endfor"
    }

    @Test func neovimYanksAndPutsThroughTheXclipDropIn() async throws {
        let x = try XSession.require()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-nvim-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = try onlyDropIns(["xclip", "xsel"], x) + ":/usr/bin:/bin"
        let yank = try await nvim(x, path: path, [
            "call writefile([provider#clipboard#Executable()], '\(scratch.path)')",
            "call setline(1, 'yanked to plus')", "normal! \"+yy",
            "call setline(1, 'yanked to star')", "normal! \"*yy",
            waitForReal("clipboard", "yanked to plus"), waitForReal("primary", "yanked to star"),
            "call writefile(readfile('\(scratch.path)') + [trim(system(['\(XSession.realXclip)', '-o', '-selection', 'clipboard'])), trim(system(['\(XSession.realXsel)', '-o', '-p']))], '\(scratch.path)')",
        ])
        #expect(yank.status == 0, "\(yank)")
        let lines = try String(contentsOf: scratch, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "xclip", "Neovim 0.7 prefers xclip when it is on PATH: \(lines)")
        #expect(lines.contains("yanked to plus") && lines.contains("yanked to star"), "real xclip/xsel must read Neovim's yanks: \(lines)")

        let owner = try await x.xclipOwner("clipboard", Data("put from real xclip\n".utf8))
        try await expectPut("put from real xclip", x, path: path, into: scratch)
        await x.stop(owner)
    }

    /// Neovim takes xsel only when `xsel -o -b` exits 0, which it must with nothing to paste.
    @Test func neovimPicksTheXselDropInOnAnEmptyClipboard() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xsel(["-b", "-c"]))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-nvim-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = try onlyDropIns(["xsel"], x)
        let yank = try await nvim(x, path: path, [
            "call writefile([provider#clipboard#Executable()], '\(scratch.path)')",
            "call setline(1, 'yanked via xsel')", "normal! \"+yy",
            waitForReal("clipboard", "yanked via xsel"),
            "call writefile(readfile('\(scratch.path)') + [trim(system(['\(XSession.realXclip)', '-o', '-selection', 'clipboard']))], '\(scratch.path)')",
        ])
        #expect(yank.status == 0, "\(yank)")
        let lines = try String(contentsOf: scratch, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "xsel" && lines.contains("yanked via xsel"), "\(lines)")

        let owner = try await x.xselOwner("-b", Data("put from real xsel".utf8))
        try await expectPut("put from real xsel", x, path: path, into: scratch)
        await x.stop(owner)
    }

    /// Neovim's `put +` (through the drop-ins on `path`) brings `line`, which a real owner holds.
    private func expectPut(
        _ line: String, _ x: XSession, path: String, into scratch: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let put = try await nvim(x, path: path, ["put +", "write! \(scratch.path)"])
        #expect(put.status == 0, "\(put)", sourceLocation: sourceLocation)
        let putText = try String(contentsOf: scratch, encoding: .utf8)
        #expect(putText.split(separator: "\n").contains(Substring(line)), "\(putText.debugDescription) after \(put)", sourceLocation: sourceLocation)
    }

    @Test func passCopiesThePasswordAndRestoresTheClipboard() async throws {
        let x = try XSession.require()
        let pass = try Tools.required("pass", package: "pass")
        let gpg = try Tools.required("gpg", package: "gnupg")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-pass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("gnupg"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home.appendingPathComponent("gnupg").path)
        // The gpg-agent that gpg starts carries the suite's tag: the suite ends it.
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "GNUPGHOME=\(home.appendingPathComponent("gnupg").path)",
            "PASSWORD_STORE_DIR=\(home.appendingPathComponent("store").path)",
            "PASSWORD_STORE_CLIP_TIME=1",
            "PATH=\(try DropIns.directory(for: x.xpbPath)):/usr/bin:/bin",
        ]
        func run(_ command: [String], stdin: Stdin = .none) async throws -> RunResult {
            try await x.run("/usr/bin/env", environment + command, stdin: stdin, timeout: .seconds(60))
        }
        let key = try await run([gpg, "--batch", "--passphrase", "", "--quick-gen-key", "xpb test <xpb@test.invalid>", "future-default", "default", "never"])
        try #require(key.status == 0, "\(key)")
        try #require(try await run([pass, "init", "xpb@test.invalid"]).status == 0)
        let insert = try await run([pass, "insert", "-e", "site"], stdin: .pipe(Data("s3cret-Pässwort\n".utf8)))
        try #require(insert.status == 0, "\(insert)")

        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data("what was there before".utf8))))
        let show = try await run([pass, "show", "-c", "site"])
        #expect(show.status == 0 && show.stdoutText.contains("Copied site to clipboard"), "\(show)")
        expectOutput(try await x.xclip(["-o", "-selection", "clipboard"]), Data("s3cret-Pässwort".utf8))
        // After PASSWORD_STORE_CLIP_TIME, pass puts the previous clipboard back.
        var restored = Data()
        for _ in 0..<100 {
            restored = try await x.xsel(["-b", "-o"]).stdout
            if restored == Data("what was there before".utf8) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(String(decoding: restored, as: UTF8.self) == "what was there before", "pass must restore the clipboard")
    }
}

extension XSession {
    static let realXclip = (try? Tools.required("xclip", package: "xclip")) ?? "/usr/bin/xclip"
    static let realXsel = (try? Tools.required("xsel", package: "xsel")) ?? "/usr/bin/xsel"
}
