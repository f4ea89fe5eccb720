import Glibc

/// An exclusive advisory lock on a file, held by every process that writes the history, so that
/// deleting an unused blob can never race with another process that is about to reuse it.
final class WriterLock: @unchecked Sendable {
    private let fd: Int32
    // flock does not exclude threads that share the descriptor.
    private let threads = ThreadLock()

    init(path: String) throws(HistoryError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.error("cannot open \(path)") }
    }

    deinit { close(fd) }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        let fd = self.fd
        return try threads.locked { () throws(HistoryError) -> T in
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw FileSystem.error("cannot lock the history") }
            }
            defer { flock(fd, LOCK_UN) }
            return try body()
        }
    }

    /// Runs `body` holding the lock if no other process holds it now; nil (without waiting)
    /// when one does.
    func ifFree<T>(_ body: () throws(HistoryError) -> T) throws(HistoryError) -> T? {
        let fd = self.fd
        return try threads.locked { () throws(HistoryError) -> T? in
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                if errno == EWOULDBLOCK { return nil }
                guard errno == EINTR else { throw FileSystem.error("cannot lock the history") }
            }
            defer { flock(fd, LOCK_UN) }
            return try body()
        }
    }
}

/// A pthread mutex: excludes the threads of one process (TSan and every platform know it).
final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
