import ArgumentParser
import X11Pasteboard

/// The options every subcommand takes: which display and which selection.
struct GlobalOptions: ParsableArguments {
    @Option(help: "The X display to use (default: $DISPLAY).")
    var display: String?

    @Flag(name: [.customShort("b"), .customLong("clipboard")], help: "Use the CLIPBOARD selection (the default).")
    var clipboard = false

    @Flag(name: [.customShort("p"), .customLong("primary")], help: "Use the PRIMARY selection (the mouse selection).")
    var primary = false

    @Flag(name: [.customShort("s"), .customLong("secondary")], help: "Use the SECONDARY selection.")
    var secondary = false

    @Option(name: .customLong("selection"), help: ArgumentHelp("Use any selection by its atom name.", valueName: "name"))
    var selectionName: String?

    func validate() throws {
        let chosen = [clipboard, primary, secondary, selectionName != nil].filter { $0 }.count
        if chosen > 1 {
            throw ValidationError("choose one selection: -b, -p, -s or --selection NAME")
        }
        if let selectionName, selectionName.isEmpty {
            throw ValidationError("--selection needs a name")
        }
    }

    /// The atom name of the chosen selection.
    var selection: String {
        if primary { return "PRIMARY" }
        if secondary { return "SECONDARY" }
        return selectionName ?? "CLIPBOARD"
    }

    /// Opens the display, turning failure into the one-line error users see.
    func connect() throws(CommandFailure) -> XConnection {
        try Self.connect(display: display)
    }

    /// Opens `display` (nil: `$DISPLAY`), turning failure into the one-line error users see.
    static func connect(display: String?) throws(CommandFailure) -> XConnection {
        do {
            return try XConnection(displayName: display)
        } catch {
            throw CommandFailure(error)
        }
    }
}
