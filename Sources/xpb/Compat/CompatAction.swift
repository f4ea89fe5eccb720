/// What a drop-in invocation (`xclip`, `xsel`, `pbcopy`, `pbpaste`) asks for, as plain values:
/// the parsers produce it without touching the server, so every argument vector real programs
/// use is unit-tested, and `CompatRunner` carries it out on the copy and paste machinery.
enum CompatAction: Equatable {
    /// Take the selection with new content.
    case copy(CompatCopy)
    /// Write the selection's content to stdout.
    case paste(CompatPaste)
    /// xsel with neither `-i` nor `-o`, stdin and stdout both redirected: the old content out,
    /// then the new in.
    case pasteThenCopy(CompatPaste, CompatCopy)
    /// Leave the selection with no owner; `delete` first asks the owner to delete it (xsel -d).
    case clear(display: String?, selection: String, delete: Bool)
    /// Re-own PRIMARY and SECONDARY with their current content, so it outlives its program (xsel -k).
    case keep(display: String?, foreground: Bool)
    /// Swap the contents of PRIMARY and SECONDARY (xsel -x).
    case exchange(display: String?, foreground: Bool)
    /// Print this text on stdout and exit 0 (help, version).
    case show(String)
}

/// A drop-in copy: where the data comes from and how it is served.
struct CompatCopy: Equatable {
    var display: String?
    var selection: String
    /// Files read one after the other; empty means stdin.
    var files: [String] = []
    /// The X target to serve under (xclip -t); nil sniffs the type.
    var target: String?
    /// Serve from the calling process (xclip -quiet, xsel -n).
    var foreground = false
    /// Exit after this many pastes (xclip -l).
    var loops: Int?
    /// Give the selection up after this many seconds (xsel -t).
    var expiry: Double?
    /// Mark the content secret and serve it once (xclip -sensitive).
    var sensitive = false
    /// Drop one newline at the very end of the data (xclip -rmlastnl, xsel --trim).
    var removeLastNewline = false
    /// Echo stdin to stdout as well (xclip -filter).
    var filter = false
    /// Add the data after the selection's current text (xsel -a, -f).
    var append = false
}

/// A drop-in paste: which target, and how its bytes reach stdout.
struct CompatPaste: Equatable {
    var display: String?
    var selection: String
    /// The type or target to paste (xclip -t); nil means text, as xclip and xsel paste.
    var target: String?
    /// Print the owner's TARGETS, one atom name a line (xclip -t TARGETS).
    var listTargets = false
    /// Drop one newline at the very end (xclip -rmlastnl, xsel --trim).
    var removeLastNewline = false
    /// Seconds without progress before giving up.
    var timeout: Double = 5
    /// Nothing to paste is success with no output (xsel; Neovim picks xsel only if
    /// `xsel -o -b` exits 0 on an empty clipboard).
    var nothingIsSuccess = false
}

/// A command line the drop-in cannot take; printed as one `xpb: ...` line with exit 1, as
/// xclip does.
struct CompatUsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
