import Glibc

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
        return try readAll(fd, path: path)
    }

    /// The whole content of the open file `fd` (from its start, whatever its offset).
    static func readAll(_ fd: Int32, path: String) throws(HistoryError) -> [UInt8] {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw error("cannot read \(path)") }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        let failed: Int32? = bytes.withUnsafeMutableBytes { buffer in
            while done < size {
                let count = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
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

/// A content-addressed file opened now and read whenever asked: its content stays readable
/// even if the entry that named it is deleted meanwhile (the descriptor keeps the file).
///
/// A process may close the descriptor behind our back (`xpb history restore` detaches, closing
/// every descriptor but the display's), and the number may then name another file: the
/// descriptor is used only while it still names the same inode, else the file is opened again
/// by its name, which is the hash of its content and so can only hold the same bytes.
final class OpenFile: @unchecked Sendable {
    private let fd: Int32
    private let path: String
    private let identity: (device: UInt, inode: UInt)

    init(_ path: String) throws(HistoryError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.error("cannot read \(path)") }
        self.path = path
        var status = stat()
        fstat(fd, &status)
        identity = (UInt(status.st_dev), UInt(status.st_ino))
    }

    deinit {
        if isStillOurs { close(fd) }
    }

    /// The whole content; nil if it can be read neither through the descriptor nor by name.
    func bytes() -> [UInt8]? {
        if isStillOurs, let bytes = try? FileSystem.readAll(fd, path: path) { return bytes }
        return try? FileSystem.read(path)
    }

    private var isStillOurs: Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && UInt(status.st_dev) == identity.device && UInt(status.st_ino) == identity.inode
    }
}
