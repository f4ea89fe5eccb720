import Foundation
import Glibc
import Testing

/// Failures as users see them: one `xpb: ...` line on stderr, nothing on stdout, non-zero exit
/// (1 for "nothing to paste").
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct ErrorTests {
    /// A display number with no server behind it (no socket, no lock file).
    static func unusedDisplay() -> String {
        for _ in 0..<100 {
            let number = Int.random(in: 20_000...60_000)
            let socket = "/tmp/.X11-unix/X\(number)"
            let lock = "/tmp/.X\(number)-lock"
            if !FileManager.default.fileExists(atPath: socket) && !FileManager.default.fileExists(atPath: lock) {
                return ":\(number)"
            }
        }
        return ":59999"
    }

    @Test("paste with nothing owned: exit 1, one line, empty stdout")
    func pasteNothingOwned() async throws {
        let x = try XSession.require()
        #expect(try await x.owner("XPB_E2E_NEVER_OWNED") == 0)
        expectXpbError(try await x.xpb(["paste", "--selection", "XPB_E2E_NEVER_OWNED"]), status: 1)
        #expect(try await x.owner("SECONDARY") == 0)
        expectXpbError(try await x.xpb(["paste", "-s"]), status: 1)

        // CLIPBOARD after it was owned and cleared.
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data("soon gone".utf8))))
        expectSuccess(try await x.xpb(["clear"]))
        expectXpbError(try await x.xpb(["paste"]), status: 1, "paste of a cleared CLIPBOARD")
    }

    @Test("paste of a type the xpb owner does not offer: exit 1, one line, empty stdout")
    func pasteTypeNotOffered() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-p"], stdin: .pipe(Data("plain text".utf8))))
        for type in ["image/png", "public.html", ".pdf", "XPB_E2E_UNKNOWN_ATOM"] {
            expectXpbError(try await x.xpb(["paste", "-p", "-t", type]), status: 1, "xpb paste -p -t \(type) of text")
        }
        // The owner is unharmed.
        expectOutput(try await x.xpb(["paste", "-p"]), Data("plain text".utf8))
    }

    @Test("paste of a type a peer does not list in TARGETS (xclip would answer anything)")
    func pasteTypeNotListedByPeer() async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("clipboard", Data("xclip text".utf8))
        expectXpbError(try await x.xpb(["paste", "-t", "image/png"]), status: 1, "xpb paste -t image/png of xclip text")
        expectOutput(try await x.xpb(["paste"]), Data("xclip text".utf8))
        await x.stop(owner)
    }

    @Test("an owner that never answers: paste --timeout 1 gives up with exit 1")
    func ownerNeverAnswers() async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("secondary", Data("frozen".utf8))
        let xclip = owner.commandPIDs(named: "xclip")
        try #require(xclip.count == 1, "the xclip process: \(xclip)")
        kill(xclip[0], SIGSTOP)
        let paste = try await x.xpb(["paste", "-s", "--timeout", "1"], timeout: .seconds(15))
        kill(xclip[0], SIGCONT)
        expectXpbError(paste, status: 1, "xpb paste --timeout 1 from a stopped owner")
        // The message names the timeout it kept; the wall clock only rules out the 5 s default
        // by a margin a loaded machine cannot eat.
        #expect(paste.stderr.contains("within 1 s"), "\(paste.stderr)")
        #expect(paste.seconds < 12, "--timeout 1 must give up after about a second, took \(paste.seconds) s")
        await x.stop(owner)
    }

    @Test("no display at all: one line, non-zero exit, empty stdout", arguments: [
        ["paste"], ["copy"], ["types"], ["clear"], ["paste", "-p", "-t", "text/html"],
    ])
    func noDisplay(arguments: [String]) async throws {
        let x = try XSession.require()
        let stdin: Stdin = arguments == ["copy"] ? .pipe(Data("no display".utf8)) : .none
        let result = try await x.xpb(arguments, stdin: stdin, display: .unset, timeout: .seconds(10))
        expectXpbError(result, status: nil, "xpb \(arguments.joined(separator: " ")) with DISPLAY unset")
        #expect(ProcessTable.pids(tagged: harnessTagVariable, value: result.tag).isEmpty,
                "nothing may keep running after the error")
    }

    @Test("a display that does not exist: one line, non-zero exit, empty stdout", arguments: [
        ["paste"], ["copy"], ["types"], ["clear"],
    ])
    func missingDisplay(arguments: [String]) async throws {
        let x = try XSession.require()
        let display = Self.unusedDisplay()
        let stdin: Stdin = arguments == ["copy"] ? .pipe(Data("nowhere".utf8)) : .none
        let viaOption = try await x.xpb(arguments + ["--display", display], stdin: stdin, display: .unset, timeout: .seconds(10))
        expectXpbError(viaOption, status: nil, "xpb \(arguments.joined(separator: " ")) --display \(display)")
        let viaEnvironment = try await x.xpb(arguments, stdin: stdin, display: .value(display), timeout: .seconds(10))
        expectXpbError(viaEnvironment, status: nil, "DISPLAY=\(display) xpb \(arguments.joined(separator: " "))")
        #expect(viaOption.stderr.contains(display) || viaEnvironment.stderr.contains(display),
                "the message should name the display that failed: \(viaOption.stderr.debugDescription)")
    }
}
