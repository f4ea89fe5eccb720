import SystemPackage

/// Whole reads and writes on descriptors: stdout may be a pipe that takes bytes in pieces, and
/// the data to copy may be gigabytes, so it is read without transient copies.
enum FileDescriptorIO {
    /// Writes every byte: `write` retries EINTR, the loop short writes; throws the `Errno` that
    /// stopped it (EPIPE, ENOSPC).
    ///
    /// Not swift-system's `writeAll(_: some Sequence)`: it is generic and not specialised here,
    /// so its first call looks protocol conformances up at run time, which cost `xpb paste` 20
    /// page faults and 0.1 ms, 6% of its run.
    static func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            offset += try fd.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// `writeAll` on a raw descriptor, for writers that only need to know whether it worked.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? writeAll(FileDescriptor(rawValue: fd), bytes)) != nil
    }

    /// Reads a descriptor to its end.
    ///
    /// A regular file (also stdin redirected from one) is read into a buffer of its size, so the
    /// owner holds the payload once; a pipe grows the buffer as data comes.
    static func readAll(_ fd: FileDescriptor) throws(CommandFailure) -> [UInt8] {
        do {
            return try readToEnd(fd)
        } catch {
            throw CommandFailure("cannot read the input: \(error)")
        }
    }

    private static func readToEnd(_ fd: FileDescriptor) throws -> [UInt8] {
        var result: [UInt8] = []
        if let info = try? fd.stat(), info.type == .regular, info.size > 0 {
            let size = Int(info.size)
            var failure: (any Error)?
            result = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                count = 0
                do {
                    while count < size {
                        let got = try fd.read(into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress! + count, count: size - count))
                        if got == 0 { break }
                        count += got
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            if result.count < size { return result }
        }
        // A pipe, or a file that grew while we read it.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
            if count == chunk.count, chunk.count < (1 << 22) {
                chunk = [UInt8](repeating: 0, count: chunk.count * 4)
            }
        }
    }

    /// Reads a whole file; `-` means stdin.
    static func readFile(_ path: String) throws(CommandFailure) -> [UInt8] {
        if path == "-" { return try readAll(.standardInput) }
        let fd: FileDescriptor
        do {
            // The C-string overload: a FilePath would normalise the path (`dir/` to `dir`).
            fd = try path.withCString { try FileDescriptor.open($0, .readOnly, options: .closeOnExec) }
        } catch {
            throw CommandFailure("cannot open \(path): \(error)")
        }
        defer { try? fd.close() }
        if let info = try? fd.stat(), info.type == .directory {
            throw CommandFailure("\(path) is a directory; use --files to copy files")
        }
        return try readAll(fd)
    }
}
