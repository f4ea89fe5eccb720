import Testing
@testable import UniformTypes

@Suite struct CrosswalkTests {
    let textTargets = ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain"]

    @Test func offeredTargets() throws {
        #expect(XTargetCrosswalk.offeredTargets(for: .utf8PlainText) == textTargets)
        #expect(XTargetCrosswalk.offeredTargets(for: .plainText) == textTargets)
        #expect(XTargetCrosswalk.offeredTargets(for: .html) == ["text/html"])
        #expect(XTargetCrosswalk.offeredTargets(for: .png) == ["image/png"])
        #expect(XTargetCrosswalk.offeredTargets(for: .jpeg) == ["image/jpeg"])
        #expect(XTargetCrosswalk.offeredTargets(for: .url) == ["text/uri-list", "text/x-moz-url"] + textTargets)
        #expect(XTargetCrosswalk.offeredTargets(for: .fileURL) == ["text/uri-list", "x-special/gnome-copied-files"] + textTargets)
        #expect(XTargetCrosswalk.offeredTargets(for: .x11Color) == ["application/x-color"])
        #expect(XTargetCrosswalk.offeredTargets(for: .rtf) == ["text/rtf", "application/rtf", "text/richtext"])
        #expect(XTargetCrosswalk.offeredTargets(for: .vCard) == ["text/vcard", "text/x-vcard"])
        #expect(XTargetCrosswalk.offeredTargets(for: .concealed) == ["x-kde-passwordManagerHint"])
        #expect(XTargetCrosswalk.offeredTargets(for: .commaSeparatedText) == ["text/csv"] + textTargets)
        #expect(XTargetCrosswalk.offeredTargets(for: .icns) == ["com.apple.icns"], "no MIME: the identifier, for xpb peers")
        let dynamicMIME = try #require(UTType(mimeType: "application/x-foo"))
        #expect(XTargetCrosswalk.offeredTargets(for: dynamicMIME) == ["application/x-foo"])
        let dynamicAtom = try #require(XTargetCrosswalk.type(forTarget: "_FOO_BAR"))
        #expect(XTargetCrosswalk.offeredTargets(for: dynamicAtom) == ["_FOO_BAR"])
        // Nothing offered is a protocol target, and everything offered maps back to a type.
        for type in UTType.allDeclared {
            for target in XTargetCrosswalk.offeredTargets(for: type) {
                #expect(!XTargetCrosswalk.protocolTargets.contains(target))
                #expect(XTargetCrosswalk.type(forTarget: target) != nil, "\(target) of \(type)")
            }
        }
    }

    @Test func readTargets() {
        #expect(XTargetCrosswalk.readTargets(for: .utf8PlainText) == ["UTF8_STRING", "text/plain;charset=utf-8", "COMPOUND_TEXT", "STRING", "TEXT", "text/plain"])
        #expect(XTargetCrosswalk.readTargets(for: .url) == ["text/x-moz-url", "text/uri-list", "_NETSCAPE_URL"])
        #expect(XTargetCrosswalk.readTargets(for: .fileURL) == ["x-special/gnome-copied-files", "text/uri-list"])
        #expect(XTargetCrosswalk.readTargets(for: .png) == ["image/png", "application/x-qt-image"])
        #expect(XTargetCrosswalk.readTargets(for: .jpeg) == ["image/jpeg", "image/jpg"])
    }

    @Test func bestTargetMatchesLoosely() {
        let offered = ["TARGETS", "TIMESTAMP", "text/plain;charset=UTF-8", "STRING", "image/png"]
        #expect(XTargetCrosswalk.bestTarget(for: .utf8PlainText, among: offered) == "text/plain;charset=UTF-8")
        #expect(XTargetCrosswalk.bestTarget(for: .png, among: offered) == "image/png")
        #expect(XTargetCrosswalk.bestTarget(for: .html, among: offered) == nil)
        #expect(XTargetCrosswalk.bestTarget(for: .plainText, among: ["TEXT", "COMPOUND_TEXT"]) == "COMPOUND_TEXT")
    }

    @Test func typeAndMIMEForTarget() {
        #expect(XTargetCrosswalk.type(forTarget: "UTF8_STRING") == .utf8PlainText)
        #expect(XTargetCrosswalk.type(forTarget: "STRING") == .plainText)
        #expect(XTargetCrosswalk.type(forTarget: "TEXT") == .plainText)
        #expect(XTargetCrosswalk.type(forTarget: "COMPOUND_TEXT") == .plainText)
        #expect(XTargetCrosswalk.type(forTarget: "text/plain;charset=utf-8") == .utf8PlainText)
        #expect(XTargetCrosswalk.type(forTarget: "image/png") == .png)
        #expect(XTargetCrosswalk.type(forTarget: "_NETSCAPE_URL") == .url)
        #expect(XTargetCrosswalk.type(forTarget: "PIXMAP") == .x11Pixmap)
        #expect(XTargetCrosswalk.type(forTarget: "x-kde-passwordManagerHint") == .concealed)
        #expect(XTargetCrosswalk.type(forTarget: "com.apple.icns") == .icns)
        #expect(XTargetCrosswalk.type(forTarget: "chromium/x-web-custom-data")?.identifier == "org.chromium.web-custom-data")
        for target in ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", ""] {
            #expect(XTargetCrosswalk.type(forTarget: target) == nil)
            #expect(XTargetCrosswalk.mimeType(forTarget: target) == nil)
        }
        #expect(XTargetCrosswalk.type(forTarget: "_EMACS_INTERNAL")?.isDynamic == true)
        #expect(XTargetCrosswalk.mimeType(forTarget: "UTF8_STRING") == "text/plain;charset=utf-8")
        #expect(XTargetCrosswalk.mimeType(forTarget: "STRING") == "text/plain;charset=iso-8859-1")
        #expect(XTargetCrosswalk.mimeType(forTarget: "TEXT") == "text/plain")
        #expect(XTargetCrosswalk.mimeType(forTarget: "COMPOUND_TEXT") == nil)
        #expect(XTargetCrosswalk.mimeType(forTarget: "image/png") == "image/png")
        #expect(XTargetCrosswalk.mimeType(forTarget: "com.apple.icns") == nil)
        #expect(XTargetCrosswalk.mimeType(forTarget: "public.png") == "image/png")
    }

    // MARK: encode

    @Test func encodeText() throws {
        let text = Array("Grüße → €".utf8)
        let utf8 = try #require(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "UTF8_STRING"))
        #expect(utf8.bytes == text && utf8.replyType == "UTF8_STRING" && utf8.format == 8)
        let latin1 = try #require(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "STRING"))
        #expect(latin1.bytes == [0x47, 0x72, 0xFC, 0xDF, 0x65, 0x20, 0x3F, 0x20, 0x3F] && latin1.replyType == "STRING")
        // TEXT: STRING when Latin-1 can hold it, UTF8_STRING otherwise.
        let textNonLatin = try #require(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "TEXT"))
        #expect(textNonLatin.replyType == "UTF8_STRING" && textNonLatin.bytes == text)
        let textLatin = try #require(XTargetCrosswalk.encode(Array("café".utf8), of: .utf8PlainText, asTarget: "TEXT"))
        #expect(textLatin.replyType == "STRING" && textLatin.bytes == [0x63, 0x61, 0x66, 0xE9])
        let mime = try #require(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "text/plain;charset=utf-8"))
        #expect(mime.bytes == text && mime.replyType == "text/plain;charset=utf-8")
        #expect(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "text/plain")?.bytes == text)
        #expect(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "COMPOUND_TEXT") == nil)
        #expect(XTargetCrosswalk.encode(Array("a\r\nb\u{1}".utf8), of: .plainText, asTarget: "STRING")?.bytes == Array("a\nb".utf8))
        // Binary data is never served as text; HTML is not offered as text.
        #expect(XTargetCrosswalk.encode([0xFF, 0xFE, 0x00], of: .utf8PlainText, asTarget: "UTF8_STRING") == nil)
        #expect(XTargetCrosswalk.encode(Array("<b>".utf8), of: .html, asTarget: "UTF8_STRING") == nil)
        #expect(XTargetCrosswalk.encode(text, of: .utf8PlainText, asTarget: "image/png") == nil)
        // UTF-16 representations are converted.
        let utf16 = TextEncoding.utf8ToUTF16(text, order: .littleEndian, byteOrderMark: true)
        #expect(XTargetCrosswalk.encode(utf16, of: .utf16PlainText, asTarget: "UTF8_STRING")?.bytes == text)
    }

    @Test func encodeURLsAndFiles() throws {
        let url = Array("https://example.org/a b".utf8)
        #expect(XTargetCrosswalk.encode(url, of: .url, asTarget: "text/uri-list")?.bytes == Array("https://example.org/a b\r\n".utf8))
        let moz = try #require(XTargetCrosswalk.encode(url, of: .url, asTarget: "text/x-moz-url"))
        #expect(moz.bytes == TextEncoding.utf8ToUTF16(Array("https://example.org/a b\nhttps://example.org/a b".utf8)))
        #expect(moz.bytes.count % 2 == 0 && moz.bytes[1] == 0, "UTF-16LE without BOM")
        #expect(XTargetCrosswalk.encode(url, of: .url, asTarget: "UTF8_STRING")?.bytes == url)
        #expect(XTargetCrosswalk.encode(url, of: .url, asTarget: "x-special/gnome-copied-files") == nil)

        let files = Array("file:///tmp/a%20b\nfile:///tmp/c".utf8)
        #expect(XTargetCrosswalk.encode(files, of: .fileURL, asTarget: "x-special/gnome-copied-files")?.bytes == Array("copy\nfile:///tmp/a%20b\nfile:///tmp/c".utf8))
        #expect(XTargetCrosswalk.encode(files, of: .fileURL, asTarget: "text/uri-list")?.bytes == Array("file:///tmp/a%20b\r\nfile:///tmp/c\r\n".utf8))
        #expect(XTargetCrosswalk.encode(files, of: .fileURL, asTarget: "UTF8_STRING")?.bytes == Array("/tmp/a b\n/tmp/c".utf8), "text is the paths")
    }

    @Test func encodeOtherTypes() {
        let color = RGBA16Color(red: 0xFFFF, green: 0x8000, blue: 0, alpha: 0xFFFF).bytes
        let encoded = XTargetCrosswalk.encode(color, of: .x11Color, asTarget: "application/x-color")
        #expect(encoded?.bytes == color && encoded?.format == 16)
        #expect(XTargetCrosswalk.encode([1, 2, 3], of: .x11Color, asTarget: "application/x-color") == nil)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        let served = XTargetCrosswalk.encode(png, of: .png, asTarget: "image/png")
        #expect(served?.bytes == png && served?.replyType == "image/png" && served?.format == 8)
        #expect(XTargetCrosswalk.encode(png, of: .png, asTarget: "UTF8_STRING") == nil)
        #expect(XTargetCrosswalk.encode([], of: .concealed, asTarget: "x-kde-passwordManagerHint")?.bytes == Array("secret".utf8))
        #expect(XTargetCrosswalk.encode(Array("{}".utf8), of: .rtf, asTarget: "application/rtf")?.bytes == Array("{}".utf8))
        let csv = XTargetCrosswalk.encode(Array("a,b".utf8), of: .commaSeparatedText, asTarget: "UTF8_STRING")
        #expect(csv?.bytes == Array("a,b".utf8), "plain-text subtypes also serve text")
    }

    // MARK: decode

    @Test func decodeText() throws {
        func decode(_ bytes: [UInt8], _ target: String, _ reply: String, to type: UTType = .utf8PlainText) throws -> String {
            String(decoding: try XTargetCrosswalk.decode(bytes, target: target, replyType: reply, to: type), as: UTF8.self)
        }
        #expect(try decode(Array("héllo".utf8), "UTF8_STRING", "UTF8_STRING") == "héllo")
        #expect(try decode([0x68, 0xE9], "STRING", "STRING") == "hé")
        #expect(try decode([0x68, 0xE9], "TEXT", "STRING") == "hé")
        #expect(try decode(Array("€".utf8), "TEXT", "UTF8_STRING") == "€")
        #expect(try decode([0x68, 0xE9], "TEXT", "TEXT") == "hé", "Qt replies TEXT with Latin-1")
        #expect(try decode(Array("€".utf8), "TEXT", "TEXT") == "€", "Chromium replies TEXT with UTF-8")
        #expect(try decode([0x61, 0xE9, 0x1B, 0x24, 0x29, 0x41, 0xB0, 0xA1], "COMPOUND_TEXT", "COMPOUND_TEXT") == "aé\u{FFFD}")
        #expect(try decode(Array("a\r\nb\0".utf8), "text/plain;charset=utf-8", "text/plain;charset=utf-8") == "a\nb")
        #expect(try decode(Array("a\r\nb".utf8), "UTF8_STRING", "UTF8_STRING") == "a\r\nb", "UTF8_STRING is kept as is")
        #expect(try decode([0xE9], "text/plain", "text/plain") == "é", "invalid UTF-8 under text/plain is Latin-1")
        #expect(try decode([0xFF, 0xFE, 0x41, 0x00, 0xAC, 0x20], "text/plain;charset=utf-16", "text/plain;charset=utf-16") == "A€")
        #expect(try decode([0x61, 0xFF], "UTF8_STRING", "UTF8_STRING") == "a\u{FFFD}", "broken UTF-8 is repaired, not refused")
        #expect(try decode(Array("x".utf8), "UTF8_STRING", "UTF8_STRING", to: .utf16PlainText) == "x\0", "UTF-16LE out")
        #expect(throws: ConversionError.notConvertible(target: "image/png", type: "public.utf8-plain-text")) {
            try XTargetCrosswalk.decode([1, 2], target: "image/png", replyType: "image/png", to: .utf8PlainText)
        }
        #expect(throws: ConversionError.self) {
            try XTargetCrosswalk.decode([0x1B, 0x28], target: "COMPOUND_TEXT", replyType: "COMPOUND_TEXT", to: .plainText)
        }
    }

    @Test func decodeURLs() throws {
        func url(_ bytes: [UInt8], _ target: String) throws -> String {
            String(decoding: try XTargetCrosswalk.decode(bytes, target: target, replyType: target, to: .url), as: UTF8.self)
        }
        #expect(try url(Array("# comment\r\nhttps://a.example/\r\nhttps://b.example/\r\n".utf8), "text/uri-list") == "https://a.example/")
        #expect(try url(TextEncoding.utf8ToUTF16(Array("https://a.example/\nTitle".utf8)), "text/x-moz-url") == "https://a.example/")
        #expect(try url(Array("https://a.example/\nTitle".utf8), "_NETSCAPE_URL") == "https://a.example/")
        #expect(try url(Array("https://a.example/".utf8), "UTF8_STRING") == "https://a.example/")
        #expect(throws: ConversionError.self) { try url(Array("not a url".utf8), "UTF8_STRING") }
        #expect(throws: ConversionError.self) { try url(Array("# only a comment\r\n".utf8), "text/uri-list") }
        #expect(throws: ConversionError.self) { try url([0x00, 0x68, 0x00], "text/x-moz-url") }

        let files = Array("cut\nfile:///home/u/a%20b.txt\nfile:///home/u/c".utf8)
        let first = try XTargetCrosswalk.decode(files, target: "x-special/gnome-copied-files", replyType: "x-special/gnome-copied-files", to: .fileURL)
        #expect(String(decoding: first, as: UTF8.self) == "file:///home/u/a%20b.txt")
        let all = try XTargetCrosswalk.decodeURIs(files, target: "x-special/gnome-copied-files", replyType: "x-special/gnome-copied-files")
        #expect(all == ["file:///home/u/a%20b.txt", "file:///home/u/c"])
        #expect(throws: ConversionError.self) {
            try XTargetCrosswalk.decode(Array("https://a.example/\r\n".utf8), target: "text/uri-list", replyType: "text/uri-list", to: .fileURL)
        }
    }

    @Test func decodeHTMLAndOthers() throws {
        let meta = "<meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\">"
        let chromium = Array((meta + "<b>hi</b>").utf8) + [0]
        #expect(try XTargetCrosswalk.decode(chromium, target: "text/html", replyType: "text/html", to: .html) == Array("<b>hi</b>".utf8))
        let utf16 = TextEncoding.utf8ToUTF16(Array("<i>é</i>".utf8), order: .littleEndian, byteOrderMark: true)
        #expect(try XTargetCrosswalk.decode(utf16, target: "text/html", replyType: "text/html", to: .html) == Array("<i>é</i>".utf8))
        let color = RGBA16Color(red: 1, green: 2, blue: 3, alpha: 4)
        #expect(try XTargetCrosswalk.decode(color.bytes, target: "application/x-color", replyType: "application/x-color", to: .x11Color) == color.bytes)
        #expect(throws: ConversionError.malformed(format: "application/x-color", reason: "expected 8 bytes, got 3")) {
            try XTargetCrosswalk.decode([1, 2, 3], target: "application/x-color", replyType: "application/x-color", to: .x11Color)
        }
        let png: [UInt8] = [0x89, 0x50]
        #expect(try XTargetCrosswalk.decode(png, target: "image/png", replyType: "image/png", to: .png) == png)
        #expect(try XTargetCrosswalk.decode(png, target: "application/x-qt-image", replyType: "application/x-qt-image", to: .png) == png)
        #expect(try XTargetCrosswalk.decode(Array("{\\rtf1}".utf8), target: "text/richtext", replyType: "text/richtext", to: .rtf) == Array("{\\rtf1}".utf8))
        #expect(throws: ConversionError.self) {
            try XTargetCrosswalk.decode(png, target: "image/jpeg", replyType: "image/jpeg", to: .png)
        }
    }

    /// Every text offer decodes back to the original text when the text fits the target.
    @Test(arguments: ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain", "COMPOUND_TEXT"])
    func textRoundTrip(target: String) throws {
        for sample in ["plain ascii", "Latin-1: àéîõü ß ÿ", "tab\tand\nnewline", ""] {
            let served = try #require(XTargetCrosswalk.encode(Array(sample.utf8), of: .utf8PlainText, asTarget: target))
            let back = try XTargetCrosswalk.decode(served.bytes, target: target, replyType: served.replyType, to: .utf8PlainText)
            #expect(String(decoding: back, as: UTF8.self) == sample, "\(sample) via \(target)")
        }
    }
}
