/// How a hand-off of CLIPBOARD to the clipboard manager (`SAVE_TARGETS`) ended.
public enum HandOffResult: Sendable, Hashable {
    /// The manager said it saved the content, and every transfer it asked for finished.
    case handedOff
    /// This process does not own CLIPBOARD: nothing to hand off.
    case notOwner
    /// No clipboard manager runs (`CLIPBOARD_MANAGER` has no owner).
    case noManager
    /// The content is sensitive: it was not handed off, and CLIPBOARD was given up instead.
    case refusedSensitive
    /// The manager answered that it could not save the content.
    case refusedByManager
    /// The manager went away before answering.
    case managerWentAway
    /// The manager did not answer in time.
    case timedOut
    /// The display could not be reached.
    case failed(PasteboardError)
}

extension SelectionOwner {
    /// Hands the content to the running clipboard manager before the process lets go of it
    /// (ICCCM §2.6.3 `SAVE_TARGETS`; the freedesktop ClipboardManager spec), serving the
    /// manager's conversions, INCR included, while it copies. Every other conversation on the
    /// connection goes on meanwhile.
    ///
    /// The one guard for every hand-off: only CLIPBOARD, only while this owner holds it, and
    /// never sensitive content (the selection is given up instead, so the secret does not
    /// outlive its writer in a manager's history). Waits for the manager's answer and for every
    /// transfer on the connection, at most `timeout`.
    public func handOffToClipboardManager(timeout: Duration = .seconds(5)) -> HandOffResult {
        guard isOwner, selection == connection.atom("CLIPBOARD"), connection.owner(of: selection) == connection.window else {
            return .notOwner
        }
        if content.isSensitive {
            relinquish()
            return .refusedSensitive
        }
        do {
            return try handOff(timeout: timeout)
        } catch {
            return .failed(error)
        }
    }

    private func handOff(timeout: Duration) throws(PasteboardError) -> HandOffResult {
        let manager = connection.atom("CLIPBOARD_MANAGER")
        let managerWindow = connection.owner(of: manager)
        guard managerWindow != .none else { return .noManager }
        // Told when the manager goes away, so we do not wait for an answer that cannot come.
        try? connection.watchOwnerChanges(of: manager)

        let saveTargets = connection.atom("SAVE_TARGETS")
        let property = connection.atom("_XPB_SAVE_TARGETS")
        let storable = connection.atoms(content.entries.map(\.target))
        connection.changeProperty32(on: connection.window, property, type: .atom, values: storable.map(\.rawValue))
        // A fresh time: a manager that took CLIPBOARD_MANAGER after we took CLIPBOARD refuses
        // requests older than its own ownership (ICCCM §2.2).
        let time = (try? connection.serverTime()) ?? acquiredAt
        let request = SaveTargetsRequest(
            window: connection.window, manager: manager, managerWindow: managerWindow, saveTargets: saveTargets)
        connection.events.register(request)
        defer { request.isFinished = true }
        connection.convertSelection(manager, to: saveTargets, property: property, time: time)
        connection.flush()

        // KDE answers before it has fetched everything: wait for the transfers too.
        let copying = { self.connection.events.contains { ($0 as? SelectionOwner)?.hasTransfersInFlight == true } }
        let deadline = Deadline.after(timeout)
        try connection.events.pump(until: { request.managerLeft || (request.answer != nil && !copying()) }, deadline: deadline)
        if request.managerLeft { return request.answer ?? .managerWentAway }
        if let answer = request.answer, !copying() { return answer }
        // Out of time: only a refusal is final; a "saved" with copies still running is not.
        return request.answer == .refusedByManager ? .refusedByManager : .timedOut
    }
}

/// Our SAVE_TARGETS conversion: the manager's answer, or its going away.
private final class SaveTargetsRequest: Conversation {
    let window: XWindow
    let manager: XAtom
    let managerWindow: XWindow
    let saveTargets: XAtom
    var answer: HandOffResult?
    var managerLeft = false
    var isFinished = false

    init(window: XWindow, manager: XAtom, managerWindow: XWindow, saveTargets: XAtom) {
        self.window = window
        self.manager = manager
        self.managerWindow = managerWindow
        self.saveTargets = saveTargets
    }

    func handle(_ event: XServerEvent) -> Bool {
        switch event {
        case .selectionNotify(let reply) where reply.requestor == window && reply.selection == manager && reply.target == saveTargets:
            answer = reply.property == .none ? .refusedByManager : .handedOff
            return true
        case .selectionOwnerChange(let change) where change.selection == manager && change.owner != managerWindow:
            managerLeft = true
            return true
        default:
            return false
        }
    }
}
