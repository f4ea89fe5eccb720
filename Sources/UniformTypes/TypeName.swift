/// How a type written by name reads as a type: the command line's TYPE arguments (`-t TYPE`,
/// `xpb type TYPE`) and the Pasteboard's type strings (`data(forPasteboardType: "text/html")`).
///
/// Package-wide rather than public: both the Pasteboard model and the `xpb` command need the same
/// precedence, but it is no part of Apple's UTType API that the library mirrors.
package enum TypeName {
    /// The type a name stands for, or nil when it names nothing (so the CLI can say "unknown type").
    ///
    /// Precedence, first match wins (the forms do not overlap in practice):
    /// 1. `.ext`: a filename extension with its dot (`.png`); unknown extensions give a dynamic type.
    /// 2. anything with a `/`: a MIME type (`text/html`, `text/plain; charset=UTF-8`); unknown but
    ///    well-formed ones give a dynamic type, malformed ones nil.
    /// 3. a declared UTI (`public.html`, any case) or a valid `dyn.a…` identifier.
    /// 4. a known X target atom (`UTF8_STRING`, `STRING`, `TEXT`, `COMPOUND_TEXT`, `PIXMAP`,
    ///    `_NETSCAPE_URL`…), exact case first, then any case since no UTI lacks a dot.
    /// Anything else (a bare unknown word, an undeclared `com.example.x`) is nil: guessing would
    /// turn typos like `public.hmtl` into silently wrong types.
    package static func resolve(_ argument: String) -> UTType? {
        let trimmed = trim(argument)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix(".") {
            return UTType(filenameExtension: String(trimmed.dropFirst()))
        }
        if trimmed.contains("/") {
            return UTType(mimeType: trimmed)
        }
        if let type = UTType(trimmed) { return type }
        let registry = TypeRegistry.system
        if let index = registry.indices(forAtom: trimmed).first { return UTType(declaredIndex: index) }
        let upper = trimmed.uppercased()
        for (atom, indices) in registry.indicesByAtom where atom.uppercased() == upper {
            return UTType(declaredIndex: indices[0])
        }
        return nil
    }

    private static func trim(_ string: String) -> String {
        var slice = Substring(string)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
