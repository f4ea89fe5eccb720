import Foundation
import Testing

/// The shape of every xpb error (SPEC §2): the given exit status (or any non-zero one), nothing
/// on stdout, exactly one line on stderr, starting "xpb: ".
func expectXpbError(
    _ result: RunResult, status: Int32? = 1, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    let context = what.isEmpty ? result.description : "\(what): \(result)"
    #expect(!result.timedOut, "must not hang: \(context)", sourceLocation: sourceLocation)
    #expect(!result.signaled, "must exit, not die of a signal: \(context)", sourceLocation: sourceLocation)
    if let status {
        #expect(result.status == status, "exit status must be \(status): \(context)", sourceLocation: sourceLocation)
    } else {
        #expect(result.status != 0, "exit status must be non-zero: \(context)", sourceLocation: sourceLocation)
    }
    #expect(result.stdout.isEmpty, "nothing may reach stdout: \(context)", sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty && !lines[0].isEmpty,
            "stderr must be exactly one line: \(context)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("xpb: "), "the error line must start with \"xpb: \": \(context)",
            sourceLocation: sourceLocation)
}

/// Exit 0, no signal, no timeout, nothing on stderr.
func expectSuccess(_ result: RunResult, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    let context = what.isEmpty ? result.description : "\(what): \(result)"
    #expect(!result.timedOut && !result.signaled && result.status == 0, "must succeed: \(context)",
            sourceLocation: sourceLocation)
    #expect(result.stderr.isEmpty, "stderr must be empty on success: \(context)", sourceLocation: sourceLocation)
}

/// Byte-exact comparison that reports where the data first differ instead of dumping megabytes.
func expectBytes(
    _ actual: Data, _ expected: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard actual != expected else { return }
    let common = zip(actual, expected).prefix(while: { $0 == $1 }).count
    func show(_ data: Data) -> String {
        if data.count <= 120, let text = String(data: data, encoding: .utf8) { return text.debugDescription }
        let window = data.dropFirst(max(0, common - 8)).prefix(24)
        return "\(data.count) bytes, at offset \(max(0, common - 8)): " + window.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
    Issue.record(
        "\(what): bytes differ (first difference at offset \(common)); expected \(show(expected)), got \(show(actual))",
        sourceLocation: sourceLocation)
}

/// Expects a successful run whose stdout is exactly `expected`.
func expectOutput(
    _ result: RunResult, _ expected: Data, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(!result.timedOut && !result.signaled && result.status == 0, "must succeed: \(result)",
            sourceLocation: sourceLocation)
    expectBytes(result.stdout, expected, result.command, sourceLocation: sourceLocation)
}

enum Samples {
    /// UTF-8 text well outside ASCII (accents, CJK, emoji, a non-BMP symbol), with tab and newlines.
    static let unicodeText = "Grüße aus Köln — naïve café, 日本語のテキスト, emoji 🎉🚀, 𝄞 clef\n\tindented line\nlast line without newline"
    static var unicode: Data { Data(unicodeText.utf8) }

    /// Text that ISO Latin-1 can hold entirely, so that its STRING form is defined.
    static let latin1Text = "Grüße, café, naïve, ÿ ± ½ ©\nzweite Zeile"
    static var latin1TextUTF8: Data { Data(latin1Text.utf8) }
    static var latin1TextLatin1: Data { Data(latin1Text.unicodeScalars.map { UInt8($0.value) }) }

    /// Invalid UTF-8 from the first byte on (0xFF never occurs in UTF-8), NULs included.
    static func binary(count: Int) -> Data {
        var data = Data([0xFF, 0xFE, 0x00, 0x80, 0xC0])
        data.append(random(count: count - data.count))
        return data
    }

    static func random(count: Int) -> Data {
        if let handle = FileHandle(forReadingAtPath: "/dev/urandom"),
           let data = try? handle.read(upToCount: count), data.count == count {
            try? handle.close()
            return data
        }
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A valid 1×1 PNG.
    static let png = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!

    /// The targets that carry text; binary content must offer none of them.
    static let textTargets: Set<String> = [
        "UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT", "C_STRING", "text/plain", "text/plain;charset=utf-8",
        "text/plain;charset=UTF-8",
    ]

    /// What every text copy must offer (SPEC §2, xpb copy).
    static let requiredTextTargets: Set<String> = [
        "UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain", "TARGETS", "TIMESTAMP", "MULTIPLE",
    ]

    static let protocolTargets: Set<String> = ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE"]
}
