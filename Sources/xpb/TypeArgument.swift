import UniformTypes

/// Turns a `-t` argument into a type, with the error users see for a word that is no type.
enum TypeArgumentParsing {
    /// The translator's reading of the argument; failing that, a word spelled like an X atom
    /// (`MY_APP_DATA`, `_NET_FOO`) is taken as a target of that name, as xclip takes any atom.
    static func resolve(_ argument: String) throws(CommandFailure) -> UTType {
        if let type = TypeName.resolve(argument) { return type }
        if looksLikeAtomName(argument), let type = UTType(tag: argument, tagClass: .xAtom, conformingTo: nil) {
            return type
        }
        throw CommandFailure(
            "unknown type '\(argument)': give a UTI (public.html), a MIME type (text/html), an X target (UTF8_STRING) or an extension (.png)")
    }

    /// Upper-case letters, digits, `_` and `-`, starting with a letter or `_`: how X atoms are
    /// spelled by convention. Lower-case words stay errors, so a typo like `pnng` is reported.
    static func looksLikeAtomName(_ word: String) -> Bool {
        guard let first = word.unicodeScalars.first, first == "_" || ("A"..."Z").contains(first) else { return false }
        return word.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
}
