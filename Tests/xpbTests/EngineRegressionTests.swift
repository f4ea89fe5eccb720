import Foundation
import Testing

/// The engine bugs of the "one event loop" issue, each seen as a user sees it: the bytes that
/// arrive, the lines `xpb watch` prints, the exit status.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct EngineRegressionTests {
    @Test("a format-32 target is served as whole items, never memory past the data")
    func format32IsServedAsItems() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-t", "PIXMAP"], stdin: .pipe(Data([0x01, 0x00, 0x20, 0x00]))))
        let value = try #require(try await x.convert("CLIPBOARD", "PIXMAP").value, "PIXMAP must convert")
        #expect(value.format == 32 && value.items == 1, "four bytes are one 32-bit item: \(value)")
        #expect(value.words == ["2097153"], "the item is 0x00200001: \(value)")
    }

    @Test("paste -t public.image reads the owner's PNG")
    func pasteByParentImageType() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.png)))
        expectOutput(try await x.xpb(["paste", "-t", "public.image"]), Samples.png)
    }

    @Test("paste -t public.text reads the owner's text")
    func pasteByParentTextType() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data("hi\n".utf8))))
        expectOutput(try await x.xpb(["paste", "-t", "public.text"]), Data("hi\n".utf8))
        expectOutput(try await x.xpb(["paste", "-t", "public.data"]), Data("hi\n".utf8))
        expectXpbError(try await x.xpb(["paste", "-t", "public.image"]), status: 1, "text is no image")
    }

    @Test("xpb watch reports every change while an owner that never answers holds it up")
    func watchKeepsChangesBehindASilentOwner() async throws {
        let x = try XSession.require()
        let watch = try x.spawn(x.xpbPath, ["watch", "--json", "--count", "4"])
        await watch.waitUntilIdle()
        let silent = try x.spawn(x.probePath, ["silent", "CLIPBOARD", "8"])
        #expect(await eventually { silent.stdoutText.contains("owned") }, "the silent owner did not take CLIPBOARD")
        // While watch waits for the silent owner's TARGETS, three copies replace it.
        for text in ["one", "two", "three"] {
            expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Data(text.utf8))))
        }
        #expect(await watch.waitForExit(timeout: .seconds(15)), "watch must see four changes: \(watch.stdoutText)")
        let lines = watch.stdoutText.split(separator: "\n")
        #expect(lines.count == 4, "\(watch.stdoutText)")
        for (index, line) in lines.enumerated() {
            #expect(line.contains("\"changeCount\":\(index + 1),"), "\(line)")
        }
        #expect(lines.last?.contains("public.utf8-plain-text") == true, "the last copy's types: \(lines.last ?? "")")
        await x.stop(silent)
        await x.stop(watch)
    }

    @Test("types and watch name another program's private target alike")
    func privateTargetIsNamedAlike() async throws {
        let x = try XSession.require()
        let watch = try x.spawn(x.xpbPath, ["watch", "--json", "--count", "1"])
        await watch.waitUntilIdle()
        let owner = try x.spawn(x.xclipPath, ["-quiet", "-i", "-selection", "clipboard", "-t", "com.example.private"], stdin: .bytes(Data("x".utf8)))
        #expect(await watch.waitForExit(timeout: .seconds(10)), "watch saw no change")
        #expect(watch.stdoutText.contains("\"types\":[\"com.example.private\"]"), "\(watch.stdoutText)")
        let types = try await x.xpb(["types"])
        #expect(types.stdoutText == "com.example.private\tcom.example.private\t\n", "\(types)")
        await x.stop(owner)
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
private func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
