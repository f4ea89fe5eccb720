/// `x-special/gnome-copied-files`: what GNOME Files, Caja, Thunar and PCManFM put on the clipboard
/// for copy/cut of files: `copy` or `cut`, then `\n` + URI per file, no trailing newline.
public struct GnomeCopiedFiles: Equatable, Sendable {
    /// Whether pasting should move (cut) or duplicate (copy) the files.
    public enum Operation: String, Sendable {
        /// Duplicate on paste.
        case copy
        /// Move on paste.
        case cut
    }

    /// Copy or cut.
    public var operation: Operation
    /// The files, as URIs (normally `file://`).
    public var uris: [String]

    /// Wraps URIs for serialising.
    public init(operation: Operation = .copy, uris: [String]) {
        self.operation = operation
        self.uris = uris
    }

    /// Parses the payload. Tolerates CRLF, blank lines, a trailing newline or NUL and the old
    /// Nautilus `x-special/nautilus-clipboard` header line (as Nautilus itself does); throws
    /// `ConversionError.malformed` when the operation line is missing or a line is no URI.
    public static func parse(_ bytes: [UInt8]) throws -> GnomeCopiedFiles {
        var data = bytes
        while data.last == 0 { data.removeLast() }
        guard TextEncoding.isValidUTF8(data), !data.contains(0) else {
            throw ConversionError.malformed(format: "x-special/gnome-copied-files", reason: "not UTF-8 text")
        }
        var lines = URIList.lines(String(decoding: data, as: UTF8.self)).filter { !$0.isEmpty }
        if lines.first == "x-special/nautilus-clipboard" { lines.removeFirst() }
        guard let first = lines.first, let operation = Operation(rawValue: first.lowercased()) else {
            throw ConversionError.malformed(format: "x-special/gnome-copied-files", reason: "first line is not \"copy\" or \"cut\"")
        }
        var uris: [String] = []
        for line in lines.dropFirst() {
            guard let uri = URIList.uri(fromLine: line) else {
                throw ConversionError.malformed(format: "x-special/gnome-copied-files", reason: "\"\(line.prefix(80))\" is not a URI")
            }
            uris.append(uri)
        }
        return GnomeCopiedFiles(operation: operation, uris: uris)
    }

    /// The wire form Nautilus 43+ writes.
    public func serialized() -> [UInt8] {
        var out = Array(operation.rawValue.utf8)
        for uri in uris {
            out.append(10)
            out.append(contentsOf: uri.utf8)
        }
        return out
    }
}
