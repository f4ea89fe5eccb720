import Foundation
import Testing

/// xpb against the peers users already have: what `xpb copy` owns reads back through xclip and
/// xsel, and what xclip/xsel own reads back through `xpb paste`, byte for byte.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct InteropTests {
    struct Selection: Sendable, CustomTestStringConvertible {
        var atom: String
        var xpbFlag: String
        var xclipName: String
        var xselFlag: String
        var testDescription: String { atom }
    }

    static let selections = [
        Selection(atom: "CLIPBOARD", xpbFlag: "-b", xclipName: "clipboard", xselFlag: "-b"),
        Selection(atom: "PRIMARY", xpbFlag: "-p", xclipName: "primary", xselFlag: "-p"),
    ]

    @Test("xpb copy is read back by xclip and xsel, byte-exact", arguments: selections)
    func copyReadByPeers(selection: Selection) async throws {
        let x = try XSession.require()
        let copy = try await x.xpb(["copy", selection.xpbFlag], stdin: .pipe(Samples.unicode))
        expectSuccess(copy, "printf TEXT | xpb copy \(selection.xpbFlag)")
        #expect(copy.stdout.isEmpty)

        expectOutput(try await x.xclip(["-selection", selection.xclipName, "-o"]), Samples.unicode)
        expectOutput(try await x.xsel([selection.xselFlag, "-o"]), Samples.unicode)
        // And again: serving a request must not end the owner.
        expectOutput(try await x.xclip(["-selection", selection.xclipName, "-o"]), Samples.unicode)
    }

    @Test("xclip-owned text is read by xpb paste, byte-exact", arguments: selections)
    func xclipOwnerReadByPaste(selection: Selection) async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner(selection.xclipName, Samples.unicode)
        expectOutput(try await x.xpb(["paste", selection.xpbFlag]), Samples.unicode)
        expectOutput(try await x.xpb(["paste", "--selection", selection.atom]), Samples.unicode)
        await x.stop(owner)
    }

    @Test("xsel-owned text is read by xpb paste, byte-exact", arguments: selections)
    func xselOwnerReadByPaste(selection: Selection) async throws {
        let x = try XSession.require()
        let owner = try await x.xselOwner(selection.xselFlag, Samples.unicode)
        let offered = try await x.targets(selection.atom)
        #expect(offered.contains("UTF8_STRING"), "xsel should offer UTF8_STRING here (harness interns it): \(offered)")
        expectOutput(try await x.xpb(["paste", selection.xpbFlag]), Samples.unicode)
        await x.stop(owner)
    }

    @Test("a peer's own target is pasted by its atom name")
    func customTargetByAtomName() async throws {
        let x = try XSession.require()
        let data = Data("custom target payload".utf8)
        let owner = try await x.xclipOwner("clipboard", data, target: "XPB_E2E_CUSTOM_TARGET")
        expectOutput(try await x.xpb(["paste", "-t", "XPB_E2E_CUSTOM_TARGET"]), data)
        expectOutput(try await x.xpb(["paste"]), data)  // the first data target
        await x.stop(owner)
    }

    @Test("SECONDARY and a named selection")
    func secondaryAndNamedSelections() async throws {
        let x = try XSession.require()
        let secondary = Data("secondary selection ✓\n".utf8)
        expectSuccess(try await x.xpb(["copy", "-s"], stdin: .pipe(secondary)))
        expectOutput(try await x.xclip(["-selection", "secondary", "-o"]), secondary)
        expectOutput(try await x.xpb(["paste", "--secondary"]), secondary)

        let named = Data("a named pasteboard ✓".utf8)
        expectSuccess(try await x.xpb(["copy", "--selection", "XPB_E2E_NAMED"], stdin: .pipe(named)))
        #expect(try await x.owner("XPB_E2E_NAMED") != 0, "xpb copy --selection XPB_E2E_NAMED must own that selection")
        expectOutput(try await x.xpb(["paste", "--selection", "XPB_E2E_NAMED"]), named)
        let reply = try await x.convert("XPB_E2E_NAMED", "UTF8_STRING")
        #expect(reply.value?.bytes == named, "UTF8_STRING of XPB_E2E_NAMED: \(reply)")
    }

    @Test("xpb copy FILE and --display instead of $DISPLAY")
    func copyFileWithDisplayOption() async throws {
        let x = try XSession.require()
        let file = try x.file("note.txt", Samples.unicode)
        let copy = try await x.xpb(["copy", "--display", x.display, file.path], display: .unset)
        expectSuccess(copy, "xpb copy --display \(x.display) FILE, DISPLAY unset")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), Samples.unicode)
        expectOutput(try await x.xpb(["paste", "--display", x.display], display: .unset), Samples.unicode)
    }

    @Test("STRING is served as ISO Latin-1")
    func stringIsLatin1() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.latin1TextUTF8)))

        let reply = try await x.convert("CLIPBOARD", "STRING")
        let value = try #require(reply.value, "STRING conversion: \(reply)")
        #expect(value.type == "STRING" && value.format == 8, "STRING reply: \(value)")
        expectBytes(value.bytes, Samples.latin1TextLatin1, "STRING as converted by the requestor")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "STRING", "-o"]), Samples.latin1TextLatin1)
        // While UTF8_STRING stays UTF-8.
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "UTF8_STRING", "-o"]), Samples.latin1TextUTF8)
    }

    @Test("an owner offering only STRING is pasted as UTF-8")
    func stringOnlyOwnerPastedAsUTF8() async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("clipboard", Samples.latin1TextLatin1, target: "STRING")
        expectOutput(try await x.xpb(["paste"]), Samples.latin1TextUTF8)
        await x.stop(owner)
    }

    @Test("several representations in one copy: -t text/html=a.html -t text/plain=a.txt")
    func severalRepresentations() async throws {
        let x = try XSession.require()
        let html = Data("<p>Hello <b>bold</b> world</p>\n".utf8)
        let text = Data("Hello bold world\n".utf8)
        let htmlFile = try x.file("a.html", html)
        let textFile = try x.file("a.txt", text)
        let copy = try await x.xpb(["copy", "-t", "text/html=\(htmlFile.path)", "-t", "text/plain=\(textFile.path)"])
        expectSuccess(copy)

        let offered = try await x.targets("CLIPBOARD")
        #expect(offered.contains("text/html"), "TARGETS: \(offered)")
        let missing = Samples.requiredTextTargets.subtracting(offered)
        #expect(missing.isEmpty, "the text representation must be offered as every text target; missing \(missing) in \(offered)")
        #expect(!offered.contains("application/octet-stream"), "no extra representation from stdin: \(offered)")

        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "text/html", "-o"]), html)
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "text/plain", "-o"]), text)
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), text)  // UTF8_STRING
        expectOutput(try await x.xsel(["-b", "-o"]), text)
        for type in ["public.html", "text/html", ".html", "PUBLIC.HTML"] {
            expectOutput(try await x.xpb(["paste", "-t", type]), html)
        }
        expectOutput(try await x.xpb(["paste"]), text)
        expectOutput(try await x.xpb(["paste", "-t", "UTF8_STRING"]), text)
        expectOutput(try await x.xpb(["paste", "-t", "public.utf8-plain-text"]), text)

        let types = try await x.xpb(["types"])
        expectSuccess(types)
        let lines = types.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("text/html\tpublic.html\ttext/html"), "xpb types: \(lines)")
    }

    @Test("xpb types: one ATOM<TAB>UTI<TAB>MIME line per offered target, no protocol targets")
    func typesListing() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.unicode)))
        let offered = try await x.targets("CLIPBOARD")

        let types = try await x.xpb(["types"])
        expectSuccess(types)
        #expect(types.stdoutText.hasSuffix("\n"), "every line ends with a newline: \(types)")
        let lines = types.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        for line in lines {
            #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == 3,
                    "not ATOM<TAB>UTI<TAB>MIME: \(line.debugDescription)")
        }
        let atoms = lines.map { String($0.prefix(while: { $0 != "\t" })) }
        #expect(Set(atoms) == Set(offered).subtracting(Samples.protocolTargets),
                "xpb types must list TARGETS minus the protocol targets; types \(atoms), TARGETS \(offered)")
        #expect(atoms.count == Set(atoms).count, "no duplicate lines: \(atoms)")
        let utf8 = lines.first { $0.hasPrefix("UTF8_STRING\t") }
        #expect(utf8?.split(separator: "\t", omittingEmptySubsequences: false).dropFirst().first == "public.utf8-plain-text",
                "UTF8_STRING line: \(String(describing: utf8))")

        let json = try await x.xpb(["types", "--json"])
        expectSuccess(json)
        let parsed = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]]
        let entries = try #require(parsed, "xpb types --json must print an array of objects: \(json)")
        #expect(entries.compactMap { $0["atom"] as? String } == atoms, "--json atoms in the same order as the lines")
        for entry in entries {
            #expect(entry["uti"] is String && entry["mime"] != nil, "entry keys atom/uti/mime: \(entry)")
        }
    }

    @Test("binary stdin is never offered as text")
    func binaryIsNeverText() async throws {
        let x = try XSession.require()
        let blob = Samples.binary(count: 4096)
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(blob)))

        let offered = try await x.targets("CLIPBOARD")
        #expect(Samples.textTargets.isDisjoint(with: offered), "binary data offered as text: \(offered)")
        #expect(offered.contains("application/octet-stream"), "unknown bytes are public.data: \(offered)")
        for target in ["UTF8_STRING", "STRING", "TEXT", "text/plain"] {
            let reply = try await x.convert("CLIPBOARD", target)
            #expect(reply == .refused, "\(target) of binary content must be refused: \(reply)")
        }
        expectOutput(try await x.xpb(["paste"]), blob)
        expectOutput(try await x.xpb(["paste", "-t", "application/octet-stream"]), blob)
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "application/octet-stream", "-o"]), blob)

        let types = try await x.xpb(["types"])
        expectSuccess(types)
        #expect(!types.stdoutText.contains("UTF8_STRING") && !types.stdoutText.contains("text/plain"),
                "xpb types of binary data: \(types)")
    }

    @Test("PNG stdin is offered as image/png, not as text")
    func pngIsImageNotText() async throws {
        let x = try XSession.require()
        expectSuccess(try await x.xpb(["copy"], stdin: .pipe(Samples.png)))
        let offered = try await x.targets("CLIPBOARD")
        #expect(offered.contains("image/png"), "TARGETS: \(offered)")
        #expect(Samples.textTargets.isDisjoint(with: offered), "a PNG offered as text: \(offered)")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-t", "image/png", "-o"]), Samples.png)
        expectOutput(try await x.xpb(["paste", "-t", "public.png"]), Samples.png)
        expectOutput(try await x.xpb(["paste", "-t", ".png"]), Samples.png)
        expectOutput(try await x.xpb(["paste"]), Samples.png)
    }
}
