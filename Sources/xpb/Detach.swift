import Glibc
import SystemPackage

/// Leaves the foreground the way `xclip` does, but properly: the command that started us gets
/// its exit status at once and no descriptor of the caller stays open in the server, so
/// `$(echo x | xpb copy)`, editors' shell-outs and process runners that wait for a pipe to close
/// never wait on us.
enum Detach {
    /// Forks; the parent exits 0 and the child returns, in a new session with stdio on /dev/null,
    /// every other inherited descriptor closed except `keeping`, and no signal blocked.
    ///
    /// Called after ownership is taken, so the parent's success means the copy is in place. The
    /// child carries on with the same X connection; the parent leaves with `_exit` so it sends
    /// nothing on it.
    static func intoBackground(keeping kept: FileDescriptor) throws(CommandFailure) {
        // Until the child has its own session it is in the caller's process group: a terminal
        // that closes as soon as the parent exits (`script`, a terminal window closed right after
        // `echo x | xclip`) would hang it up. Ignored across the fork, SIGHUP cannot end it there.
        let hangUp = signal(SIGHUP, SIG_IGN)
        // The parent leaves only once the child has let go of the caller's descriptors (it
        // closes its end of this pipe last): whoever waits for our exit, then for EOF on a pipe
        // it gave us, is not left waiting on the child.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            signal(SIGHUP, hangUp)
            throw CommandFailure("cannot start the background server: \(Errno(rawValue: errno))")
        }
        let (released, releasing) = (ends[0], ends[1])
        let pid: pid_t
        do {
            pid = try systemCall { fork() }
        } catch {
            signal(SIGHUP, hangUp)
            close(released)
            close(releasing)
            throw CommandFailure("cannot start the background server: \(error)")
        }
        if pid > 0 {
            close(releasing)
            var byte: UInt8 = 0
            while read(released, &byte, 1) == -1 && errno == EINTR {}
            _exit(0)
        }
        close(released)
        _ = setsid()
        signal(SIGHUP, hangUp)
        if let null = try? FileDescriptor.open("/dev/null", .readWrite) {
            for standard in [FileDescriptor.standardInput, .standardOutput, .standardError] {
                _ = try? null.duplicate(as: standard)
            }
            if null.rawValue > 2 { try? null.close() }
        }
        closeDescriptors(from: 3, except: [kept.rawValue, releasing])
        close(releasing)
        // A caller that blocked SIGTERM (test runners, some supervisors) would otherwise leave a
        // server that `kill` cannot end.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        _ = chdir("/")
    }

    private static func closeDescriptors(from first: Int32, except kept: [Int32]) {
        // /proc lists only the open ones; a loop to the descriptor limit could be a million calls.
        guard let directory = opendir("/proc/self/fd") else { return }
        var open: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name) { open.append(fd) }
        }
        let listing = dirfd(directory)
        closedir(directory)
        for fd in open where fd >= first && !kept.contains(fd) && fd != listing {
            try? FileDescriptor(rawValue: fd).close()
        }
    }
}
