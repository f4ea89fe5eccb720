import Testing
@testable import UniformTypes

/// Thousands of random byte arrays through every parser and decoder: none may crash, and every
/// failure must be a `ConversionError` (not some other error).
@Suite struct FuzzTests {
    static let targets = [
        "UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "C_STRING", "ISO10646-1", "text/plain", "text/plain;charset=utf-8",
        "text/plain;charset=utf-16", "text/html", "text/uri-list", "text/x-moz-url", "_NETSCAPE_URL",
        "x-special/gnome-copied-files", "application/x-color", "image/png", "PIXMAP", "x-kde-passwordManagerHint",
    ]
    static let types: [UTType] = [
        .utf8PlainText, .plainText, .utf16PlainText, .utf16ExternalPlainText, .html, .url, .fileURL, .png, .x11Color,
        .rtf, .commaSeparatedText, .concealed, .x11Pixmap, .data,
    ]

    /// Random bytes, biased towards the shapes the parsers care about (ASCII, newlines, NUL, ESC, `%`).
    static func sample(_ random: inout SplitMix64) -> [UInt8] {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return random.bytes(maxCount: 64)
        case 1:
            let alphabet: [UInt8] = Array("file:///%20ab\r\n#/copycut:".utf8) + [0, 0x1B, 0x9B, 0x25, 0x2F, 0x80, 0xC3, 0xFF, 0xFE]
            return (0..<Int.random(in: 0...64, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
        case 2: return Array("copy\n".utf8) + random.bytes(maxCount: 32)
        default: return [0xFF, 0xFE] + random.bytes(maxCount: 32)
        }
    }

    @Test func parsersNeverCrash() {
        var random = SplitMix64(seed: 0xF022)
        var failures = 0, successes = 0
        for _ in 0..<3000 {
            let bytes = Self.sample(&random)
            let attempts: [() throws -> Void] = [
                { _ = try URIList.parse(bytes) },
                { _ = try GnomeCopiedFiles.parse(bytes) },
                { _ = try MozURL.parse(bytes) },
                { _ = try MozURL.parseNetscape(bytes) },
                { _ = try RGBA16Color(bytes: bytes) },
                { _ = try CompoundText.decode(bytes) },
            ]
            for attempt in attempts {
                do {
                    try attempt()
                    successes += 1
                } catch is ConversionError {
                    failures += 1
                } catch {
                    Issue.record("unexpected error type \(error)")
                }
            }
            _ = ContentSniffer.sniff(bytes)
            _ = TextEncoding.utf16ToUTF8(bytes)
            _ = TextEncoding.repairingUTF8(bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            _ = FileURL.pathBytes(fromURI: text)
            _ = MIMEType.parse(text)
            _ = UTType(text)
            _ = TypeName.resolve(text)
            _ = XTargetCrosswalk.type(forTarget: text)
        }
        #expect(failures > 0 && successes > 0, "the corpus exercises both paths")
    }

    @Test func decodersNeverCrash() {
        var random = SplitMix64(seed: 0xDEC0DE)
        for _ in 0..<3000 {
            let bytes = Self.sample(&random)
            let target = Self.targets.randomElement(using: &random)!
            let reply = Bool.random(using: &random) ? target : Self.targets.randomElement(using: &random)!
            let type = Self.types.randomElement(using: &random)!
            do {
                let decoded = try XTargetCrosswalk.decode(bytes, target: target, replyType: reply, to: type)
                if type == .utf8PlainText || type == .plainText {
                    #expect(TextEncoding.isValidUTF8(decoded), "text always decodes to valid UTF-8")
                }
            } catch is ConversionError {
            } catch {
                Issue.record("unexpected error type \(error)")
            }
            if let served = XTargetCrosswalk.encode(bytes, of: type, asTarget: target) {
                #expect(served.format == 8 || served.format == 16 || served.format == 32)
                if served.replyType == "STRING" {
                    #expect(served.bytes.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A }, "STRING carries no other controls")
                }
            }
        }
    }
}
