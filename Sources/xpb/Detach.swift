import Glibc

/// Leaves the foreground the way `xclip` does, but properly: the command that started us gets
/// its exit status at once and every inherited descriptor is closed, so `$(echo x | xpb copy)`
/// and editors' shell-outs never wait on us.
enum Detach {
    /// Forks; the parent exits 0 and the child returns, in a new session with stdio on /dev/null.
    ///
    /// Called after ownership is taken, so the parent's success means the copy is in place. The
    /// child carries on with the same X connection; the parent leaves with `_exit` so it sends
    /// nothing on it.
    static func intoBackground() throws(CommandFailure) {
        let pid = fork()
        if pid < 0 {
            throw CommandFailure("cannot start the background server: \(String(cString: strerror(errno)))")
        }
        if pid > 0 { _exit(0) }
        _ = setsid()
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            for fd: Int32 in 0...2 { _ = dup2(null, fd) }
            if null > 2 { close(null) }
        }
        _ = chdir("/")
    }
}
