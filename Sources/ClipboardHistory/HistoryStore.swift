public import Foundation
import GRDB
import Glibc
public import X11Pasteboard

/// The clipboard's history on disk: every representation of each entry, newest first, in an
/// SQLite database (WAL) with large representations as content-addressed files beside it.
///
/// Several processes may use one directory at once (the daemon records while `xpb history`
/// lists or restores): SQLite's locks order the database, and a lock file orders the blob files.
/// Each entry is written in one transaction after its files are durable, so `kill -9` at any
/// moment loses at most the entry being written. Sensitive content is never written at all.
public final class HistoryStore: @unchecked Sendable {
    /// How much the history keeps; the oldest entries go first when one is passed.
    public struct Limits: Sendable, Equatable {
        /// The most entries kept.
        public var maxEntries = 1000
        /// The most bytes kept, all entries together (the newest entry is always kept whole).
        public var maxTotalBytes = 1 << 30
        /// Representations larger than this go to files beside the database.
        public var inlineThreshold = 64 << 10

        /// Creates limits (the defaults: 1000 entries, 1 GiB, files above 64 KiB).
        public init(maxEntries: Int = 1000, maxTotalBytes: Int = 1 << 30, inlineThreshold: Int = 64 << 10) {
            self.maxEntries = maxEntries
            self.maxTotalBytes = maxTotalBytes
            self.inlineThreshold = inlineThreshold
        }
    }

    /// The most bytes of an entry's text kept for listings and search.
    public static let textLimit = 256 << 10

    /// The name of the database file in the directory.
    public static let databaseName = "history.sqlite"

    /// The directory the history lives in.
    public let directory: String
    /// The limits in force.
    public let limits: Limits

    private let database: DatabaseQueue
    private let blobs: BlobDirectory
    private let writerLock: WriterLock

    /// The history's directory: `$XDG_STATE_HOME/xpb`, else `~/.local/state/xpb` (XDG Base
    /// Directory: a relative `XDG_STATE_HOME` is ignored).
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return "\(state)/xpb" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd() ?? "/"
        return "\(home.hasSuffix("/") ? String(home.dropLast()) : home)/.local/state/xpb"
    }

    /// Whether `directory` holds a history database (`xpb history` says so rather than creating one).
    public static func exists(in directory: String) -> Bool {
        access("\(directory)/\(databaseName)", F_OK) == 0
    }

    /// Opens the history in `directory`, creating it if needed: the directory with mode 0700,
    /// every file with 0600, the database in WAL mode.
    public init(directory: String, limits: Limits = .init()) throws {
        self.directory = directory
        self.limits = limits
        blobs = BlobDirectory(path: "\(directory)/blobs")
        try FileSystem.makeDirectory(directory)
        chmod(directory, 0o700)
        try FileSystem.makeDirectory(blobs.path)
        chmod(blobs.path, 0o700)
        writerLock = try WriterLock(path: "\(directory)/lock")
        let path = "\(directory)/\(HistoryStore.databaseName)"
        // SQLite gives the -wal and -shm files the mode of the database file: make that 0600
        // before SQLite creates anything.
        try FileSystem.createPrivateFile(path)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        configuration.label = "xpb history"
        configuration.prepareDatabase { db in
            // FULL: a committed entry survives a power loss too, not only a crash of xpb.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        database = try HistoryStore.wrapping("open the history at \(directory)") {
            try DatabaseQueue(path: path, configuration: configuration)
        }
        try HistoryStore.wrapping("prepare the history at \(directory)") {
            try HistorySchema.migrator.migrate(database)
        }
        try sweepUnusedBlobs()
    }

    // MARK: Recording

    /// Adds `snapshot` as the newest entry. An entry equal to one already kept is not stored
    /// twice: that one moves to the top with the new time.
    /// - Returns: false when the snapshot was refused: sensitive (it is not written anywhere),
    ///   empty, or larger than `limits.maxTotalBytes`.
    @discardableResult
    public func record(_ snapshot: SelectionSnapshot, selection: String = "CLIPBOARD", at date: Date = Date()) throws -> Bool {
        guard !snapshot.isSensitive, !snapshot.representations.isEmpty, snapshot.size > 0,
            snapshot.size <= limits.maxTotalBytes
        else { return false }
        let prepared = PreparedEntry(snapshot, inlineThreshold: limits.inlineThreshold)
        try writing("record an entry") { db in
            if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM entry WHERE digest = ? ORDER BY seq DESC LIMIT 1", arguments: [Data(prepared.digest)]) {
                try db.execute(
                    sql: "UPDATE entry SET seq = (SELECT MAX(seq) FROM entry) + 1, time = ?, selection = ? WHERE id = ?",
                    arguments: [date.timeIntervalSince1970, selection, existing])
                return
            }
            for representation in prepared.representations {
                if let blob = representation.blob { try blobs.store(representation.bytes, as: blob) }
            }
            try db.execute(
                sql: """
                    INSERT INTO entry (seq, time, selection, digest, size, targets, types, text)
                    VALUES (COALESCE((SELECT MAX(seq) FROM entry), 0) + 1, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    date.timeIntervalSince1970, selection, Data(prepared.digest), snapshot.size,
                    prepared.targets.joined(separator: "\n"), prepared.types.joined(separator: "\n"), prepared.text,
                ])
            let id = db.lastInsertedRowID
            for (position, representation) in prepared.representations.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO representation (entry, position, target, type, format, size, bytes, blob)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, position, representation.target, representation.type, representation.format,
                        representation.bytes.count,
                        representation.blob == nil ? Data(representation.bytes) : nil, representation.blob,
                    ])
            }
            try evictOldest(db)
        }
        return true
    }

    /// Drops the oldest entries until the history is within its limits, keeping the newest.
    private func evictOldest(_ db: Database) throws {
        var count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0
        var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") ?? 0
        guard count > limits.maxEntries || total > limits.maxTotalBytes else { return }
        let oldest = try Row.fetchCursor(db, sql: "SELECT id, size FROM entry ORDER BY seq ASC")
        var doomed: [Int64] = []
        while count > 1 && (count > limits.maxEntries || total > limits.maxTotalBytes), let row = try oldest.next() {
            doomed.append(row[0])
            total -= row[1] as Int
            count -= 1
        }
        for id in doomed { try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id]) }
    }

    // MARK: Reading

    /// The entries, newest first (index 0 is the newest); at most `limit` of them.
    public func entries(limit: Int? = nil) throws -> [HistoryEntry] {
        try reading("list the history") { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, time, size, targets, types, text FROM entry ORDER BY seq DESC LIMIT ?",
                arguments: [limit ?? -1])
            return rows.enumerated().map { HistoryStore.entry(from: $0.element, index: $0.offset) }
        }
    }

    /// The entries whose text holds every word of `words` (full-text search; each word also
    /// matches as a prefix), newest first, with their indexes in the whole history.
    public func search(_ words: String, limit: Int? = nil) throws -> [HistoryEntry] {
        let query = HistoryStore.matchQuery(words)
        guard !query.isEmpty else { return [] }
        return try reading("search the history") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, time, size, targets, types, text, position FROM (
                        SELECT *, ROW_NUMBER() OVER (ORDER BY seq DESC) - 1 AS position FROM entry
                    ) AS numbered
                    WHERE id IN (SELECT rowid FROM entry_text WHERE entry_text MATCH ?)
                    ORDER BY seq DESC LIMIT ?
                    """,
                arguments: [query, limit ?? -1])
            return rows.map { HistoryStore.entry(from: $0, index: $0["position"]) }
        }
    }

    /// Every representation of entry `index` (0 is the newest), with the bytes from the
    /// database or from their file.
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func snapshot(at index: Int) throws -> SelectionSnapshot {
        let rows: [Row] = try reading("read history entry \(index)") { db in
            guard let id = try HistoryStore.id(at: index, db) else {
                throw HistoryError.noEntry(index, count: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0)
            }
            return try Row.fetchAll(
                db, sql: "SELECT target, type, format, bytes, blob FROM representation WHERE entry = ? ORDER BY position",
                arguments: [id])
        }
        var representations: [SelectionSnapshot.Representation] = []
        for row in rows {
            let bytes: [UInt8]
            if let blob = row["blob"] as String? {
                do {
                    bytes = try blobs.read(blob)
                } catch {
                    throw HistoryError("history entry \(index) is damaged: its data file \(blobs.file(blob)) is missing")
                }
            } else {
                bytes = [UInt8]((row["bytes"] as Data?) ?? Data())
            }
            representations.append(.init(target: row["target"], type: row["type"], format: row["format"], bytes: bytes))
        }
        return SelectionSnapshot(representations: representations)
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
        try reading("count the history") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
    }

    // MARK: Deleting

    /// Deletes entry `index` (0 is the newest) and the files only it used.
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func delete(at index: Int) throws {
        try writing("delete history entry \(index)") { db in
            guard let id = try HistoryStore.id(at: index, db) else {
                throw HistoryError.noEntry(index, count: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0)
            }
            try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id])
        }
    }

    /// Deletes every entry and every file.
    public func clear() throws {
        try writing("clear the history") { db in
            try db.execute(sql: "DELETE FROM entry")
        }
        // Give the space back now rather than leave a large WAL and free pages behind.
        try? database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "VACUUM")
        }
    }

    // MARK: Internals

    /// Runs `body` in an immediate transaction holding the writer lock, then deletes the blob
    /// files no entry uses any more (after the commit: a crash in between leaves only unused
    /// files, which the next sweep removes).
    private func writing(_ what: String, _ body: (Database) throws -> Void) throws {
        try HistoryStore.wrapping("\(what) in \(directory)") {
            try writerLock.withLock {
                var before: Set<String> = []
                var after: Set<String> = []
                try database.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        before = try HistoryStore.usedBlobs(db)
                        try body(db)
                        after = try HistoryStore.usedBlobs(db)
                        return .commit
                    }
                }
                for blob in before.subtracting(after) { blobs.remove(blob) }
            }
        }
    }

    private func reading<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        try HistoryStore.wrapping("\(what) in \(directory)") { try database.read(body) }
    }

    /// Removes files that no entry names: left by a crash between a file's rename and its row's
    /// commit, or by a crash before unused files were deleted.
    private func sweepUnusedBlobs() throws {
        try HistoryStore.wrapping("check the history's files in \(directory)") {
            try writerLock.withLock {
                let used = try database.read { db in try HistoryStore.usedBlobs(db) }
                blobs.sweep(keeping: used)
            }
        }
    }

    private static func usedBlobs(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT DISTINCT blob FROM representation WHERE blob IS NOT NULL"))
    }

    private static func id(at index: Int, _ db: Database) throws -> Int64? {
        guard index >= 0 else { return nil }
        return try Int64.fetchOne(db, sql: "SELECT id FROM entry ORDER BY seq DESC LIMIT 1 OFFSET ?", arguments: [index])
    }

    private static func entry(from row: Row, index: Int) -> HistoryEntry {
        let targets: String = row["targets"]
        let types: String = row["types"]
        return HistoryEntry(
            index: index, id: row["id"], time: Date(timeIntervalSince1970: row["time"]),
            types: types.isEmpty ? [] : types.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            targets: targets.isEmpty ? [] : targets.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            size: row["size"], text: row["text"])
    }

    /// An FTS5 query matching every word as a prefix, each quoted so that no word is read as
    /// query syntax (`AND`, `-`, `*`, `"`).
    static func matchQuery(_ words: String) -> String {
        words.split(whereSeparator: { $0.isWhitespace })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
            .joined(separator: " ")
    }

    /// Runs `body`, turning any failure into one `HistoryError` sentence.
    static func wrapping<T>(_ what: String, _ body: () throws -> T) throws(HistoryError) -> T {
        do {
            return try body()
        } catch let error as HistoryError {
            throw error
        } catch let error as DatabaseError {
            throw HistoryError("cannot \(what): \(error.message ?? error.resultCode.description)")
        } catch {
            throw HistoryError("cannot \(what): \(error)")
        }
    }

    private static func homeFromPasswd() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }
}
