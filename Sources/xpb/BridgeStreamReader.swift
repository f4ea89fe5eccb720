import Glibc
import Synchronization
import SystemPackage
import UniformTypes
import X11Pasteboard

/// Reads the far side's frames and acts on them: offers become publications for the X thread,
/// requests are answered from what was announced, data goes to the paste waiting for it.
struct BridgeStreamReader: @unchecked Sendable {
    let session: BridgeSession

    func run() -> Never {
        let input = session.input
        let reader = BridgeFrameReader(limits: BridgeLimits(maxSize: session.maxSize)) { buffer in
            try FileDescriptor(rawValue: input).read(into: buffer)
        }
        var greeted = false
        do throws(BridgeProtocolError) {
            while let frame = try reader.next() {
                switch frame {
                case let .hello(version, peerOrigin):
                    guard version == BridgeFrame.version else {
                        throw BridgeProtocolError("the other side speaks protocol version \(version); this xpb speaks \(BridgeFrame.version)")
                    }
                    greeted = true
                    session.received.peerOrigin = peerOrigin
                    session.greeting.greeted = true
                case .bye where greeted:
                    session.stopping.stop()
                default:
                    guard greeted else { throw BridgeProtocolError("the other side did not start with a hello") }
                    handle(frame)
                }
            }
        } catch {
            StandardError.write("xpb: bridge: \(error.message)\n")
            _exit(1)
        }
        if !greeted, let peer = session.peer {
            StandardError.write("xpb: bridge: \(peer.describeEnd())\n")
            _exit(1)
        }
        session.stopping.stop()
    }

    private func handle(_ frame: BridgeFrame) {
        switch frame {
        case let .offer(offer):
            let index = session.crossing.receivedOne()
            guard !session.sendOnly, session.names.contains(offer.selection), offer.origin != session.origin,
                !offer.isSensitive
            else { return }
            session.inbox.post(Publication(
                selection: offer.selection, content: session.content(for: offer), stamp: CopyStamp(index: index, seen: offer.seen)))
        case let .request(origin, generation, selection, target):
            let bytes = session.receiveOnly
                ? nil : session.announced.bytes(origin: origin, generation: generation, selection: selection, target: target)
            session.writer.send(.data(origin: origin, generation: generation, selection: selection, target: target, bytes: bytes))
        case let .data(origin, generation, selection, target, bytes):
            session.fetches.deliver(origin: origin, generation: generation, selection: selection, target: target, bytes: bytes)
        case .hello, .bye:
            break
        }
    }
}

/// Whether the far side has greeted, for the writer's thread to read.
final class Greeting: Sendable {
    private let value = Atomic(false)

    var greeted: Bool {
        get { value.load(ordering: .acquiring) }
        set { value.store(newValue, ordering: .releasing) }
    }
}

/// A side and its inbox, for a paste waiting on the connection's thread (inside a conversion)
/// to take the far side's new copies meanwhile.
struct SideHandOff: @unchecked Sendable {
    let side: SyncSide
    let inbox: Mailbox<Publication>

    /// Takes what the inbox holds (on the connection's thread).
    func takeInbox() {
        side.take(inbox)
    }
}

/// What the stream's thread learnt for the X thread: the far side's origin id.
final class ReceivedOffers: Sendable {
    private let origin = Atomic<UInt64>(0)

    /// The far side's origin id (0 before its hello).
    var peerOrigin: UInt64 {
        get { origin.load(ordering: .acquiring) }
        set { origin.store(newValue, ordering: .releasing) }
    }
}

/// The end of a bridge's stream, from the thread that noticed it: pastes still waiting for the
/// far side are refused, and the X thread is asked to stop (it hands CLIPBOARD to the clipboard
/// manager, then ends the process). The calling thread waits for that.
final class Stopping: @unchecked Sendable {
    /// Set once, before any thread can call `stop`.
    var session: (fetches: RemoteFetches, inbox: Mailbox<Publication>)?

    func stop() -> Never {
        session?.fetches.close()
        SyncStop.request(waking: session.map { [$0.inbox] } ?? [])
        // The X thread ends the process once the hand-off is done (at most a few seconds);
        // should it not, this one does.
        sleep(15)
        _exit(0)
    }
}
