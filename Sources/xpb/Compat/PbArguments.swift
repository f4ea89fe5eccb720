/// macOS's `pbcopy` and `pbpaste`: the general pasteboard is CLIPBOARD; `-pboard` names another
/// pasteboard (none of which X has, so each is taken as CLIPBOARD too) and `-Prefer` a flavour
/// (text is what xpb pastes), both accepted so scripts written for macOS run unchanged.
enum PbArguments {
    /// The action for `pbcopy`'s (`isCopy`) or `pbpaste`'s arguments, without the program name.
    static func parse(_ arguments: [String], isCopy: Bool) throws(CompatUsageError) -> CompatAction {
        let name = isCopy ? "pbcopy" : "pbpaste"
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-help", "--help", "-h":
                return .show("Usage: \(name) [-pboard {general | ruler | find | font}]\(isCopy ? "" : " [-Prefer {txt | rtf | ps}]")\n"
                    + "\(isCopy ? "Copies stdin to" : "Writes") the X CLIPBOARD\(isCopy ? "" : " to stdout") (xpb's drop-in \(name)).\n")
            case "-pboard":
                guard let board = rest.popFirst(), ["general", "ruler", "find", "font"].contains(board) else {
                    throw CompatUsageError("\(name) -pboard takes general, ruler, find or font")
                }
            case "-Prefer" where !isCopy:
                guard let flavour = rest.popFirst(), ["txt", "rtf", "ps"].contains(flavour) else {
                    throw CompatUsageError("pbpaste -Prefer takes txt, rtf or ps")
                }
            default:
                throw CompatUsageError("\(name) has no option \(argument) (\(name) -help lists them)")
            }
        }
        if isCopy { return .copy(CompatCopy(selection: "CLIPBOARD")) }
        return .paste(CompatPaste(selection: "CLIPBOARD", nothingIsSuccess: true))
    }
}
