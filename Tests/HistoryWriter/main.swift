// Records entries into a history as fast as it can, forever, printing each entry's number once
// it is committed: the crash-safety test SIGKILLs it at an arbitrary moment.
//
// Usage: history-writer DIRECTORY
// Entry n: UTF8_STRING "entry n" and, on every other entry, 200 KiB of application/octet-stream
// (a file beside the database) whose bytes are `pattern(n)`.
//
// history-writer DIRECTORY COUNT records COUNT entries like a day of copying (a sentence of text
// and its HTML) and exits: the benchmark's history.
import ClipboardHistory
import Glibc
import X11Pasteboard

let directory = CommandLine.arguments[1]
do {
    let store = try HistoryStore(directory: directory, limits: .init(maxEntries: 100_000))
    if CommandLine.arguments.count > 2, let count = Int(CommandLine.arguments[2]) {
        for n in 0..<count {
            let text = "Entry \(n): the quick brown fox jumps over the lazy dog, item \(n * 7919 % 10007) of the list"
            try store.record(SelectionSnapshot(representations: [
                .init(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array(text.utf8)),
                .init(target: "text/html", type: "text/html", bytes: Array("<p>\(text)</p>".utf8)),
            ]))
        }
        exit(0)
    }
    var n = 0
    while true {
        var representations = [SelectionSnapshot.Representation(target: "UTF8_STRING", type: "UTF8_STRING", bytes: Array("entry \(n)".utf8))]
        if n % 2 == 1 {
            representations.append(.init(target: "application/octet-stream", type: "application/octet-stream", bytes: pattern(n)))
        }
        try store.record(SelectionSnapshot(representations: representations))
        say(1, "\(n)\n")
        n += 1
    }
} catch {
    say(2, "history-writer: \(error)\n")
    exit(1)
}

/// 200 KiB that differ for every n (the test recomputes them).
func pattern(_ n: Int) -> [UInt8] {
    (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n &* 7 &+ ($0 >> 8)) }
}

/// One unbuffered write, so that the test sees each committed number before the kill.
func say(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { _ = write(fd, $0.baseAddress, $0.count) }
}
