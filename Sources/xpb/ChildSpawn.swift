import Glibc
import SystemPackage

/// Starts another program (`sh -c` for `watch --exec`, `ssh` for `bridge --ssh`) the way xpb
/// wants every child started: chosen descriptors as its stdin/stdout, SIGPIPE back to its
/// default (xpb ignores it) and no signal blocked.
enum ChildSpawn {
    /// Spawns `arguments[0]` (looked up on PATH unless it holds a slash) with `arguments`, the
    /// environment `environment` (`KEY=value` entries; nil keeps ours), and `stdin`/`stdout`
    /// duplicated onto 0 and 1 when given. The given descriptors should be close-on-exec: the
    /// copies on 0 and 1 are not.
    ///
    /// - Returns: the child's process id.
    static func spawn(
        _ arguments: [String], environment: [String]? = nil, stdin: FileDescriptor? = nil, stdout: FileDescriptor? = nil
    ) throws(Errno) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy, even when the source already is 0 or 1
        // (glibc 2.29, POSIX 2024).
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin.rawValue, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout.rawValue, 1) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = envp.map { envp in
            posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        } ?? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw Errno(rawValue: status) }
        return pid
    }
}
