import ArgumentParser
import ClipboardHistory
import FoundationEssentials
import Glibc

extension XPB {
    /// `xpb history`: list, show, restore, search and prune what the clipboard held.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, search and restore earlier clipboard contents (recorded by xpb daemon).",
            discussion: """
                The history lives in $XDG_STATE_HOME/xpb (default ~/.local/state/xpb). Entries are \
                numbered from 0, the newest. Every representation of an entry is kept, so restore \
                gives back HTML, images and text exactly as they were copied.

                Examples:
                  xpb history                          list entries, newest first
                  xpb history --json --limit 10
                  xpb history show 3 > entry.txt
                  xpb history show 0 -t text/html
                  xpb history restore 2                make entry 2 the clipboard again
                  xpb history search invoice march
                  xpb history --menu | dmenu -l 15 | xpb history restore --from-menu
                                                       (menu lines start with the entry's id: #42)
                  xpb history --menu | fzf | xpb history restore --from-menu
                  xpb history delete 0
                  xpb history clear
                """,
            subcommands: [List.self, Show.self, Restore.self, Search.self, Delete.self, Clear.self],
            defaultSubcommand: List.self)
    }
}

/// Where the history is: every history subcommand takes `--directory`.
struct HistoryOptions: ParsableArguments {
    @Option(
        name: .customLong("directory"),
        help: ArgumentHelp("The history's directory (default: $XDG_STATE_HOME/xpb, else ~/.local/state/xpb).", valueName: "path"))
    var directory: String?

    /// The directory in force.
    var path: String {
        directory ?? HistoryStore.defaultDirectory(environment: HistoryOptions.environment)
    }

    /// Opens the history; a missing one is an error (exit 1) rather than created empty.
    /// `readOnly` (listing, showing, restoring) never waits for the daemon's lock and needs no
    /// write access to the directory.
    func open(readOnly: Bool = false) throws(CommandFailure) -> HistoryStore {
        let path = self.path
        guard HistoryStore.exists(in: path) else {
            throw CommandFailure("no history in \(path) (xpb daemon records one)", exitCode: 1)
        }
        return try HistoryOptions.mapping { try HistoryStore(directory: path, readOnly: readOnly) }
    }

    /// Runs `body`, turning a history failure into the one-line error: exit 1 for a missing
    /// entry, 2 for a database or file failure.
    static func mapping<T>(_ body: () throws -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch let error as HistoryError {
            throw CommandFailure(error.message, exitCode: error.isMissingEntry ? 1 : 2)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    private static var environment: [String: String] {
        var result: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}

/// How entries are printed by `xpb history` and `xpb history search`.
enum HistoryListing {
    /// One object per entry: index, id, time (ISO 8601, UTC), size, types (UTIs), targets, and
    /// text when the entry has text.
    static func json(_ entries: [HistoryEntry]) -> String {
        let values = entries.map { entry in
            var members: [JSONMember] = [
                JSONMember("index", .int(entry.index)),
                JSONMember("id", .int(Int(entry.id))),
                JSONMember("time", .string(iso8601(entry.time.timeIntervalSince1970))),
                JSONMember("size", .int(entry.size)),
                JSONMember("types", .array(entry.types.map(JSONValue.string))),
                JSONMember("targets", .array(entry.targets.map(JSONValue.string))),
            ]
            if let text = entry.text { members.append(JSONMember("text", .string(text))) }
            return JSONValue.object(members)
        }
        return JSONValue.array(values).serialized + "\n"
    }

    /// A table: index, time, size, then a one-line preview.
    static func table(_ entries: [HistoryEntry]) -> String {
        let width = String(entries.map(\.index).max() ?? 0).count
        var out = ""
        for entry in entries {
            let index = String(entry.index)
            let size = HistoryEntry.formatSize(entry.size)
            out += String(repeating: " ", count: width - index.count) + index + "  "
            out += iso8601(entry.time.timeIntervalSince1970, fraction: false) + "  "
            out += String(repeating: " ", count: max(0, 9 - size.count)) + size + "  "
            out += entry.preview() + "\n"
        }
        return out
    }

    /// For pickers (dmenu, rofi, fzf): `#` and the entry's stable id, two spaces, a one-line
    /// preview. The id, not the index: a copy recorded while the menu is open shifts indexes.
    static func menu(_ entries: [HistoryEntry]) -> String {
        entries.map { "#\($0.id)  \($0.preview(width: 120))\n" }.joined()
    }

    /// `2026-11-23T03:48:30.123Z`: UTC, milliseconds unless `fraction` is false.
    static func iso8601(_ seconds: Double, fraction: Bool = true) -> String {
        let milliseconds = Int64((seconds * 1000).rounded(.down))
        var whole = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
        text += "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if fraction {
            let rest = Int(milliseconds % 1000)
            text += "." + String(repeating: "0", count: 3 - String(rest).count) + String(rest)
        }
        return text + "Z"
    }

    /// Writes `text` to stdout.
    static func write(_ text: String) throws(CommandFailure) {
        do {
            try writeToStdout(Array(text.utf8))
        } catch {
            throw CommandFailure(error)
        }
    }
}
