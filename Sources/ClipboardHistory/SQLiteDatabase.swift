import CSQLite

/// One SQLite connection, the only code of the history that speaks SQLite's C API.
///
/// Not GRDB: linking it brings swift-corelibs-foundation and its ICU data into every static `xpb`
/// (32 MiB to 96 MiB measured), and the history needs a dozen statements, not a query builder.
/// Not thread-safe by itself: `HistoryStore` serialises every use.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    /// The database file, for messages.
    let path: String

    /// Opens (creating if needed, unless `readOnly`) the database at `path`; waits up to
    /// `busyTimeout` milliseconds for another process's lock.
    init(path: String, busyTimeout: Int32, readOnly: Bool = false) throws(HistoryError) {
        self.path = path
        var opened: OpaquePointer?
        let mode = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let status = sqlite3_open_v2(path, &opened, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw HistoryError("cannot open \(path): \(message)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return nothing of interest.
    func execute(_ sql: String) throws(HistoryError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw HistoryError(text)
        }
    }

    /// Runs one statement with `arguments` bound to its `?`s.
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws(HistoryError) {
        let statement = try Statement(self, sql, arguments)
        while try statement.step() {}
    }

    /// The rows of one statement, each turned into a value by `row`.
    func query<T>(_ sql: String, _ arguments: [SQLValue] = [], _ row: (SQLRow) throws(HistoryError) -> T) throws(HistoryError) -> [T] {
        let statement = try Statement(self, sql, arguments)
        var results: [T] = []
        while try statement.step() { results.append(try row(SQLRow(statement: statement.pointer))) }
        return results
    }

    /// The first column of the first row, when there is one and it is not NULL.
    func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws(HistoryError) -> Int64? {
        try query(sql, arguments) { row in row.isNull(0) ? nil : row.int(0) }.first ?? nil
    }

    /// The rowid of the last INSERT.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction (`IMMEDIATE` takes the write lock at once, so two writers
    /// never deadlock upgrading); rolls back if it throws.
    func transaction<T>(immediate: Bool, _ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    fileprivate func failure(_ status: Int32) -> HistoryError {
        HistoryError(String(cString: sqlite3_errmsg(handle)) + (status == SQLITE_BUSY ? " (another process holds the history)" : ""))
    }

    /// A prepared statement, finalised when it goes.
    private final class Statement {
        let pointer: OpaquePointer
        private let database: SQLiteDatabase

        init(_ database: SQLiteDatabase, _ sql: String, _ arguments: [SQLValue]) throws(HistoryError) {
            self.database = database
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v2(database.handle, sql, -1, &prepared, nil)
            guard status == SQLITE_OK, let prepared else { throw database.failure(status) }
            pointer = prepared
            for (offset, argument) in arguments.enumerated() {
                let index = Int32(offset + 1)
                let bound: Int32
                switch argument {
                case .null: bound = sqlite3_bind_null(pointer, index)
                case .integer(let value): bound = sqlite3_bind_int64(pointer, index, value)
                case .real(let value): bound = sqlite3_bind_double(pointer, index, value)
                case .text(let value): bound = sqlite3_bind_text(pointer, index, value, -1, SQLiteDatabase.transient)
                case .blob(let value):
                    bound = value.withUnsafeBytes { bytes in
                        // A non-NULL pointer even for no bytes: NULL would bind SQL NULL.
                        sqlite3_bind_blob64(pointer, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), SQLiteDatabase.transient)
                    }
                }
                guard bound == SQLITE_OK else {
                    sqlite3_finalize(pointer)
                    throw database.failure(bound)
                }
            }
        }

        deinit { sqlite3_finalize(pointer) }

        /// Advances: true when a row is ready, false when done.
        func step() throws(HistoryError) -> Bool {
            let status = sqlite3_step(pointer)
            if status == SQLITE_ROW { return true }
            if status == SQLITE_DONE { return false }
            throw database.failure(status)
        }
    }

    /// SQLite copies bound values at once (SQLITE_TRANSIENT).
    fileprivate static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A value bound to a statement's parameter.
enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `.text`, or `.null` for nil.
    static func optionalText(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
}

/// The current row of a statement, read by column number.
struct SQLRow {
    fileprivate let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
