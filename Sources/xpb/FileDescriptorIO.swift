import Glibc

/// Whole reads and writes on raw descriptors: stdout may be a pipe that takes bytes in pieces,
/// and the data to copy may be gigabytes, so it is read without transient copies.
enum FileDescriptorIO {
    /// Writes every byte, retrying on EINTR and short writes; false on an error (EPIPE, ENOSPC).
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Reads a descriptor to its end.
    ///
    /// A regular file (also stdin redirected from one) is read into a buffer of its size, so the
    /// owner holds the payload once; a pipe grows the buffer as data comes.
    static func readAll(_ fd: Int32) throws(CommandFailure) -> [UInt8] {
        var info = stat()
        var result: [UInt8] = []
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
            let size = Int(info.st_size)
            var failure: Int32 = 0
            result = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                count = 0
                while count < size {
                    let got = Glibc.read(fd, buffer.baseAddress! + count, size - count)
                    if got < 0 && errno == EINTR { continue }
                    if got < 0 { failure = errno }
                    if got <= 0 { break }
                    count += got
                }
            }
            if failure != 0 { throw readFailure(failure) }
            if result.count < size { return result }
        }
        // A pipe, or a file that grew while we read it.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return result }
            if count < 0 {
                if errno == EINTR { continue }
                throw readFailure(errno)
            }
            result.append(contentsOf: chunk[0..<count])
            if count == chunk.count, chunk.count < (1 << 22) {
                chunk = [UInt8](repeating: 0, count: chunk.count * 4)
            }
        }
    }

    private static func readFailure(_ code: Int32) -> CommandFailure {
        CommandFailure("cannot read the input: \(String(cString: strerror(code)))")
    }

    /// Reads a whole file; `-` means stdin.
    static func readFile(_ path: String) throws(CommandFailure) -> [UInt8] {
        if path == "-" { return try readAll(0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            throw CommandFailure("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure("\(path) is a directory; use --files to copy files")
        }
        return try readAll(fd)
    }
}
