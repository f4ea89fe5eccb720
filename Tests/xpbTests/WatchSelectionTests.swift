import Foundation
import Testing

/// `xpb watch` follows several selections at once (-b/-p/-s/--selection each add one), while the
/// subcommands that act on one selection keep refusing two.
@Suite(.xServer, .serialized, .timeLimit(.minutes(1)))
struct WatchSelectionTests {
    @Test("xpb watch -b -p --count 2 reports a change of each")
    func watchesClipboardAndPrimary() async throws {
        let x = try XSession.require()
        let watcher = try x.spawn(x.xpbPath, ["watch", "-b", "-p", "--count", "2"])
        // Changes from before the watch subscribed are not reported: give it the time to.
        try await Task.sleep(for: .milliseconds(500))
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data("clipboard".utf8))))
        expectSuccess(try await x.xpb(["copy", "-p"], stdin: .pipe(Data("primary".utf8))))
        let exited = await watcher.waitForExit(timeout: .seconds(5))
        let result = exited ? watcher.result() : await x.stop(watcher)
        #expect(exited && result.status == 0 && result.stderr.isEmpty, "\(result)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(result)")
        #expect(lines[0].hasPrefix("CLIPBOARD #1 owner-changed by 0x") && lines[0].hasSuffix(": public.utf8-plain-text"), "\(lines)")
        #expect(lines[1].hasPrefix("PRIMARY #1 owner-changed by 0x") && lines[1].hasSuffix(": public.utf8-plain-text"), "\(lines)")
        expectSuccess(try await x.xpb(["clear"]))
        expectSuccess(try await x.xpb(["clear", "-p"]))
    }

    @Test("copy, types and clear still take one selection")
    func otherCommandsRefuseTwoSelections() async throws {
        let x = try XSession.require()
        for arguments in [["copy", "-b", "-p"], ["types", "-p", "--selection", "XPB_E2E_TWO"], ["clear", "-s", "-b"]] {
            let result = try await x.xpb(arguments)
            #expect(result.status == 64 && result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.contains("choose one selection"), "\(result)")
        }
    }
}
