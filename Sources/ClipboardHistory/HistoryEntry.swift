public import Foundation

/// One entry of the history as listings show it: when it was copied, what it offers and its text.
public struct HistoryEntry: Sendable, Equatable {
    /// Its place in the history: 0 is the newest.
    public var index: Int
    /// The database row's id, stable while the entry exists (indexes shift as entries come).
    public var id: Int64
    /// When it was recorded (or last copied again).
    public var time: Date
    /// The uniform types of its representations (UTIs), in the owner's order, without repeats.
    public var types: [String]
    /// The X targets it answers, in the owner's order.
    public var targets: [String]
    /// The bytes of every representation together.
    public var size: Int
    /// Its text as UTF-8 (at most `HistoryStore.textLimit` bytes of it), when it has text.
    public var text: String?
    /// The selection it was copied to (`CLIPBOARD`, or `PRIMARY` for a daemon run with
    /// `--primary`).
    public var selection: String

    /// Creates an entry.
    public init(
        index: Int, id: Int64, time: Date, types: [String], targets: [String], size: Int, text: String?,
        selection: String = "CLIPBOARD"
    ) {
        self.index = index
        self.id = id
        self.time = time
        self.types = types
        self.targets = targets
        self.size = size
        self.text = text
        self.selection = selection
    }

    /// The text on one line, at most `width` characters, for menus and listings: runs of white
    /// space become one space; without text, a summary of what the entry holds.
    public func preview(width: Int = 80) -> String {
        if let text {
            // Scalars, not Characters: a listing previews a thousand texts, and grapheme breaking
            // them costs more than the rest of the listing. Control characters count as blanks,
            // so a preview never moves a terminal's cursor.
            var line = String.UnicodeScalarView()
            var count = 0
            var pendingSpace = false
            for scalar in text.unicodeScalars {
                if scalar.properties.isWhitespace || scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
                    pendingSpace = count > 0
                    continue
                }
                if pendingSpace {
                    line.append(" ")
                    count += 1
                    pendingSpace = false
                }
                if count == width {
                    line.removeLast()
                    line.append("…")
                    break
                }
                line.append(scalar)
                count += 1
            }
            if count > 0 { return String(line) }
        }
        let kind = types.first ?? targets.first ?? "data"
        return "[\(kind), \(HistoryEntry.formatSize(size))]"
    }

    /// A size as people read it: `512 B`, `12.0 KiB`, `20.0 MiB`.
    public static func formatSize(_ size: Int) -> String {
        if size < 1024 { return "\(size) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(size) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

/// Why the history could not do what was asked, in words for the `xpb: …` line.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var message: String
    /// True for "there is no such entry" (a bad index, an empty history), as opposed to a
    /// database or file system failure.
    public var isMissingEntry: Bool

    /// Creates an error.
    public init(_ message: String, isMissingEntry: Bool = false) {
        self.message = message
        self.isMissingEntry = isMissingEntry
    }

    public var description: String { message }

    static func damaged(_ entry: String, file: String) -> HistoryError {
        HistoryError("history entry \(entry) is damaged: its data file \(file) is missing")
    }

    static func noEntry(_ index: Int, count: Int) -> HistoryError {
        if count == 0 { return HistoryError("the history is empty", isMissingEntry: true) }
        return HistoryError(
            "no history entry \(index): the history has \(count) \(count == 1 ? "entry (0)" : "entries (0 to \(count - 1))")",
            isMissingEntry: true)
    }
}
