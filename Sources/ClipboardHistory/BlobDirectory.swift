import Foundation
import Glibc

/// The content-addressed files beside the database that hold large representations:
/// `blobs/ab/abcdef…`, named by the SHA-256 of their bytes, mode 0600 in directories of mode 0700.
///
/// A file is written under a temporary name, fsync'd, renamed and its directory fsync'd before the
/// row that names it commits, so a crash leaves at worst a file no row names (swept later), never a
/// row naming a missing or partial file.
struct BlobDirectory {
    /// The `blobs` directory.
    let path: String

    private static let temporaryPrefix = "tmp-"

    /// The file of the blob named `hex`.
    func file(_ hex: String) -> String { "\(path)/\(hex.prefix(2))/\(hex)" }

    /// Makes sure the blob named `hex` exists with `bytes`, durably.
    func store(_ bytes: [UInt8], as hex: String) throws(HistoryError) {
        let destination = file(hex)
        if access(destination, F_OK) == 0 { return }
        let folder = "\(path)/\(hex.prefix(2))"
        try FileSystem.makeDirectory(folder)
        let temporary = "\(folder)/\(BlobDirectory.temporaryPrefix)\(getpid())-\(hex)"
        try FileSystem.writeDurably(bytes, to: temporary)
        guard rename(temporary, destination) == 0 else {
            let failure = FileSystem.error("cannot rename \(temporary)")
            unlink(temporary)
            throw failure
        }
        try FileSystem.syncDirectory(folder)
    }

    /// The bytes of the blob named `hex`.
    func read(_ hex: String) throws(HistoryError) -> [UInt8] {
        try FileSystem.read(file(hex))
    }

    /// Deletes the blob named `hex` (fine if it is already gone).
    func remove(_ hex: String) {
        unlink(file(hex))
        rmdir("\(path)/\(hex.prefix(2))")  // only succeeds once the folder is empty
    }

    /// Deletes every file that is not one of `kept`: what a crash left between writing a file and
    /// committing its row, and leftover temporary files.
    func sweep(keeping kept: Set<String>) {
        for folder in FileSystem.list(path) where folder.utf8.count == 2 {
            for name in FileSystem.list("\(path)/\(folder)") where !kept.contains(name) {
                unlink("\(path)/\(folder)/\(name)")
            }
            rmdir("\(path)/\(folder)")
        }
    }
}

/// The few POSIX file operations the history needs, with errors as `HistoryError`.
enum FileSystem {
    /// `mkdir -p` with mode 0700 for what it creates, and 0700 for `path` itself.
    static func makeDirectory(_ path: String) throws(HistoryError) {
        if mkdir(path, 0o700) != 0 {
            let code = errno
            if code == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                try makeDirectory(String(path[..<slash]))
                if mkdir(path, 0o700) != 0 && errno != EEXIST { throw error("cannot create \(path)") }
            } else if code != EEXIST {
                throw error("cannot create \(path)", code: code)
            }
        }
    }

    /// Creates `path` with mode 0600 if missing, and sets 0600 if it exists with another mode.
    static func createPrivateFile(_ path: String) throws(HistoryError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw error("cannot create \(path)") }
        fchmod(fd, 0o600)
        close(fd)
    }

    /// Writes `bytes` to a new file `path` (mode 0600) and fsyncs it.
    static func writeDurably(_ bytes: [UInt8], to path: String) throws(HistoryError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw error("cannot create \(path)") }
        defer { close(fd) }
        var written = 0
        let failed: Int32? = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failed {
            unlink(path)
            throw error("cannot write \(path)", code: failed)
        }
        guard fsync(fd) == 0 else {
            let failure = error("cannot write \(path)")
            unlink(path)
            throw failure
        }
    }

    /// fsyncs a directory, so that a rename in it survives a crash.
    static func syncDirectory(_ path: String) throws(HistoryError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error("cannot open \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw error("cannot sync \(path)") }
    }

    /// The whole content of `path`.
    static func read(_ path: String) throws(HistoryError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error("cannot read \(path)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw error("cannot read \(path)") }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        let failed: Int32? = bytes.withUnsafeMutableBytes { buffer in
            while done < size {
                let count = Glibc.read(fd, buffer.baseAddress! + done, size - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { break }
                done += count
            }
            return nil
        }
        if let failed { throw error("cannot read \(path)", code: failed) }
        guard done == size else { throw HistoryError("cannot read \(path): it changed while being read") }
        return bytes
    }

    /// The names in a directory (without `.` and `..`); empty if it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// An error naming what failed and `strerror` of `code` (default: the current errno).
    static func error(_ what: String, code: Int32 = errno) -> HistoryError {
        HistoryError("\(what): \(String(cString: strerror(code)))")
    }
}

/// An exclusive advisory lock on a file, held by every process that writes the history, so that
/// deleting an unused blob can never race with another process that is about to reuse it.
final class WriterLock: @unchecked Sendable {
    private let fd: Int32
    // flock does not exclude threads that share the descriptor.
    private let threads = NSLock()

    init(path: String) throws(HistoryError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.error("cannot open \(path)") }
    }

    deinit { close(fd) }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        threads.lock()
        defer { threads.unlock() }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileSystem.error("cannot lock the history") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
