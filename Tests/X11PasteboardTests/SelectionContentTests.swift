import Testing
import UniformTypes
@testable import X11Pasteboard

/// TARGETS must list exactly what converts (ICCCM §2.6.2): what the content offers is what the
/// translator can encode.
@Suite struct SelectionContentTests {
    @Test func textOffersTheFiveTextTargetsInOrder() {
        let content = SelectionContent(representations: [(.utf8PlainText, Array("grüße".utf8))])
        #expect(content.entries.map(\.target) == ["UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain"])
        #expect(content.entries[2].produce()?.bytes == [0x67, 0x72, 0xFC, 0xDF, 0x65])  // Latin-1
    }

    @Test func bytesThatAreNotTextAreNotOfferedAsText() {
        let content = SelectionContent(representations: [(.utf8PlainText, [0xFF, 0xFE, 0x00, 0x80])])
        #expect(content.entries.isEmpty)
    }

    @Test func everyOfferedTargetConverts() {
        let content = SelectionContent(representations: [
            (.html, Array("<b>x</b>".utf8)), (.url, Array("https://x.example/".utf8)), (.png, [0x89, 0x50, 0x4E, 0x47]),
        ], isSensitive: true)
        #expect(!content.entries.isEmpty)
        for entry in content.entries { #expect(entry.produce() != nil, "\(entry.target)") }
        #expect(content.entries.last?.target == "x-kde-passwordManagerHint")
    }

    @Test func theFirstRepresentationServesASharedTarget() {
        let content = SelectionContent(representations: [(.utf8PlainText, Array("first".utf8)), (.plainText, Array("second".utf8))])
        #expect(content.entries.first { $0.target == "UTF8_STRING" }?.produce()?.bytes == Array("first".utf8))
    }
}
