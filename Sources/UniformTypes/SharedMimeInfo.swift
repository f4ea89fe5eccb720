import Glibc
import SystemPackage

/// The alias and subclass relations of a freedesktop shared-mime-info database (`aliases`,
/// `subclasses` in each `mime` directory), used to extend the built-in table at run time.
///
/// Built-in parents always win: shared-mime-info only adds parents to dynamic types and only maps
/// alias names onto declared ones, so `public.html` never becomes plain text although fdo says
/// `text/html` ⊂ `text/plain`. Only the two small text files are read (no globs, no magic): a
/// clipboard translator needs names and relations, not file sniffing.
public struct SharedMimeInfo: Sendable {
    /// Alias → canonical MIME type, lower-cased.
    public private(set) var aliases: [String: String] = [:]
    /// Child → parents in file order, lower-cased, as written (parents may themselves be aliases).
    public private(set) var subclasses: [String: [String]] = [:]
    /// The directories a file was actually read from, lowest precedence first.
    public private(set) var loadedDirectories: [String] = []
    private var aliasesByCanonical: [String: [String]] = [:]

    /// An empty database: resolution then uses the built-in table alone.
    public init() {}

    /// Reads one `mime` directory (one that holds `aliases` and `subclasses`), e.g. a test fixture.
    public init(directory: String) { self.init(directories: [directory]) }

    /// Reads several `mime` directories, lowest precedence first; later ones override aliases and
    /// add subclass edges (shared-mime-info spec §2.1). Missing files are skipped silently.
    public init(directories: [String]) {
        for directory in directories {
            var read = false
            if let bytes = Self.readFile(directory + "/aliases") {
                read = true
                for fields in Self.lines(bytes) where fields.count >= 2 { aliases[fields[0]] = fields[1] }
            }
            if let bytes = Self.readFile(directory + "/subclasses") {
                read = true
                for fields in Self.lines(bytes) where fields.count >= 2 {
                    if !(subclasses[fields[0]]?.contains(fields[1]) ?? false) { subclasses[fields[0], default: []].append(fields[1]) }
                }
            }
            if read { loadedDirectories.append(directory) }
        }
        for (alias, canonical) in aliases.sorted(by: { $0.key < $1.key }) {
            aliasesByCanonical[canonical, default: []].append(alias)
        }
    }

    /// The database of this machine, read once on first use from the XDG data directories.
    public static let system = SharedMimeInfo(directories: standardDirectories())

    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`) and `$XDG_DATA_HOME` (default
    /// `~/.local/share`), each with `/mime` appended, lowest precedence first.
    public static func standardDirectories() -> [String] {
        func environment(_ name: String) -> String? {
            guard let value = getenv(name) else { return nil }
            let string = String(cString: value)
            return string.isEmpty ? nil : string
        }
        let dataDirs = (environment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        var directories = dataDirs.reversed().map { $0 + "/mime" }
        if let home = environment("XDG_DATA_HOME") {
            directories.append(home + "/mime")
        } else if let home = environment("HOME") {
            directories.append(home + "/.local/share/mime")
        }
        return directories
    }

    /// True when no relation was read (no shared-mime-info installed).
    public var isEmpty: Bool { aliases.isEmpty && subclasses.isEmpty }

    /// The canonical name for a MIME type (`text/rtf` → `application/rtf`), lower-cased, without
    /// parameters; the type itself when it is no alias.
    public func canonical(_ mimeType: String) -> String {
        let essence = MIMEType.parse(mimeType)?.essence ?? mimeType.lowercased()
        return aliases[essence] ?? essence
    }

    /// Every alias whose canonical name is `mimeType`'s canonical name.
    public func aliases(of mimeType: String) -> [String] { aliasesByCanonical[canonical(mimeType)] ?? [] }

    /// Direct parents from the `subclasses` file, canonicalised (a parent may be written as an alias).
    public func parents(of mimeType: String) -> [String] {
        var result: [String] = []
        for parent in subclasses[canonical(mimeType)] ?? [] {
            let canonicalParent = canonical(parent)
            if !result.contains(canonicalParent) { result.append(canonicalParent) }
        }
        return result
    }

    /// `UTType(mimeType:conformingTo:)` against this database instead of the system one.
    public func type(forMIMEType mimeType: String, conformingTo supertype: UTType = .data) -> UTType? {
        TypeResolver(database: self).type(mimeType: mimeType, conformingTo: supertype)
    }

    // MARK: - Reading

    /// Splits into lines of whitespace-separated, lower-cased fields, skipping comments.
    private static func lines(_ bytes: [UInt8]) -> [[String]] {
        var result: [[String]] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            if line.first == UInt8(ascii: "#") { continue }
            let fields = line.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
            guard fields.count >= 2 else { continue }
            result.append(fields.map { String(decoding: $0, as: UTF8.self).lowercased() })
        }
        return result
    }

    /// The whole file, or nil when it cannot be opened; capped so a bogus file cannot eat memory.
    static func readFile(_ path: String, limit: Int = 16 << 20) -> [UInt8]? {
        guard let descriptor = try? path.withCString({ try FileDescriptor.open($0, .readOnly, options: .closeOnExec) }) else {
            return nil
        }
        defer { try? descriptor.close() }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            // A read error ends the file as end of file does: what was read is still good.
            guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }), count > 0 else { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }
}
