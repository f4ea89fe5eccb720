import ClipboardHistory
import Foundation
import Testing

/// What listings and menus show of an entry.
@Suite struct HistoryEntryTests {
    func entry(_ text: String?, types: [String] = ["public.utf8-plain-text"], size: Int = 3) -> HistoryEntry {
        HistoryEntry(index: 0, id: 1, time: Date(timeIntervalSince1970: 0), types: types, targets: ["UTF8_STRING"], size: size, text: text)
    }

    @Test func previewIsOneLineWithBlanksAndControlsCollapsed() {
        #expect(entry("  first\n\n\tsecond  line \r\n").preview() == "first second line")
        #expect(entry("bell\u{07}and\u{1B}[31mred").preview() == "bell and [31mred")
        #expect(entry("日本語 🎉").preview() == "日本語 🎉")
    }

    @Test func previewIsCutToTheWidthWithAnEllipsis() {
        #expect(entry("abcdefghij").preview(width: 10) == "abcdefghij")
        #expect(entry("abcdefghijk").preview(width: 10) == "abcdefghi…")
        #expect(entry("abcd       efghijk").preview(width: 5) == "abcd…")
    }

    @Test func withoutTextThePreviewSaysWhatTheEntryHolds() {
        #expect(entry(nil, types: ["public.png"], size: 12_700).preview() == "[public.png, 12.4 KiB]")
        #expect(entry(" \n ", types: [], size: 2).preview() == "[UTF8_STRING, 2 B]")
        #expect(HistoryEntry.formatSize(20 << 20) == "20.0 MiB")
        #expect(HistoryEntry.formatSize(1023) == "1023 B")
    }
}
