/// The owner's INCR transfers (ICCCM §2.7.2) and the work that runs between events.
extension SelectionOwner {
    // MARK: INCR

    func startIncremental(_ value: ServedValue, type: XAtom, for requestor: XWindow, property: XAtom) {
        let key = TransferKey(requestor: requestor, property: property)
        let firstSerial = connection.nextRequestSerial()
        watch(requestor)
        transfers[key] = Transfer(
            send: IncrementalSend(value: value, chunkSize: chunkSize), property: property, type: type,
            deadline: .after(configuration.transferTimeout), firstSerial: firstSerial)
        // The INCR value is a lower bound on the size (ICCCM §2.7.2), clamped to 32 bits.
        connection.changeProperty32(
            on: requestor, property, type: protocolTargets.incr, values: [UInt(min(value.bytes.count, Int(UInt32.max)))])
    }

    func sendNextChunk(_ key: TransferKey) {
        guard var transfer = transfers[key], let range = transfer.send.nextChunk() else { return }
        transfer.send.value.bytes.withUnsafeBytes { all in
            connection.changeProperty(
                on: key.requestor, key.property, type: transfer.type, format: transfer.send.value.format,
                bytes: UnsafeRawBufferPointer(rebasing: all[range]))
        }
        connection.flush()
        if range.isEmpty {
            finish(key, completed: true)
        } else {
            transfer.deadline = .after(configuration.transferTimeout)
            transfers[key] = transfer
        }
    }

    func finish(_ key: TransferKey, completed: Bool) {
        guard transfers.removeValue(forKey: key) != nil else { return }
        if completed { conversionsServed += 1 }
        unwatch(key.requestor)
    }

    /// PropertyChangeMask on the requestor tells us when it deleted a chunk; StructureNotifyMask
    /// tells us when it died. The mask is the connection's, shared by every owner on it.
    private func watch(_ requestor: XWindow) {
        connection.retainRequestorEvents(requestor)
    }

    private func unwatch(_ requestor: XWindow) {
        connection.releaseRequestorEvents(requestor)
    }

    /// A requestor that vanished (BadWindow on its window) costs only its own transfers.
    private func dropFailedTransfers() {
        guard !transfers.isEmpty else { return }
        let requestors = Set(transfers.keys.map { $0.requestor.rawValue })
        // Only BadWindows about our requestors; what concerns other parties stays for them.
        let badWindows = connection.takeErrors { $0.errorCode == XProtocolError.badWindow && requestors.contains($0.resourceID) }
        for (key, transfer) in transfers
        where badWindows.contains(where: { $0.resourceID == key.requestor.rawValue && $0.serial >= transfer.firstSerial }) {
            transfers[key] = nil
            connection.forgetRequestor(key.requestor)
        }
    }

    private func dropStalledTransfers() {
        for (key, transfer) in transfers where transfer.deadline.hasPassed {
            finish(key, completed: false)
        }
    }
}

// MARK: Serving from an outside event loop

extension SelectionOwner {
    /// The part of `serve()` that runs between events, for a loop that serves several owners on
    /// one connection (the Pasteboard model) instead of calling `serve()`: drops transfers whose
    /// requestor vanished or stalled, and gives the selection up once `expiry` has passed.
    ///
    /// - Returns: when this owner next needs to run without an event (a transfer timeout, the expiry).
    func runDueWork() -> Deadline {
        dropFailedTransfers()
        dropStalledTransfers()
        if !expired, isOwner, expiresAt.hasPassed {
            expired = true
            relinquish()
        }
        let expiry = expired || !isOwner ? Deadline.never : expiresAt
        return transfers.values.reduce(expiry) { $0.earlier($1.deadline) }
    }

    /// Whether an INCR transfer is still going (a clipboard manager hand-off waits for them).
    var hasTransfersInFlight: Bool { !transfers.isEmpty }
}
