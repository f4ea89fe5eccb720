public import FoundationEssentials
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

    /// One connection, used by one thread at a time (`access`).
    private let connection: SQLiteDatabase
    private let access = ThreadLock()
    let blobs: BlobDirectory
    /// Nil when opened read-only: readers never take it, so they never wait for a writer.
    private let writerLock: WriterLock?

    /// The history's directory: `$XDG_STATE_HOME/xpb`, else `~/.local/state/xpb` (XDG Base
    /// Directory: a relative `XDG_STATE_HOME` is ignored).
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return "\(state)/xpb" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd() ?? "/"
        return "\(home.hasSuffix("/") ? String(home.dropLast()) : home)/.local/state/xpb"
    }

    /// Whether `directory` holds a history database (`xpb history` says so rather than creating one).
    public static func exists(in directory: String) -> Bool {
        Glibc.access("\(directory)/\(databaseName)", F_OK) == 0
    }

    /// Opens the history in `directory`, creating it if needed: the directory with mode 0700,
    /// every file with 0600, the database in WAL mode.
    ///
    /// `readOnly` opens an existing history to list, search and read it: nothing is created, no
    /// lock is taken (a reader never waits for the daemon), and no write access to the
    /// directory is needed when SQLite's `-wal` and `-shm` files are there; writing throws.
    public init(directory: String, limits: Limits = .init(), readOnly: Bool = false) throws {
        self.directory = directory
        self.limits = limits
        blobs = BlobDirectory(path: "\(directory)/blobs")
        if readOnly {
            writerLock = nil
            let path = "\(directory)/\(HistoryStore.databaseName)"
            let connection = try SQLiteDatabase(path: path, busyTimeout: 10_000, readOnly: true)
            try HistoryStore.describing("open the history in \(directory)") { () throws(HistoryError) in
                try HistorySchema.prepare(connection)
            }
            self.connection = connection
            return
        }
        try FileSystem.makeDirectory(directory)
        chmod(directory, 0o700)
        try FileSystem.makeDirectory(blobs.path)
        chmod(blobs.path, 0o700)
        writerLock = try WriterLock(path: "\(directory)/lock")
        let path = "\(directory)/\(HistoryStore.databaseName)"
        // SQLite gives the -wal and -shm files the mode of the database file: make that 0600
        // before SQLite creates anything.
        try FileSystem.createPrivateFile(path)
        let connection = try SQLiteDatabase(path: path, busyTimeout: 10_000)
        // WAL: readers (xpb history) never wait for the writer (the daemon). FULL: a committed
        // entry survives a power loss too, not only a crash of xpb.
        try HistoryStore.describing("open the history in \(directory)") { () throws(HistoryError) in
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
            try HistorySchema.prepare(connection)
        }
        self.connection = connection
        try configureForWriting()
        try sweepUnusedBlobs()
    }

    /// What a writing connection needs: deleted content overwritten rather than left in free
    /// pages, so that `delete` and `clear` take an entry's words off the disk.
    private func configureForWriting() throws(HistoryError) {
        try HistoryStore.describing("open the history in \(directory)") { () throws(HistoryError) in
            try connection.execute("PRAGMA secure_delete = ON")
        }
    }

    // MARK: Recording

    /// Adds `snapshot` as the newest entry. An entry equal to one already kept is not stored
    /// twice: that one moves to the top with the new time.
    /// - Returns: false when the snapshot was refused: sensitive (it is not written anywhere),
    ///   empty, or larger than `limits.maxTotalBytes`.
    @discardableResult
    public func record(_ snapshot: SelectionSnapshot, selection: String = "CLIPBOARD", at date: Date = Date()) throws -> Bool {
        // A bridge's private marker says "this came from the other side"; a restored entry is a
        // fresh copy, so the marker is never kept.
        var snapshot = snapshot
        snapshot.representations.removeAll { $0.target == BridgeOffer.originTarget }
        guard !snapshot.isSensitive, !snapshot.representations.isEmpty, snapshot.size > 0,
            snapshot.size <= limits.maxTotalBytes
        else { return false }
        // Hashing (SHA-256 of large representations) happens before any lock is taken.
        let prepared = PreparedEntry(snapshot, inlineThreshold: limits.inlineThreshold)
        let time = SQLValue.real(date.timeIntervalSince1970)
        try writing("record an entry") { (db) throws(HistoryError) in
            if let existing = try db.scalar("SELECT id FROM entry WHERE digest = ? ORDER BY seq DESC LIMIT 1", [.blob(prepared.digest)]) {
                try db.run(
                    "UPDATE entry SET seq = (SELECT MAX(seq) FROM entry) + 1, time = ?, selection = ? WHERE id = ?",
                    [time, .text(selection), .integer(existing)])
                return
            }
            for representation in prepared.representations {
                if let blob = representation.blob { try blobs.store(representation.bytes, as: blob) }
            }
            try db.run(
                """
                INSERT INTO entry (seq, time, selection, digest, size, targets, types, text)
                VALUES (COALESCE((SELECT MAX(seq) FROM entry), 0) + 1, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    time, .text(selection), .blob(prepared.digest), .integer(Int64(snapshot.size)),
                    .text(prepared.targets.joined(separator: "\n")), .text(prepared.types.joined(separator: "\n")),
                    .optionalText(prepared.text),
                ])
            let id = db.lastInsertedRowID
            for (position, representation) in prepared.representations.enumerated() {
                try db.run(
                    """
                    INSERT INTO representation (entry, position, target, type, format, size, bytes, blob)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(id), .integer(Int64(position)), .text(representation.target), .text(representation.type),
                        .integer(Int64(representation.format)), .integer(Int64(representation.bytes.count)),
                        representation.blob == nil ? .blob(representation.bytes) : .null, .optionalText(representation.blob),
                    ])
            }
            try evictOldest(db)
        }
        return true
    }

    /// Drops the oldest entries until the history is within its limits, keeping the newest.
    private func evictOldest(_ db: SQLiteDatabase) throws(HistoryError) {
        var count = Int(try db.scalar("SELECT COUNT(*) FROM entry") ?? 0)
        var total = Int(try db.scalar("SELECT COALESCE(SUM(size), 0) FROM entry") ?? 0)
        guard count > limits.maxEntries || total > limits.maxTotalBytes else { return }
        let oldest = try db.query("SELECT id, size FROM entry ORDER BY seq ASC") { row in (row.int(0), Int(row.int(1))) }
        var doomed: [Int64] = []
        for (id, size) in oldest where count > 1 && (count > limits.maxEntries || total > limits.maxTotalBytes) {
            doomed.append(id)
            total -= size
            count -= 1
        }
        for id in doomed { try db.run("DELETE FROM entry WHERE id = ?", [.integer(id)]) }
    }

    // MARK: Deleting

    /// Deletes entry `index` (0 is the newest) and the files only it used.
    /// - Throws: `HistoryError` with `isMissingEntry` when there is no such entry.
    public func delete(at index: Int) throws {
        try writing("delete history entry \(index)") { (db) throws(HistoryError) in
            try db.run("DELETE FROM entry WHERE id = ?", [.integer(try HistoryStore.id(at: index, db))])
            try HistoryStore.mergeTextIndex(db)
        }
        try scrubDeletedText()
    }

    /// Deletes every entry and every file.
    public func clear() throws {
        try writing("clear the history") { (db) throws(HistoryError) in
            try db.execute("DELETE FROM entry")
            try HistoryStore.mergeTextIndex(db)
        }
        // Give the space back now rather than leave free pages behind (VACUUM goes through the
        // WAL: the checkpoint comes after it).
        access.locked { try? connection.execute("VACUUM") }
        try scrubDeletedText()
    }

    /// The full-text index keeps a deleted entry's words in its segments (with a "deleted"
    /// mark) until they are merged: merging everything into one segment drops them, and
    /// secure_delete zeroes the pages the old segments used.
    private static func mergeTextIndex(_ db: SQLiteDatabase) throws(HistoryError) {
        try db.execute("INSERT INTO entry_text (entry_text) VALUES ('optimize')")
    }

    /// Takes deleted words out of the WAL, which keeps old copies of every page until a
    /// checkpoint: copy it into the database and truncate it.
    private func scrubDeletedText() throws(HistoryError) {
        // A reader in the middle of a transaction keeps the WAL from being truncated; that
        // is no failure (SQLite's automatic checkpoints and the next delete get to it).
        access.locked { try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: Internals

    /// Runs `body` in an immediate transaction holding the writer lock, then deletes the blob
    /// files no entry uses any more (after the commit: a crash in between leaves only unused
    /// files, which the next sweep removes).
    private func writing(_ what: String, _ body: (SQLiteDatabase) throws(HistoryError) -> Void) throws(HistoryError) {
        try HistoryStore.describing("\(what) in \(directory)") { () throws(HistoryError) in
            guard let writerLock else { throw HistoryError("the history was opened read-only") }
            try writerLock.withLock { () throws(HistoryError) in
                let unused = try access.locked { () throws(HistoryError) -> Set<String> in
                    let db = connection
                    return try db.transaction(immediate: true) { () throws(HistoryError) -> Set<String> in
                        let before = try HistoryStore.usedBlobs(db)
                        try body(db)
                        return before.subtracting(try HistoryStore.usedBlobs(db))
                    }
                }
                for blob in unused { blobs.remove(blob) }
            }
        }
    }

    /// Runs `body` in a read transaction: one consistent view however many statements it runs.
    func reading<T>(_ what: String, _ body: (SQLiteDatabase) throws(HistoryError) -> T) throws(HistoryError) -> T {
        try HistoryStore.describing("\(what) in \(directory)") { () throws(HistoryError) -> T in
            try access.locked { () throws(HistoryError) -> T in
                let db = connection
                return try db.transaction(immediate: false) { () throws(HistoryError) -> T in try body(db) }
            }
        }
    }

    /// Removes files that no entry names: left by a crash between a file's rename and its row's
    /// commit, or by a crash before unused files were deleted. Only when no other process
    /// writes: one that does (the daemon) may be storing a file its row does not name yet, and
    /// opening the history must never wait for it; the next open sweeps.
    private func sweepUnusedBlobs() throws(HistoryError) {
        guard let writerLock else { return }
        try HistoryStore.describing("check the history's files in \(directory)") { () throws(HistoryError) in
            _ = try writerLock.ifFree { () throws(HistoryError) in
                let used = try access.locked { () throws(HistoryError) in try HistoryStore.usedBlobs(connection) }
                blobs.sweep(keeping: used)
            }
        }
    }

    private static func usedBlobs(_ db: SQLiteDatabase) throws(HistoryError) -> Set<String> {
        Set(try db.query("SELECT DISTINCT blob FROM representation WHERE blob IS NOT NULL") { row in row.text(0) ?? "" })
    }

    /// The id of entry `index`, or the error that says there is none.
    static func id(at index: Int, _ db: SQLiteDatabase) throws(HistoryError) -> Int64 {
        if index >= 0, let id = try db.scalar("SELECT id FROM entry ORDER BY seq DESC LIMIT 1 OFFSET ?", [.integer(Int64(index))]) {
            return id
        }
        throw HistoryError.noEntry(index, count: Int(try db.scalar("SELECT COUNT(*) FROM entry") ?? 0))
    }

    static func entry(from row: SQLRow, index: Int) -> HistoryEntry {
        func lines(_ text: String?) -> [String] {
            guard let text, !text.isEmpty else { return [] }
            // Bytes, not Characters: splitting by grapheme was a tenth of a listing.
            return text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        return HistoryEntry(
            index: index, id: row.int(0), time: Date(timeIntervalSince1970: row.double(1)),
            types: lines(row.text(4)), targets: lines(row.text(3)), size: Int(row.int(2)), text: row.text(5),
            selection: row.text(6) ?? "CLIPBOARD")
    }

    /// An FTS5 query matching every word as a prefix, each quoted so that no word is read as
    /// query syntax (`AND`, `-`, `*`, `"`).
    static func matchQuery(_ words: String) -> String {
        words.split(whereSeparator: { $0.isWhitespace })
            .map { "\"" + $0.replacing("\"", with: "\"\"") + "\"*" }
            .joined(separator: " ")
    }

    /// Runs `body`, prefixing a failure with what was being done (a missing entry says enough).
    private static func describing<T>(_ what: String, _ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        do {
            return try body()
        } catch where error.isMissingEntry || error.message.hasPrefix("history entry") {
            throw error
        } catch {
            throw HistoryError("cannot \(what): \(error.message)")
        }
    }

    private static func homeFromPasswd() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }
}
