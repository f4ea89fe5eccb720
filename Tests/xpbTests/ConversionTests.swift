import Foundation
import Testing

/// The translator's conversions end to end: each owner offers only one target (xclip serves
/// exactly the target it is given), and `xpb paste` must turn it into what the user asked for.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct ConversionTests {
    private func utf16LE(_ text: String) -> Data {
        var data = Data()
        for unit in text.utf16 { data.append(UInt8(unit & 0xFF)); data.append(UInt8(unit >> 8)) }
        return data
    }

    private func paste(_ arguments: [String], from target: String, offering payload: Data) async throws -> RunResult {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("clipboard", payload, target: target)
        defer { Task { await x.stop(owner) } }
        let result = try await x.xpb(["paste"] + arguments)
        await x.stop(owner)
        return result
    }

    @Test("TEXT holding Latin-1 pastes as UTF-8")
    func textAsLatin1() async throws {
        expectOutput(try await paste([], from: "TEXT", offering: Samples.latin1TextLatin1), Samples.latin1TextUTF8)
    }

    @Test("COMPOUND_TEXT in its Latin-1 subset pastes as UTF-8")
    func compoundText() async throws {
        expectOutput(try await paste([], from: "COMPOUND_TEXT", offering: Samples.latin1TextLatin1), Samples.latin1TextUTF8)
    }

    @Test("a public.url paste from an owner that only has text/x-moz-url (UTF-16 url + title)")
    func urlFromMozURL() async throws {
        let result = try await paste(["-t", "public.url"], from: "text/x-moz-url", offering: utf16LE("https://example.com/ä?q=1\nExample title"))
        expectOutput(result, Data("https://example.com/ä?q=1".utf8))
    }

    @Test("a public.url paste from text/uri-list skips comments and CRLF")
    func urlFromURIList() async throws {
        let list = Data("# a comment\r\nhttps://x.example/first\r\nhttps://x.example/second\r\n".utf8)
        expectOutput(try await paste(["-t", "public.url"], from: "text/uri-list", offering: list), Data("https://x.example/first".utf8))
        // The exact target name gives the owner's bytes untouched.
        expectOutput(try await paste(["-t", "text/uri-list"], from: "text/uri-list", offering: list), list)
    }

    @Test("a public.url paste from _NETSCAPE_URL")
    func urlFromNetscape() async throws {
        let result = try await paste(["-t", "public.url"], from: "_NETSCAPE_URL", offering: Data("https://n.example/\nTitle".utf8))
        expectOutput(result, Data("https://n.example/".utf8))
    }

    @Test("paste --files from a file manager's x-special/gnome-copied-files, percent-decoded")
    func filesFromGnome() async throws {
        let payload = Data("copy\nfile:///tmp/with%20space.txt\nfile:///tmp/%C3%BCber.txt".utf8)
        let result = try await paste(["--files"], from: "x-special/gnome-copied-files", offering: payload)
        expectOutput(result, Data("/tmp/with space.txt\n/tmp/über.txt\n".utf8))
    }

    @Test("paste --files from a KDE-style text/uri-list with CRLF")
    func filesFromURIList() async throws {
        let result = try await paste(["--files"], from: "text/uri-list", offering: Data("file:///home/u/a%20b.pdf\r\nfile://localhost/etc/hosts\r\n".utf8))
        expectOutput(result, Data("/home/u/a b.pdf\n/etc/hosts\n".utf8))
    }

    @Test("paste --files when the selection holds no files: exit 1, one line")
    func filesWhenNone() async throws {
        expectXpbError(try await paste(["--files"], from: "UTF8_STRING", offering: Data("just text".utf8)), status: 1)
    }

    @Test("application/x-color round-trips as 4 × uint16 RGBA")
    func color() async throws {
        let rgba = Data([0x00, 0xFF, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF])
        expectOutput(try await paste(["-t", "org.x.color"], from: "application/x-color", offering: rgba), rgba)
    }

    @Test("HTML in UTF-16 with a BOM (Firefox) pastes as UTF-8")
    func htmlFromUTF16() async throws {
        let html = Data([0xFF, 0xFE]) + utf16LE("<b>grüß</b>")
        expectOutput(try await paste(["-t", "public.html"], from: "text/html", offering: html), Data("<b>grüß</b>".utf8))
    }

    @Test("copy --files is pasted by xclip as CRLF text/uri-list and as gnome-copied-files")
    func copyFilesReadByXclip() async throws {
        let x = try XSession.require()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb files \(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("ä b.txt")
        let second = directory.appendingPathComponent("100%#.txt")
        try Data("1".utf8).write(to: first)
        try Data("2".utf8).write(to: second)
        let encodedDirectory = directory.path.replacingOccurrences(of: " ", with: "%20")

        expectSuccess(try await x.xpb(["copy", "--files", first.path, second.path]))
        let uris = "file://\(encodedDirectory)/%C3%A4%20b.txt\r\nfile://\(encodedDirectory)/100%25%23.txt\r\n"
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o", "-t", "text/uri-list"]), Data(uris.utf8))
        let gnome = "copy\nfile://\(encodedDirectory)/%C3%A4%20b.txt\nfile://\(encodedDirectory)/100%25%23.txt"
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o", "-t", "x-special/gnome-copied-files"]), Data(gnome.utf8))
        // And back through xpb: the paths, byte for byte.
        expectOutput(try await x.xpb(["paste", "--files"]), Data("\(first.path)\n\(second.path)\n".utf8))
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("copy --files of a missing path fails before touching the selection")
    func copyMissingFile() async throws {
        let x = try XSession.require()
        expectXpbError(try await x.xpb(["copy", "--files", "/nonexistent/xpb-test"]), status: 2)
    }

    @Test("copy -t public.url is offered as text/uri-list, text/x-moz-url and text")
    func copyURL() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy", "-t", "public.url"], stdin: .bytes(Data("https://copy.example/x".utf8))))
        let offered = try await x.targets("CLIPBOARD")
        #expect(["text/uri-list", "text/x-moz-url", "UTF8_STRING"].allSatisfy(offered.contains), "\(offered)")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o", "-t", "text/uri-list"]), Data("https://copy.example/x\r\n".utf8))
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o", "-t", "text/x-moz-url"]), utf16LE("https://copy.example/x\nhttps://copy.example/x"))
        expectOutput(try await x.xpb(["paste"]), Data("https://copy.example/x".utf8))
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("copy sniffs the type from the bytes", arguments: [
        ("PNG", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]), "image/png"),
        ("JPEG", Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), "image/jpeg"),
        ("GIF", Data("GIF89a\u{01}\u{00}".utf8), "image/gif"),
        ("PDF", Data("%PDF-1.7\n%\u{e2}".utf8), "application/pdf"),
        ("SVG", Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), "image/svg+xml"),
    ])
    func sniffing(name: String, bytes: Data, mime: String) async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .bytes(bytes)), name)
        let offered = try await x.targets("CLIPBOARD").filter { !["TARGETS", "TIMESTAMP", "MULTIPLE"].contains($0) }
        #expect(offered.first == mime, "\(name) should be offered first as \(mime): \(offered)")
        expectOutput(try await x.xpb(["paste", "-t", mime]), bytes)
        expectSuccess(try await x.xpb(["clear"]))
    }

    @Test("copy refuses data its -t type cannot carry, with one line and nothing owned", arguments: [
        ("text/plain", Samples.binary(count: 64)),
        ("org.x.color", Data("abc".utf8)),
    ])
    func copyRefusesUnconvertibleData(type: String, bytes: Data) async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["clear"]))
        expectXpbError(try await x.xpb(["copy", "-t", type], stdin: .bytes(bytes)), status: 2)
        #expect(try await x.owner("CLIPBOARD") == 0)
    }
}
