import FoundationEssentials
import Glibc
import Synchronization
import UniformTypes

/// An X selection seen as a UIKit-style pasteboard: items, each holding several representations
/// of the same data keyed by UTI.
///
/// `Pasteboard.general` is CLIPBOARD, `.primary` and `.secondary` the other standard selections;
/// `init(name:create:)` opens any selection atom. Members are named as `UIPasteboard`'s.
///
/// Reading asks the selection's owner (or, when this process owns it, its own snapshot); the
/// `has…` properties, `types` and `contains(pasteboardTypes:)` look only at what the owner offers
/// (its `TARGETS`). Writing replaces the content, takes ownership and serves it from a background
/// thread for as long as the process lives, or until another client takes the selection.
/// Failures make reads return nil (or empty) and writes do nothing, as UIPasteboard does; the
/// `async` counterparts throw a `PasteboardError` instead.
///
/// All pasteboards of a display share one X connection on one thread, so a `Pasteboard` may be
/// used from any thread or task.
public final class Pasteboard: Sendable {
    /// The name of a pasteboard: the name of its X selection atom.
    public struct Name: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The selection atom's name (case-sensitive, as atoms are).
        public let rawValue: String

        /// A name from the atom name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A name from the atom name.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A name from a string literal.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// `CLIPBOARD`: what copy and paste use.
        public static let general = Name("CLIPBOARD")
        /// `PRIMARY`: the mouse selection, pasted with the middle button.
        public static let primary = Name("PRIMARY")
        /// `SECONDARY`: rarely used by applications.
        public static let secondary = Name("SECONDARY")

        /// The atom name.
        public var description: String { rawValue }
    }

    /// The CLIPBOARD selection of `$DISPLAY`.
    public static let general = Pasteboard(checkedName: .general, displayName: nil)
    /// The PRIMARY selection of `$DISPLAY`.
    public static let primary = Pasteboard(checkedName: .primary, displayName: nil)
    /// The SECONDARY selection of `$DISPLAY`.
    public static let secondary = Pasteboard(checkedName: .secondary, displayName: nil)

    /// The name of the pasteboard (its selection atom).
    public let name: Name
    /// The X display it lives on; nil means `$DISPLAY`.
    public let displayName: String?

    /// Names this process created and did not remove: they exist even while nobody owns them.
    private static let createdNames = Mutex<Set<String>>([])

    private init(checkedName name: Name, displayName: String?) {
        self.name = name
        self.displayName = displayName
        // Counting starts now, so changes right after creation are not missed; a display that
        // is not there yet is tried again by every later call.
        _ = try? engine().blocking { session in _ = session.watch(name) }
    }

    /// The pasteboard of the selection `name` on `$DISPLAY`.
    ///
    /// - Parameters:
    ///   - name: any selection atom name.
    ///   - create: when false, returns nil unless the pasteboard exists: a standard selection,
    ///     one this process created, or one that some client owns now.
    public convenience init?(name: Name, create: Bool) {
        self.init(name: name, create: create, displayName: nil)
    }

    /// The pasteboard of the selection `name` on the display `displayName` (nil: `$DISPLAY`).
    ///
    /// - Parameter create: when false, returns nil unless the pasteboard exists (see
    ///   `init(name:create:)`).
    public convenience init?(name: Name, create: Bool, displayName: String?) {
        if !create && !Self.exists(name, displayName: displayName) { return nil }
        self.init(checkedName: name, displayName: displayName)
        _ = Self.createdNames.withLock { $0.insert(name.rawValue) }
    }

    /// A new pasteboard with a name no other pasteboard has, on `$DISPLAY`.
    public static func withUniqueName() -> Pasteboard {
        let unique = "XPB_PASTEBOARD_" + UUID().uuidString.filter { $0 != "-" }
        return Pasteboard(name: Name(unique), create: true)!
    }

    /// Forgets a pasteboard this process created; if this process owns its selection, the
    /// selection is cleared.
    public static func remove(withName name: Name) {
        _ = createdNames.withLock { $0.remove(name.rawValue) }
        let engines = DisplayLoop.all
        for engine in engines {
            _ = try? engine.blocking { session throws(PasteboardError) in
                // Looked up, not watched: a removed pasteboard needs no change count.
                let selection = session.connection.atom(name.rawValue)
                if session.ownsSelection(selection) { try session.clear(selection) }
            }
        }
    }

    private static func exists(_ name: Name, displayName: String?) -> Bool {
        if [.general, .primary, .secondary].contains(name) { return true }
        if createdNames.withLock({ $0.contains(name.rawValue) }) { return true }
        let engine = try? DisplayLoop.engine(for: displayName)
        let owned = try? engine?.blocking { session in session.connection.owner(of: session.connection.atom(name.rawValue)) != .none }
        return owned == true
    }

    // MARK: Changes

    /// How many times the selection changed owner since this process started watching it
    /// (when the first `Pasteboard` of this name was made): every copy, by anyone, this process
    /// included, and every clear. Counts every change the X server made before the call.
    public var changeCount: Int {
        let name = self.name
        return (try? run { session, _ throws(PasteboardError) in try session.changeCount(of: name) }) ?? 0
    }

    /// The changes of this pasteboard from now on, as XFixes reports them; each access is a new
    /// stream. Nothing runs while nothing changes: the engine blocks on the X socket.
    public var changes: AsyncStream<PasteboardChange> {
        guard let engine = try? engine() else {
            return AsyncStream { $0.finish() }
        }
        let name = self.name
        let stream = engine.hub.changes(of: name)
        _ = try? engine.blocking { session in _ = session.watch(name) }
        return stream
    }

    // MARK: Clipboard manager

    /// Hands this pasteboard's content to the running clipboard manager so it survives this
    /// process (ICCCM `SAVE_TARGETS`), serving the manager's conversions meanwhile.
    ///
    /// Only CLIPBOARD is handed off, only when this process owns it and a manager owns
    /// `CLIPBOARD_MANAGER`. Sensitive content is never handed off: CLIPBOARD is given up instead.
    /// Returns after the manager has answered and fetched everything, or after `timeout`.
    public func handOffToClipboardManager(timeout: Duration = .seconds(5)) -> HandOffResult {
        do {
            return try run { session, selection in session.handOffToClipboardManager(of: selection, timeout: timeout) }
        } catch {
            return .failed(error)
        }
    }

    /// Whether a process that exits (returns from `main` or calls `exit`) while owning CLIPBOARD
    /// first hands its content to the clipboard manager. On by default; the hand-off takes at
    /// most 5 s, and only happens when a manager runs. Processes killed by a signal skip it.
    public static var handsOffOnExit: Bool {
        get { exitHandOff.withLock { $0 } }
        set { exitHandOff.withLock { $0 = newValue } }
    }

    private static let exitHandOff = Mutex(true)

    /// Registers the exit hand-off the first time anything is written.
    static let installExitHook: Void = {
        atexit {
            guard Pasteboard.handsOffOnExit else { return }
            for engine in DisplayLoop.all {
                _ = try? engine.blocking { session in
                    session.handOffToClipboardManager(of: session.connection.atom("CLIPBOARD"), timeout: .seconds(5))
                }
            }
        }
    }()

    // MARK: Running on the engine

    func engine() throws(PasteboardError) -> DisplayLoop {
        try DisplayLoop.engine(for: displayName)
    }

    /// Runs `body` on the display's session with this pasteboard's selection, and waits.
    func run<T: Sendable>(_ body: @escaping PasteboardOperations.Operation<T>) throws(PasteboardError) -> T {
        let name = self.name
        return try engine().blocking { session async throws(PasteboardError) in try await body(session, session.watch(name)) }
    }

    /// Runs `body` on the display's session with this pasteboard's selection.
    func runAsync<T: Sendable>(_ body: @escaping PasteboardOperations.Operation<T>) async throws(PasteboardError) -> T {
        let name = self.name
        return try await engine().awaiting { session async throws(PasteboardError) in try await body(session, session.watch(name)) }
    }
}
