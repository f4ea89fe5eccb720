import Glibc
import SystemPackage

/// `ssh HOST xpb bridge …` as the far end of a bridge: its stdin and stdout are the stream,
/// its stderr is ours (so its password prompt and errors reach the user).
struct SSHPeer: Sendable {
    let host: String
    let pid: pid_t
    /// What we read: ssh's stdout.
    let input: Int32
    /// What we write: ssh's stdin.
    let output: Int32

    /// Starts ssh with `options` before the host and `command` run by the remote shell.
    static func start(host: String, options: [String], command: [String]) throws(CommandFailure) -> SSHPeer {
        let toSSH: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        let fromSSH: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do {
            toSSH = try FileDescriptor.pipe(options: .closeOnExec)
            fromSSH = try FileDescriptor.pipe(options: .closeOnExec)
        } catch {
            throw CommandFailure("bridge: cannot create a pipe: \(error)")
        }
        // ssh joins its arguments into one line for the remote shell: each word is quoted.
        let arguments = ["ssh"] + options + ["-T", "--", host, command.map(shellQuoted).joined(separator: " ")]
        let pid: pid_t
        do {
            defer {
                try? toSSH.readEnd.close()
                try? fromSSH.writeEnd.close()
            }
            pid = try ChildSpawn.spawn(arguments, stdin: toSSH.readEnd, stdout: fromSSH.writeEnd)
        } catch {
            try? toSSH.writeEnd.close()
            try? fromSSH.readEnd.close()
            throw CommandFailure("bridge: cannot run ssh: \(error)", exitCode: 1)
        }
        return SSHPeer(host: host, pid: pid, input: fromSSH.readEnd.rawValue, output: toSSH.writeEnd.rawValue)
    }

    /// Why the stream ended before the far side greeted: ssh's exit status.
    func describeEnd() -> String {
        var raw: Int32 = 0
        _ = try? systemCall { waitpid(pid, &raw, 0) }
        let code = (raw >> 8) & 0xFF
        return "ssh \(host) ended before xpb bridge answered there (ssh exit status \(code); is xpb on its PATH?)"
    }

    /// `word` as one word for a POSIX shell.
    static func shellQuoted(_ word: String) -> String {
        if !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }) { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
