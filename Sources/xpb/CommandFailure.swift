import ArgumentParser
import SystemPackage
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

extension CommandFailure {
    /// Prints the `xpb: …` line and returns the exit code.
    func report() -> Int32 {
        StandardError.write("xpb: \(message)\n")
        return exitCode
    }
}

extension ParsableCommand {
    /// Runs `body`, printing a failure the way users expect and exiting with its code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            throw ExitCode(failure.report())
        } catch let error as PasteboardError {
            throw ExitCode(CommandFailure(error).report())
        }
    }
}

/// Unbuffered writes to stderr, without Foundation: one write per message, so lines from
/// several processes do not interleave.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = try? FileDescriptorIO.writeAll(.standardError, UnsafeRawBufferPointer($0)) }
    }
}
