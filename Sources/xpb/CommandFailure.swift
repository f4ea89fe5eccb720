import ArgumentParser
import Glibc
import X11Pasteboard

/// A failure that ends a subcommand with one `xpb: …` line on stderr and a chosen exit code.
///
/// Exit 1 means "nothing to paste" (no owner, type not offered, timed out), as SPEC §2 says;
/// other failures (no display, bad input, a write error) exit 2.
struct CommandFailure: Error {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: PasteboardError) {
        switch error.code {
        case .noOwner, .targetNotOffered, .timedOut:
            self.init(error.message, exitCode: 1)
        default:
            self.init(error.message, exitCode: 2)
        }
    }
}

extension ParsableCommand {
    /// Runs `body`, printing a `CommandFailure` the way users expect and exiting with its code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            StandardError.write("xpb: \(failure.message)\n")
            throw ExitCode(failure.exitCode)
        } catch let error as PasteboardError {
            let failure = CommandFailure(error)
            StandardError.write("xpb: \(failure.message)\n")
            throw ExitCode(failure.exitCode)
        }
    }
}

/// Unbuffered writes to the standard streams, without Foundation.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = FileDescriptorIO.writeAll(2, UnsafeRawBufferPointer($0)) }
    }
}

/// Whole reads and writes on raw descriptors: stdout may be a pipe that takes bytes in pieces.
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
    static func readAll(_ fd: Int32) throws(CommandFailure) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return result }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read the input: \(String(cString: strerror(errno)))")
            }
            result.append(contentsOf: chunk[0..<count])
            if count == chunk.count, chunk.count < (1 << 22) {
                chunk = [UInt8](repeating: 0, count: chunk.count * 4)
            }
        }
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
