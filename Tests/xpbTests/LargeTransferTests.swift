import Foundation
import Testing

/// 30 MiB of random bytes (above the 16 MiB a single property can hold) through INCR, in both
/// directions, against xclip.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct LargeTransferTests {
    static let size = 30 * 1024 * 1024

    @Test("xpb copy → xclip -o: 30 MiB through INCR, byte-exact")
    func xpbOwnerToXclip() async throws {
        let x = try XSession.require()
        let blob = Samples.binary(count: Self.size)
        let file = try x.file("blob.bin", blob)
        expectSuccess(try await x.xpb(["copy", file.path], timeout: .seconds(60)))

        let read = try await x.xclip(["-selection", "clipboard", "-t", "application/octet-stream", "-o"], timeout: .seconds(60))
        expectOutput(read, blob)
        // xpb reading its own 30 MiB (INCR receive) too.
        expectOutput(try await x.xpb(["paste", "-t", "application/octet-stream"], timeout: .seconds(60)), blob)
    }

    @Test("xclip -i → xpb paste: 30 MiB through INCR, byte-exact")
    func xclipOwnerToXpb() async throws {
        let x = try XSession.require()
        let blob = Samples.binary(count: Self.size)
        let owner = try await x.xclipOwner("primary", blob, target: "application/octet-stream")
        expectOutput(try await x.xpb(["paste", "-p", "-t", "application/octet-stream"], timeout: .seconds(60)), blob)
        expectOutput(try await x.xpb(["paste", "-p"], timeout: .seconds(60)), blob)
        await x.stop(owner)
    }

    @Test("30 MiB of text through INCR: xpb copy → xclip and xclip → xpb paste")
    func largeText() async throws {
        let x = try XSession.require()
        let line = Data("Ünïcödé line of text for INCR, 日本語 🎉 0123456789\n".utf8)
        var text = Data(capacity: Self.size + line.count)
        while text.count < Self.size { text.append(line) }
        expectSuccess(try await x.xpb(["copy", "-b"], stdin: .pipe(text), timeout: .seconds(60)))
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"], timeout: .seconds(60)), text)

        let owner = try await x.xclipOwner("secondary", text)
        expectOutput(try await x.xpb(["paste", "-s"], timeout: .seconds(60)), text)
        await x.stop(owner)
    }
}
