import Foundation
import Testing
@testable import xpb

/// The everyday `xpb paste` forms skip ArgumentParser; everything else must still reach it.
@Suite struct FastPathParsingTests {
    @Test func takesTheEverydayForms() throws {
        let plain = try #require(PasteRequest(fastPathArguments: ["paste"]))
        #expect(plain.selection == "CLIPBOARD" && plain.type == nil && !plain.files && plain.timeout == 5 && plain.display == nil)
        #expect(PasteRequest(fastPathArguments: ["paste", "-p"])?.selection == "PRIMARY")
        #expect(PasteRequest(fastPathArguments: ["paste", "--secondary"])?.selection == "SECONDARY")
        #expect(PasteRequest(fastPathArguments: ["paste", "--selection", "XPB_X"])?.selection == "XPB_X")
        let full = try #require(PasteRequest(fastPathArguments: ["paste", "-t", "text/html", "--display", ":7", "--timeout", "0.5"]))
        #expect(full.type == "text/html" && full.display == ":7" && full.timeout == 0.5)
        #expect(PasteRequest(fastPathArguments: ["paste", "--files"])?.files == true)
    }

    @Test("leaves everything else to the full parser", arguments: [
        ["copy"], ["paste", "--help"], ["paste", "-h"], ["paste", "--timeout=1"], ["paste", "-b", "-p"],
        ["paste", "--timeout", "0"], ["paste", "--timeout", "soon"], ["paste", "-t"], ["paste", "-t", "--files"],
        ["paste", "--files", "-t", "x"], ["paste", "extra"], ["paste", "--selection", ""], ["paste", "-bt", "x"],
    ])
    func fallsBack(arguments: [String]) {
        #expect(PasteRequest(fastPathArguments: arguments) == nil)
    }

    @Test func atomLikeNamesAreTargets() {
        #expect(TypeArgumentParsing.looksLikeAtomName("MY_APP_DATA"))
        #expect(TypeArgumentParsing.looksLikeAtomName("_NET_FOO-2"))
        #expect(!TypeArgumentParsing.looksLikeAtomName("pnng"))
        #expect(!TypeArgumentParsing.looksLikeAtomName("9LIVES"))
        #expect(!TypeArgumentParsing.looksLikeAtomName(""))
    }
}

/// What the fallback looks like from outside: ArgumentParser's usage errors and help.
@Suite(.xServer, .serialized, .timeLimit(.minutes(1)))
struct FastPathFallbackTests {
    @Test func repeatedSelectionIsAUsageError() async throws {
        let x = try XSession.require()
        let result = try await x.xpb(["paste", "-b", "-p"])
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("choose one selection"), "\(result)")
    }

    @Test func helpStillWorks() async throws {
        let x = try XSession.require()
        let result = try await x.xpb(["paste", "--help"])
        #expect(result.status == 0 && result.stdoutText.contains("xpb paste -t .png > image.png"), "\(result)")
    }

    @Test func equalsFormPastes() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .bytes(Data("fallback".utf8))))
        expectOutput(try await x.xpb(["paste", "--timeout=2"]), Data("fallback".utf8))
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test func hugeTimeoutsAreForeverNotACrash() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["clear", "-s"]))
        expectXpbError(try await x.xpb(["paste", "-s", "--timeout", "1e17"]), status: 1)
        expectXpbError(try await x.xpb(["paste", "-s", "--timeout=1e300"]), status: 1)
    }
}
