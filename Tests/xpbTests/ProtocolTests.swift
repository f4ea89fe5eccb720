import Foundation
import Testing

/// What an `xpb copy` owner answers, checked by the tests' own requestor (not by xpb):
/// TARGETS exact, TIMESTAMP the real ownership time, MULTIPLE per ICCCM.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct ProtocolTests {
    @Test("TARGETS lists the text targets and exactly what converts")
    func targetsAreExact() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.latin1TextUTF8)))
        let offered = try await x.targets("CLIPBOARD")

        let missing = Samples.requiredTextTargets.subtracting(offered)
        #expect(missing.isEmpty, "TARGETS lacks \(missing): \(offered)")
        #expect(offered.count == Set(offered).count, "TARGETS has duplicates: \(offered)")

        for target in offered where target != "MULTIPLE" {
            let reply = try await x.convert("CLIPBOARD", target)
            #expect(reply.value != nil, "\(target) is listed in TARGETS but does not convert: \(reply)")
        }
        let utf8 = try await x.convert("CLIPBOARD", "UTF8_STRING").value
        #expect(utf8?.type == "UTF8_STRING" && utf8?.bytes == Samples.latin1TextUTF8, "UTF8_STRING: \(String(describing: utf8))")
        let charset = try await x.convert("CLIPBOARD", "text/plain;charset=utf-8").value
        #expect(charset?.bytes == Samples.latin1TextUTF8, "text/plain;charset=utf-8: \(String(describing: charset))")
        let string = try await x.convert("CLIPBOARD", "STRING").value
        #expect(string?.type == "STRING" && string?.bytes == Samples.latin1TextLatin1, "STRING: \(String(describing: string))")
        let text = try await x.convert("CLIPBOARD", "TEXT").value
        #expect(text?.type != "TEXT", "a TEXT reply names its encoding in its type: \(String(describing: text))")

        for target in ["XPB_E2E_NOT_OFFERED", "image/png", "text/html"] where !offered.contains(target) {
            let reply = try await x.convert("CLIPBOARD", target)
            #expect(reply == .refused, "\(target) is not in TARGETS, so it must be refused: \(reply)")
        }
    }

    @Test("TIMESTAMP is the server time at which xpb took ownership")
    func timestampIsOwnershipTime() async throws {
        let x = try XSession.require()
        let before = try await x.serverTime()
        expectSuccess(try await x.xpb(["copy", "-p"], stdin: .pipe(Data("timestamp".utf8))))
        let after = try await x.serverTime()

        let reply = try await x.convert("PRIMARY", "TIMESTAMP")
        let value = try #require(reply.value, "TIMESTAMP: \(reply)")
        #expect(value.type == "INTEGER" && value.format == 32 && value.items == 1, "TIMESTAMP reply: \(value)")
        let stamp = try #require(value.words.first.flatMap { UInt($0) }, "TIMESTAMP value: \(value)")
        #expect(stamp != 0, "TIMESTAMP must be a real server time, not CurrentTime (0)")
        #expect(before <= stamp && stamp <= after,
                "TIMESTAMP \(stamp) must lie between the server times before (\(before)) and after (\(after)) the copy")

        try await Task.sleep(for: .milliseconds(50))
        let again = try await x.convert("PRIMARY", "TIMESTAMP").value?.words.first.flatMap { UInt($0) }
        #expect(again == stamp, "TIMESTAMP must not change while the ownership lasts")
    }

    @Test("MULTIPLE converts each pair; a failed pair's property becomes None")
    func multiple() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.latin1TextUTF8)))
        let reply = try await x.multiple("CLIPBOARD")

        #expect(!reply.refused, "MULTIPLE refused: \(reply)")
        #expect(reply.pairsType == "ATOM_PAIR", "the parameter property must stay type ATOM_PAIR: \(reply)")
        let pairs = reply.pairs.map { "\($0.target)→\($0.property)" }
        #expect(pairs == ["UTF8_STRING→XPB_PROBE_P1", "XPB_PROBE_BOGUS_TARGET→None", "STRING→XPB_PROBE_P3"],
                "pair list after MULTIPLE: \(reply)")
        let first = reply.properties["XPB_PROBE_P1"]
        #expect(first?.type == "UTF8_STRING" && first?.bytes == Samples.latin1TextUTF8, "UTF8_STRING pair: \(reply)")
        #expect(reply.properties["XPB_PROBE_P2"] == nil, "the bogus pair's property must not be written: \(reply)")
        let third = reply.properties["XPB_PROBE_P3"]
        #expect(third?.type == "STRING" && third?.bytes == Samples.latin1TextLatin1, "STRING pair: \(reply)")

        // The owner is still there and still serving.
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), Samples.latin1TextUTF8)
    }

    @Test("--sensitive offers x-kde-passwordManagerHint = secret")
    func sensitiveHint() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "--sensitive"], stdin: .pipe(Data("hunter2".utf8))))
        let offered = try await x.targets("CLIPBOARD")
        #expect(offered.contains("x-kde-passwordManagerHint"), "TARGETS: \(offered)")
        let hint = try await x.convert("CLIPBOARD", "x-kde-passwordManagerHint")
        #expect(hint.value?.bytes == Data("secret".utf8), "x-kde-passwordManagerHint: \(hint)")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), Data("hunter2".utf8))
    }
}
