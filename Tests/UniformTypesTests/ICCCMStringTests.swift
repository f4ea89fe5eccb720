import Testing
import UniformTypes

/// `STRING` in one pass must equal the three-step definition: newlines normalised, Latin-1 with
/// `?`, then every control but TAB and LF dropped.
@Suite struct ICCCMStringTests {
    private func reference(_ utf8: [UInt8]) -> [UInt8] {
        TextEncoding.utf8ToLatin1(TextEncoding.normalizingNewlines(utf8)).filter { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A }
    }

    @Test func examples() {
        #expect(TextEncoding.utf8ToICCCMString(Array("a\r\nb\rc\n\td\u{1}é€".utf8)) == [0x61, 0x0A, 0x62, 0x0A, 0x63, 0x0A, 0x09, 0x64, 0xE9, 0x3F])
        #expect(TextEncoding.utf8ToICCCMString([0xFF, 0x41]) == [0x3F, 0x41])
        #expect(TextEncoding.utf8ToICCCMString([]) == [])
    }

    @Test func matchesTheThreeStepDefinitionOnRandomInput() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [[UInt8]] = [[0x0D], [0x0A], [0x09], [0x01], [0x7F], [0x41], Array("é".utf8), Array("€".utf8), Array("🎉".utf8), [0xFF], [0xC3]]
        for _ in 0..<2000 {
            let input = (0..<Int.random(in: 0...40, using: &generator)).flatMap { _ in alphabet.randomElement(using: &generator)! }
            #expect(TextEncoding.utf8ToICCCMString(input) == reference(input), "\(input)")
        }
    }
}
