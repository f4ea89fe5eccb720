import ArgumentParser

/// `xpb watch`'s display and selections. The other subcommands act on one selection
/// (`GlobalOptions`, "choose one"); a watch follows several, so each of -b/-p/-s/--selection
/// adds one.
struct WatchOptions: ParsableArguments {
    @Option(help: "The X display to use (default: $DISPLAY).")
    var display: String?

    @Flag var selectionFlags: [SelectionFlag] = []

    @Option(name: .customLong("selection"), help: ArgumentHelp("Watch any selection by its atom name; repeatable.", valueName: "name"))
    var selectionNames: [String] = []

    func validate() throws {
        if selectionNames.contains(where: \.isEmpty) { throw ValidationError("--selection needs a name") }
    }

    /// The selections the options name: -b/-p/-s in the order given, then each --selection.
    /// (ArgumentParser keeps the order within one property, not across two.)
    var selections: [String] { selectionFlags.map(\.atomName) + selectionNames }
}

/// -b, -p and -s as one repeatable flag, so that several can be given together.
enum SelectionFlag: EnumerableFlag {
    case clipboard, primary, secondary

    static func name(for value: Self) -> NameSpecification {
        switch value {
        case .clipboard: [.customShort("b"), .customLong("clipboard")]
        case .primary: [.customShort("p"), .customLong("primary")]
        case .secondary: [.customShort("s"), .customLong("secondary")]
        }
    }

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .clipboard: "Watch CLIPBOARD (the default when no selection is named)."
        case .primary: "Watch PRIMARY (the mouse selection)."
        case .secondary: "Watch SECONDARY."
        }
    }

    /// The selection's atom name.
    var atomName: String {
        switch self {
        case .clipboard: "CLIPBOARD"
        case .primary: "PRIMARY"
        case .secondary: "SECONDARY"
        }
    }
}
