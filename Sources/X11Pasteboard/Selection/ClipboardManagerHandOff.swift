extension SelectionOwner {
    /// Hands the content to the running clipboard manager before the process lets go of it
    /// (ICCCM §2.6.3 `SAVE_TARGETS`; the freedesktop ClipboardManager spec), serving the
    /// manager's conversions, INCR included, while it copies.
    ///
    /// Only for CLIPBOARD; sensitive content is never handed off (the selection is given up
    /// instead). Waits for the manager's answer and for every transfer it started, at most
    /// `timeout`.
    public func handOffToClipboardManager(timeout: Duration = .seconds(5)) -> Pasteboard.HandOffResult {
        guard isOwner, selection == connection.atom("CLIPBOARD") else { return .notOwner }
        if content.isSensitive {
            relinquish()
            return .refusedSensitive
        }
        return handOff(timeout: timeout, othersBusy: { false }, otherWork: { .never }) { [self] event in
            if !handle(event) { connection.route(event) }
        }
    }

    /// The hand-off for a loop that serves other owners too: `othersBusy` says whether their
    /// transfers still run, `otherWork` runs their timers, `dispatch` gives them other events.
    func handOff(
        timeout: Duration, othersBusy: () -> Bool, otherWork: () -> Deadline, dispatch: (XEventKind) -> Void
    ) -> Pasteboard.HandOffResult {
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
        connection.convertSelection(manager, to: saveTargets, property: property, time: (try? connection.serverTime()) ?? acquiredAt)
        connection.flush()

        let deadline = Deadline.after(timeout)
        var answer: Pasteboard.HandOffResult?
        while true {
            // KDE answers before it has fetched everything: wait for the transfers too.
            let copying = hasTransfersInFlight || othersBusy()
            if let answer, !copying { return answer }
            // Out of time: only a refusal is final; a "saved" with copies still running is not.
            if deadline.hasPassed { return answer == .refusedByManager ? .refusedByManager : .timedOut }
            let next = deadline.earlier(runDueWork()).earlier(otherWork())
            guard let event = connection.nextEvent(before: next) else { continue }
            switch event {
            case .selectionNotify(let reply)
            where reply.requestor == connection.window && reply.selection == manager && reply.target == saveTargets:
                answer = reply.property == .none ? .refusedByManager : .handedOff
            case .selectionOwnerChange(let change) where change.selection == manager && change.owner != managerWindow:
                dispatch(event)
                return answer ?? .managerWentAway
            default:
                dispatch(event)
            }
        }
    }
}
