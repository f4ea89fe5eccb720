import Glibc
import CSystemShims
import SystemPackage

/// A POSIX thread running one closure to its end: the engine runs each display's loop on one,
/// and a program that keeps an `XConnection` per thread (`xpb sync --to-display`) or reads a
/// stream beside its loop (`xpb bridge`) starts its own the same way.
///
/// FoundationEssentials has no `Thread`, and an Xlib connection must stay on one thread for its
/// whole life, which a task executor does not promise.
public enum DetachedThread {
    /// Starts a detached thread running `body`.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        final class Start {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Start(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let start = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! Start
            start.body()
            return nil
        }, context)
        precondition(status == 0, "cannot start a thread: \(Errno(rawValue: status))")
        pthread_detach(thread)
    }

    /// Names the calling thread ("xpb :0") so that top, ps and the tests can tell it apart.
    /// Linux keeps 15 bytes.
    public static func nameCurrent(_ name: String) {
        _ = pthread_setname_np(pthread_self(), String(name.utf8.prefix(15))!)
    }
}

/// A counting semaphore (`sem_t`): for a blocking call that waits for its task's answer, or a
/// thread that waits for work.
public final class CountingSemaphore: @unchecked Sendable {
    // sem_t must not move once initialised, so it lives on the heap.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    /// A semaphore at zero.
    public init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Adds one, waking a waiter.
    public func signal() { sem_post(semaphore) }

    /// Waits until it is above zero, then takes one.
    public func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}
