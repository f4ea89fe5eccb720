import Testing
@testable import UniformTypes

@Suite struct URIListTests {
    @Test func parsesEveryDialect() throws {
        #expect(try URIList.parse(Array("file:///a\r\nfile:///b\r\n".utf8)) == ["file:///a", "file:///b"])
        #expect(try URIList.parse(Array("file:///a\nfile:///b".utf8)) == ["file:///a", "file:///b"])
        #expect(try URIList.parse(Array("# comment\n\n  https://x.example/  \n\n".utf8)) == ["https://x.example/"])
        #expect(try URIList.parse(Array("file:///a\r\n".utf8) + [0]) == ["file:///a"], "Qt 3's trailing NUL")
        #expect(try URIList.parse(Array("/tmp/x y".utf8)) == ["file:///tmp/x%20y"], "a bare absolute path")
        #expect(try URIList.parse(TextEncoding.utf8ToUTF16(Array("file:///a\r\n".utf8), byteOrderMark: true)) == ["file:///a"])
        #expect(try URIList.parse([]) == [])
    }

    @Test func rejectsMalformed() {
        #expect(throws: ConversionError.malformed(format: "text/uri-list", reason: "line 2 is not a URI")) {
            try URIList.parse(Array("file:///a\nnot a uri\n".utf8))
        }
        #expect(throws: ConversionError.malformed(format: "text/uri-list", reason: "not UTF-8")) { try URIList.parse([0x66, 0xFF]) }
        #expect(throws: ConversionError.malformed(format: "text/uri-list", reason: "contains a NUL byte")) { try URIList.parse([0x61, 0, 0x62]) }
    }

    @Test func serializesWithCRLF() {
        #expect(URIList.serialize(["file:///a", "https://b/"]) == Array("file:///a\r\nhttps://b/\r\n".utf8))
        #expect(URIList.serialize([]) == [])
    }

    @Test func uriSyntax() {
        #expect(URIList.isURI("https://example.org"))
        #expect(URIList.isURI("mailto:a@b"))
        #expect(URIList.isURI("urn:isbn:0451450523"))
        #expect(!URIList.isURI("no scheme"))
        #expect(!URIList.isURI(":nothing"))
        #expect(!URIList.isURI("1http://x"))
        #expect(!URIList.isURI("/tmp/file"))
    }
}

@Suite struct GnomeCopiedFilesTests {
    @Test func roundTrip() throws {
        let value = GnomeCopiedFiles(operation: .cut, uris: ["file:///a%20b", "file:///c"])
        #expect(value.serialized() == Array("cut\nfile:///a%20b\nfile:///c".utf8), "no trailing newline")
        #expect(try GnomeCopiedFiles.parse(value.serialized()) == value)
    }

    @Test func tolerant() throws {
        #expect(try GnomeCopiedFiles.parse(Array("copy\r\nfile:///a\r\n\r\n".utf8)) == GnomeCopiedFiles(operation: .copy, uris: ["file:///a"]))
        #expect(try GnomeCopiedFiles.parse(Array("x-special/nautilus-clipboard\ncut\nfile:///a\n".utf8)).operation == .cut)
        #expect(try GnomeCopiedFiles.parse(Array("copy".utf8)).uris == [])
    }

    @Test func rejectsMalformed() {
        #expect(throws: ConversionError.malformed(format: "x-special/gnome-copied-files", reason: "first line is not \"copy\" or \"cut\"")) {
            try GnomeCopiedFiles.parse(Array("move\nfile:///a".utf8))
        }
        #expect(throws: ConversionError.self) { try GnomeCopiedFiles.parse([]) }
        #expect(throws: ConversionError.self) { try GnomeCopiedFiles.parse(Array("copy\nhello world".utf8)) }
        #expect(throws: ConversionError.self) { try GnomeCopiedFiles.parse([0x63, 0xFF]) }
    }
}

@Suite struct FileURLTests {
    @Test(arguments: [
        ("/tmp/plain", "file:///tmp/plain"),
        ("/tmp/with space", "file:///tmp/with%20space"),
        ("/tmp/100%", "file:///tmp/100%25"),
        ("/tmp/a#b?c", "file:///tmp/a%23b%3Fc"),
        ("/tmp/grüße/日本", "file:///tmp/gr%C3%BC%C3%9Fe/%E6%97%A5%E6%9C%AC"),
        ("/tmp/keep-._~!$&'()*+,;=:@", "file:///tmp/keep-._~!$&'()*+,;=:@"),
        ("/tmp/\"quotes\" <angle> [x] {y} `z` \\ ^|", "file:///tmp/%22quotes%22%20%3Cangle%3E%20%5Bx%5D%20%7By%7D%20%60z%60%20%5C%20%5E%7C"),
    ])
    func encodesAndDecodes(path: String, uri: String) {
        #expect(FileURL.uri(forPath: path) == uri)
        #expect(FileURL.path(fromURI: uri) == path)
    }

    @Test func acceptsHostVariants() {
        #expect(FileURL.path(fromURI: "file://localhost/tmp/a%20b") == "/tmp/a b")
        #expect(FileURL.path(fromURI: "file://myhost/tmp/a") == "/tmp/a")
        #expect(FileURL.path(fromURI: "file:/tmp/a") == "/tmp/a")
        #expect(FileURL.path(fromURI: "FILE:///tmp/a") == "/tmp/a")
        #expect(FileURL.path(fromURI: "file:///tmp/a#fragment") == "/tmp/a")
        #expect(FileURL.path(fromURI: "file:///tmp/a%2Fb") == "/tmp/a/b")
    }

    @Test func rejectsMalformed() {
        for bad in ["https://example.org/a", "file:", "file://host", "file:///tmp/%", "file:///tmp/%zz", "file:///tmp/%00x", "file:relative", "/tmp/a"] {
            #expect(FileURL.path(fromURI: bad) == nil, "\(bad)")
        }
        #expect(FileURL.path(fromURI: "file:///tmp/%FF") == nil, "not UTF-8 as a String")
        #expect(FileURL.pathBytes(fromURI: "file:///tmp/%FF") == Array("/tmp/".utf8) + [0xFF], "but fine as bytes")
    }

    @Test func bytePathsRoundTrip() {
        var random = SplitMix64(seed: 99)
        for _ in 0..<2000 {
            let path = [UInt8(ascii: "/")] + random.bytes(maxCount: 40).filter { $0 != 0 }
            let uri = FileURL.uri(forPathBytes: path)
            #expect(uri.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "URIs are printable ASCII")
            #expect(FileURL.pathBytes(fromURI: uri) == path)
        }
    }

    @Test func relativePathsBecomeAbsolute() {
        let uri = FileURL.uri(forPath: "relative name")
        #expect(uri.hasPrefix("file:///") && uri.hasSuffix("/relative%20name"))
    }
}

@Suite struct MozURLTests {
    @Test func roundTrip() throws {
        let entries = [MozURL(url: "https://a.example/", title: "Ä title"), MozURL(url: "https://b.example/", title: "")]
        let bytes = MozURL.serialize(entries)
        #expect(bytes.count % 2 == 0 && bytes[1] == 0 && bytes[0] == UInt8(ascii: "h"), "UTF-16LE, no BOM")
        #expect(try MozURL.parse(bytes) == entries)
        #expect(try MozURL.parseNetscape(MozURL.serializeNetscape([entries[0]])) == [entries[0]])
    }

    @Test func readsOtherWriters() throws {
        let qt = TextEncoding.utf8ToUTF16(Array("https://q.example/\n".utf8))
        #expect(try MozURL.parse(qt) == [MozURL(url: "https://q.example/")])
        let bom = TextEncoding.utf8ToUTF16(Array("https://a/\nT".utf8), order: .bigEndian, byteOrderMark: true)
        #expect(try MozURL.parse(bom) == [MozURL(url: "https://a/", title: "T")])
        let bigEndian = TextEncoding.utf8ToUTF16(Array("https://a/\nT".utf8), order: .bigEndian)
        #expect(try MozURL.parse(bigEndian) == [MozURL(url: "https://a/", title: "T")])
        #expect(try MozURL.parse(Array("https://u/\nutf8".utf8)) == [MozURL(url: "https://u/", title: "utf8")])
        #expect(try MozURL.parse(TextEncoding.utf8ToUTF16(Array("https://a/\nT".utf8)) + [0, 0]) == [MozURL(url: "https://a/", title: "T")])
    }

    @Test func rejectsMalformed() {
        #expect(throws: ConversionError.malformed(format: "text/x-moz-url", reason: "odd byte count for UTF-16")) {
            try MozURL.parse([0x68, 0x00, 0x74])
        }
        #expect(throws: ConversionError.malformed(format: "text/x-moz-url", reason: "no URL")) { try MozURL.parse([]) }
        #expect(throws: ConversionError.self) { try MozURL.parse(TextEncoding.utf8ToUTF16(Array("no url here\ntitle".utf8))) }
        #expect(throws: ConversionError.self) { try MozURL.parseNetscape([0xC3]) }
    }
}

@Suite struct ColorAndCompoundTextTests {
    @Test func colorRoundTrip() throws {
        let color = RGBA16Color(red: 0x1234, green: 0xABCD, blue: 0, alpha: 0xFFFF)
        #expect(color.bytes == [0x34, 0x12, 0xCD, 0xAB, 0, 0, 0xFF, 0xFF], "host order (little-endian here)")
        #expect(try RGBA16Color(bytes: color.bytes) == color)
        #expect(RGBA16Color(red: 1, green: 2, blue: 3).alpha == .max)
        for count in [0, 7, 9, 16] {
            #expect(throws: ConversionError.malformed(format: "application/x-color", reason: "expected 8 bytes, got \(count)")) {
                try RGBA16Color(bytes: [UInt8](repeating: 1, count: count))
            }
        }
    }

    @Test func compoundText() throws {
        #expect(try CompoundText.decode([0x68, 0xE9, 0x09, 0x0A]) == Array("hé\t\n".utf8))
        // Explicit ASCII/Latin-1 designations are fine; a CJK segment becomes replacement characters.
        #expect(try CompoundText.decode([0x1B, 0x28, 0x42, 0x61, 0x1B, 0x2D, 0x41, 0xE9]) == Array("aé".utf8))
        #expect(try CompoundText.decode([0x1B, 0x24, 0x28, 0x42, 0x30, 0x21, 0x1B, 0x28, 0x42, 0x62]) == Array("\u{FFFD}b".utf8))
        #expect(try CompoundText.decode([0x9B, 0x31, 0x5D, 0x61, 0x9B, 0x5D]) == Array("a".utf8), "direction controls vanish")
        #expect(try CompoundText.decode([0x1B, 0x25, 0x2F, 0x31, 0x80, 0x82, 0x41, 0x42, 0x63]) == Array("\u{FFFD}c".utf8), "extended segment skipped")
        #expect(throws: ConversionError.malformed(format: "COMPOUND_TEXT", reason: "truncated escape sequence")) {
            try CompoundText.decode([0x61, 0x1B, 0x24])
        }
        #expect(throws: ConversionError.malformed(format: "COMPOUND_TEXT", reason: "extended segment runs past the end")) {
            try CompoundText.decode([0x1B, 0x25, 0x2F, 0x31, 0x80, 0x90, 0x41])
        }
        #expect(CompoundText.encode(Array("café".utf8)) == [0x63, 0x61, 0x66, 0xE9])
        #expect(CompoundText.encode(Array("€".utf8)) == nil)
    }

    @Test func utf16() {
        let text = Array("A€😀".utf8)
        for order in [TextEncoding.UTF16ByteOrder.littleEndian, .bigEndian] {
            for bom in [true, false] {
                let utf16 = TextEncoding.utf8ToUTF16(text, order: order, byteOrderMark: bom)
                #expect(TextEncoding.utf16ToUTF8(utf16, defaultOrder: order) == text)
                #expect(TextEncoding.utf16ByteOrderMark(utf16) == (bom ? order : nil))
            }
        }
        #expect(TextEncoding.utf16ToUTF8([0x00, 0xD8, 0x41, 0x00]) == Array("\u{FFFD}A".utf8), "unpaired surrogate")
        #expect(TextEncoding.utf16ToUTF8([0x41, 0x00, 0x42]) == Array("A\u{FFFD}".utf8), "dangling byte")
        #expect(TextEncoding.normalizingNewlines(Array("a\r\nb\rc\n".utf8)) == Array("a\nb\nc\n".utf8))
    }
}

@Suite struct ContentSnifferTests {
    @Test func magic() {
        #expect(ContentSniffer.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) == .png)
        #expect(ContentSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ContentSniffer.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(ContentSniffer.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webP)
        #expect(ContentSniffer.sniff(Array("%PDF-1.7\n".utf8)) == .pdf)
        var bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 24)
        bmp[14] = 40
        #expect(ContentSniffer.sniff(bmp) == .bmp)
        #expect(ContentSniffer.sniff(Array("BMW is a car brand and this is text.".utf8)) == .utf8PlainText)
    }

    @Test func textAndSVG() {
        #expect(ContentSniffer.sniff([]) == .utf8PlainText)
        #expect(ContentSniffer.sniff(Array("héllo".utf8)) == .utf8PlainText)
        #expect(ContentSniffer.sniff(Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(ContentSniffer.sniff(Array("  <svg></svg>".utf8)) == .svg)
        #expect(ContentSniffer.sniff(Array("Use the <svg> element".utf8)) == .utf8PlainText, "prose mentioning svg stays text")
        #expect(ContentSniffer.sniff([0x68, 0xFF, 0x00]) == .data)
        #expect(ContentSniffer.sniff([0x3C, 0x73, 0x76, 0x67, 0xFF]) == .data, "SVG must be valid UTF-8")
    }
}

@Suite struct MIMETypeTests {
    @Test func parse() throws {
        let parsed = try #require(MIMEType.parse(" Text/Plain ; Charset=\"UTF-8\" ; Format=Flowed "))
        #expect(parsed.essence == "text/plain")
        #expect(parsed.normalized == "text/plain;charset=utf-8;format=Flowed")
        #expect(parsed.lookupKey == "text/plain;charset=utf-8;format=flowed")
        #expect(parsed.parameter("format") == "Flowed")
        #expect(MIMEType.parse("a/b;x=\"semi;colon\"")?.parameter("x") == "semi;colon")
        #expect(MIMEType.parse("a/b;x=\"esc\\\"aped\"")?.parameter("x") == "esc\"aped")
        #expect(MIMEType.parse("text/plain;") != nil)
        for bad in ["", "/", "a/", "/b", "a/b/c", "a b/c", "a/b;=x", "a/b;x=", "a/b;x=\"open", "é/b"] {
            #expect(MIMEType.parse(bad) == nil, "\(bad)")
        }
    }
}
