import Foundation

/// A directory of links named `xclip`, `xsel`, `pbcopy` and `pbpaste` to the `xpb` under test,
/// as `make install` puts in `lib/xpb/compat`: put first on PATH, it replaces the real tools.
enum DropIns {
    static let names = ["xclip", "xsel", "pbcopy", "pbpaste"]

    /// Made once per test process; removed by the system's temporary-file cleaning.
    static func directory(for xpb: String) throws -> String {
        try lock.withLock {
            if let made = made[xpb] { return made }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-dropins-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for name in names {
                try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(name).path, withDestinationPath: xpb)
            }
            made[xpb] = directory.path
            return directory.path
        }
    }

    nonisolated(unsafe) private static var made: [String: String] = [:]
    private static let lock = NSLock()
}

extension XSession {
    /// The drop-in `name` (xclip, xsel, pbcopy, pbpaste): the xpb under test run by that name.
    func dropIn(_ name: String) throws -> String {
        try DropIns.directory(for: xpbPath) + "/" + name
    }

    /// Runs the drop-in `name` with `arguments`.
    func dropIn(
        _ name: String, _ arguments: [String], stdin: Stdin = .none, timeout: Duration = .seconds(20)
    ) async throws -> RunResult {
        try await run(try dropIn(name), arguments, stdin: stdin, timeout: timeout)
    }
}
