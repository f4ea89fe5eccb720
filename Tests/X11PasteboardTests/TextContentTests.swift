import Testing
import UniformTypes
@testable import X11Pasteboard

/// The copy of text made without the type table serves exactly what the general path serves.
@Suite struct TextContentTests {
    static let samples: [String] = ["", "hi\n", "Grüße, café ½", "日本語 🎉 𝄞\r\n\ttab", "a\u{0}b", String(repeating: "x", count: (1 << 20) + 3)]

    @Test("utf8Text content equals the .utf8PlainText representation", arguments: samples)
    func sameAsTheGeneralPath(text: String) {
        for sensitive in [false, true] {
            let bytes = Array(text.utf8)
            let fast = SelectionContent(utf8Text: bytes, isSensitive: sensitive)
            let general = SelectionContent(representations: [(.utf8PlainText, bytes)], isSensitive: sensitive)
            #expect(fast.entries.map(\.target) == general.entries.map(\.target))
            #expect(fast.isSensitive == general.isSensitive)
            for (a, b) in zip(fast.entries, general.entries) {
                let (x, y) = (a.produce(), b.produce())
                #expect(x?.bytes == y?.bytes && x?.type == y?.type && x?.format == y?.format, "\(a.target)")
            }
        }
    }

    @Test func sniffingTextWithoutTypesAgreesWithSniff() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
        let cases: [[UInt8]] = Self.samples.map { Array($0.utf8) } + [png, [0xFF, 0xFE, 0], Array("%PDF-1.7".utf8),
            Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), Array("GIF89a".utf8), [0xC3]]
        for bytes in cases {
            #expect(ContentSniffer.isUTF8PlainText(bytes) == (ContentSniffer.sniff(bytes) == .utf8PlainText), "\(bytes.prefix(12))")
        }
    }
}
