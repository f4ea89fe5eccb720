import Glibc
import SystemPackage

/// A C call that swift-system does not wrap (fork, waitpid, nanosleep), made with its
/// conventions: retried on EINTR, failure thrown as a typed `Errno` (whose description is
/// strerror's text). For calls that return -1 and set errno.
func systemCall<Value: FixedWidthInteger>(_ call: () -> Value) throws(Errno) -> Value {
    while true {
        let value = call()
        if value != -1 { return value }
        let error = Errno(rawValue: errno)
        if error != .interrupted { throw error }
    }
}
