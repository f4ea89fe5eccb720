/// The database's tables, created by version (`PRAGMA user_version`).
///
/// `entry` holds one row per entry with what listings need (targets, types, size, text) so that
/// a listing reads one table; `representation` holds each answer's bytes, inline or as the
/// SHA-256 of a file under `blobs/`; `entry_text` is the full-text index (FTS5) over `entry.text`.
/// `seq` orders the history (a re-copied entry gets a new, higher one).
enum HistorySchema {
    static let version: Int64 = 1

    static let create = """
        CREATE TABLE entry (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            seq INTEGER NOT NULL UNIQUE,
            time REAL NOT NULL,
            selection TEXT NOT NULL,
            digest BLOB NOT NULL,
            size INTEGER NOT NULL,
            targets TEXT NOT NULL,
            types TEXT NOT NULL,
            text TEXT
        );
        CREATE INDEX entry_digest ON entry(digest);
        CREATE TABLE representation (
            entry INTEGER NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            target TEXT NOT NULL,
            type TEXT NOT NULL,
            format INTEGER NOT NULL,
            size INTEGER NOT NULL,
            bytes BLOB,
            blob TEXT,
            PRIMARY KEY (entry, position)
        ) WITHOUT ROWID;
        CREATE INDEX representation_blob ON representation(blob) WHERE blob IS NOT NULL;
        CREATE VIRTUAL TABLE entry_text USING fts5(text, content = 'entry', content_rowid = 'id');
        CREATE TRIGGER entry_text_insert AFTER INSERT ON entry WHEN new.text IS NOT NULL BEGIN
            INSERT INTO entry_text (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER entry_text_delete AFTER DELETE ON entry WHEN old.text IS NOT NULL BEGIN
            INSERT INTO entry_text (entry_text, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        PRAGMA user_version = 1;
        """

    /// Creates the tables of a new database; refuses one written by a newer xpb.
    static func prepare(_ database: SQLiteDatabase) throws(HistoryError) {
        // Most opens find the tables there: check without taking the write lock.
        let current = try database.scalar("PRAGMA user_version") ?? 0
        if current == version { return }
        try database.transaction(immediate: true) { () throws(HistoryError) -> Void in
            let current = try database.scalar("PRAGMA user_version") ?? 0
            if current > version {
                throw HistoryError("\(database.path) was written by a newer xpb (schema \(current), this one knows \(version))")
            }
            if current == 0 { try database.execute(create) }
        }
    }
}
