import Glibc

/// The content-addressed files beside the database that hold large representations:
/// `blobs/ab/abcdef…`, named by the SHA-256 of their bytes, mode 0600 in directories of mode 0700.
///
/// A file is written under a temporary name, fsync'd, renamed and its directory fsync'd before the
/// row that names it commits, so a crash leaves at worst a file no row names (swept later), never a
/// row naming a missing or partial file.
struct BlobDirectory {
    /// The `blobs` directory.
    let path: String

    private static let temporaryPrefix = "tmp-"

    /// The file of the blob named `hex`.
    func file(_ hex: String) -> String { "\(path)/\(hex.prefix(2))/\(hex)" }

    /// Makes sure the blob named `hex` exists with `bytes`, durably.
    func store(_ bytes: [UInt8], as hex: String) throws(HistoryError) {
        let destination = file(hex)
        if access(destination, F_OK) == 0 { return }
        let folder = "\(path)/\(hex.prefix(2))"
        try FileSystem.makeDirectory(folder)
        let temporary = "\(folder)/\(BlobDirectory.temporaryPrefix)\(getpid())-\(hex)"
        try FileSystem.writeDurably(bytes, to: temporary)
        guard rename(temporary, destination) == 0 else {
            let failure = FileSystem.error("cannot rename \(temporary)")
            unlink(temporary)
            throw failure
        }
        try FileSystem.syncDirectory(folder)
    }

    /// The bytes of the blob named `hex`.
    func read(_ hex: String) throws(HistoryError) -> [UInt8] {
        try FileSystem.read(file(hex))
    }

    /// Deletes the blob named `hex` (fine if it is already gone).
    func remove(_ hex: String) {
        unlink(file(hex))
        rmdir("\(path)/\(hex.prefix(2))")  // only succeeds once the folder is empty
    }

    /// Deletes every file that is not one of `kept`: what a crash left between writing a file and
    /// committing its row, and leftover temporary files.
    func sweep(keeping kept: Set<String>) {
        for folder in FileSystem.list(path) where folder.utf8.count == 2 {
            for name in FileSystem.list("\(path)/\(folder)") where !kept.contains(name) {
                unlink("\(path)/\(folder)/\(name)")
            }
            rmdir("\(path)/\(folder)")
        }
    }
}
