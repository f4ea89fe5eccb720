import FoundationEssentials
import Glibc
public import X11Pasteboard

/// Reading the history: listings, search, and the entries themselves.
extension HistoryStore {
    /// The entries, newest first (index 0 is the newest); at most `limit` of them.
    public func entries(limit: Int? = nil) throws -> [HistoryEntry] {
        try reading("list the history") { (db) throws(HistoryError) in
            var index = 0
            return try db.query(
                "SELECT id, time, size, targets, types, text, selection FROM entry ORDER BY seq DESC LIMIT ?", [.integer(Int64(limit ?? -1))]
            ) { row in
                defer { index += 1 }
                return HistoryStore.entry(from: row, index: index)
            }
        }
    }

    /// The entries whose text holds every word of `words` (full-text search; each word also
    /// matches as a prefix), newest first, with their indexes in the whole history.
    public func search(_ words: String, limit: Int? = nil) throws -> [HistoryEntry] {
        let query = HistoryStore.matchQuery(words)
        guard !query.isEmpty else { return [] }
        return try reading("search the history") { (db) throws(HistoryError) in
            try db.query(
                """
                SELECT id, time, size, targets, types, text, selection, position FROM (
                    SELECT *, ROW_NUMBER() OVER (ORDER BY seq DESC) - 1 AS position FROM entry
                ) AS numbered
                WHERE id IN (SELECT rowid FROM entry_text WHERE entry_text MATCH ?)
                ORDER BY seq DESC LIMIT ?
                """,
                [.text(query), .integer(Int64(limit ?? -1))]
            ) { row in HistoryStore.entry(from: row, index: Int(row.int(7))) }
        }
    }

    /// Every representation of entry `index` (0 is the newest), with the bytes from the
    /// database or from their file; only those whose target is in `targets` when it is given
    /// (a missing file of another representation is then no failure).
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func snapshot(at index: Int, targets: Set<String>? = nil) throws -> SelectionSnapshot {
        var representations: [SelectionSnapshot.Representation] = []
        for row in try stored(.index(index)) where targets?.contains(row.target) ?? true {
            var bytes = row.bytes ?? []
            if let blob = row.blob {
                do {
                    bytes = try blobs.read(blob)
                } catch {
                    throw HistoryError.damaged(String(index), file: blobs.file(blob))
                }
            }
            representations.append(.init(target: row.target, type: row.type, format: row.format, bytes: bytes))
        }
        return SelectionSnapshot(representations: representations)
    }

    /// Entry `index`'s representations without their bytes (targets, types and formats only):
    /// what to choose from before reading any file.
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func outline(at index: Int) throws -> [SelectionSnapshot.Representation] {
        try stored(.index(index)).map { .init(target: $0.target, type: $0.type, format: $0.format, bytes: []) }
    }

    /// What an owner serves to hand entry `index` out again, every target with its recorded
    /// type, format and bytes, like `snapshot(at:).content`, but the representations kept as
    /// files are read only when a client first asks for them: a restored 200 MiB image costs
    /// nothing until it is pasted. The files are opened now, so deleting the entry meanwhile
    /// does not take its data away.
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func content(at index: Int) throws -> SelectionContent {
        try content(.index(index))
    }

    /// Like `content(at:)`, for the entry whose stable `id` is given (`HistoryEntry.id`): the
    /// same entry however many were recorded or deleted since the id was read.
    /// - Throws: `HistoryError` with `isMissingEntry` when no entry has that id any more.
    public func content(id: Int64) throws -> SelectionContent {
        try content(.id(id))
    }

    private func content(_ key: EntryKey) throws -> SelectionContent {
        var snapshot = SelectionSnapshot(representations: [])
        var entries: [SelectionContent.Entry] = []
        for row in try stored(key) {
            if let blob = row.blob {
                let file: OpenFile
                do {
                    file = try OpenFile(blobs.file(blob))
                } catch {
                    throw HistoryError.damaged(key.description, file: blobs.file(blob))
                }
                let (type, format) = (row.type, row.format)
                entries.append(SelectionContent.Entry(target: row.target) {
                    file.bytes().map { ServedValue(bytes: $0, type: type, format: format) }
                })
            } else {
                let representation = SelectionSnapshot.Representation(
                    target: row.target, type: row.type, format: row.format, bytes: row.bytes ?? [])
                snapshot.representations.append(representation)
                entries.append(
                    SelectionContent.Entry(
                        target: row.target, value: ServedValue(bytes: representation.bytes, type: row.type, format: row.format)))
            }
        }
        // Only small representations can mark a secret, and a secret was never recorded; the
        // check stays so that this content can never be handed to a clipboard manager if it was.
        return SelectionContent(entries: entries, isSensitive: snapshot.isSensitive)
    }

    private typealias StoredRepresentation = (target: String, type: String, format: Int, bytes: [UInt8]?, blob: String?)

    /// An entry by its place in the history or by its stable id.
    private enum EntryKey: CustomStringConvertible {
        case index(Int)
        case id(Int64)

        var description: String {
            switch self {
            case .index(let index): String(index)
            case .id(let id): "#\(id)"
            }
        }
    }

    /// The entry's representation rows, in order.
    private func stored(_ key: EntryKey) throws(HistoryError) -> [StoredRepresentation] {
        try reading("read history entry \(key)") { (db) throws(HistoryError) in
            let id: Int64
            switch key {
            case .index(let index):
                id = try HistoryStore.id(at: index, db)
            case .id(let wanted):
                guard try db.scalar("SELECT id FROM entry WHERE id = ?", [.integer(wanted)]) != nil else {
                    throw HistoryError("history entry #\(wanted) is gone (deleted, or dropped as the history grew)", isMissingEntry: true)
                }
                id = wanted
            }
            return try db.query(
                "SELECT target, type, format, bytes, blob FROM representation WHERE entry = ? ORDER BY position", [.integer(id)]
            ) { row in (row.text(0) ?? "", row.text(1) ?? "", Int(row.int(2)), row.blob(3), row.text(4)) }
        }
    }

    /// The newest entry's snapshot, nil when the history is empty.
    public func newest() throws -> SelectionSnapshot? {
        do {
            return try snapshot(at: 0)
        } catch let error as HistoryError where error.isMissingEntry {
            return nil
        }
    }

    /// The number of entries.
    public func count() throws -> Int {
        try reading("count the history") { (db) throws(HistoryError) in Int(try db.scalar("SELECT COUNT(*) FROM entry") ?? 0) }
    }
}
