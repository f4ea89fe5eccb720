import Foundation

/// CPU time this process has used, from `/proc/self/stat`.
public enum CPUTime {
    /// User plus system time of the whole process, in clock ticks (utime + stime, fields 14
    /// and 15 of `/proc/self/stat`; usually 100 ticks per second).
    public static func processTicks() throws -> Int {
        try ticksOf(String(contentsOfFile: "/proc/self/stat", encoding: .utf8))
    }
}

extension CPUTime {
    /// User plus system ticks of this process's threads whose name (`comm`) is `name`: the
    /// threads of one component, unaffected by other tests running in parallel.
    public static func threadTicks(named name: String) throws -> (threads: Int, ticks: Int) {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        var threads = 0
        var ticks = 0
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8)
            else { continue }
            threads += 1
            ticks += try ticksOf(stat)
        }
        return (threads, ticks)
    }

    /// User plus system ticks of process `pid` (a child the test started).
    public static func processTicks(of pid: Int32) throws -> Int {
        try ticksOf(String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))
    }

    static func ticksOf(_ stat: String) throws -> Int {
        guard let close = stat.lastIndex(of: ")") else { throw TestSupportError("unreadable stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestSupportError("unexpected stat: \(stat)")
        }
        return user + system
    }
}
