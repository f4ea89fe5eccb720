/// One message of the bridge protocol (docs/bridge-protocol.md): what two `xpb bridge`
/// processes say to each other over a byte stream.
///
/// On the wire every frame is a kind byte, a 64-bit big-endian payload length and the payload;
/// the length is checked against the reader's limit before anything is allocated for it.
public enum BridgeFrame: Sendable, Equatable {
    /// The first frame each side sends: the protocol version it speaks and its origin id (a
    /// random number naming this bridge process, so that content never comes back to it).
    case hello(version: Int, origin: UInt64)
    /// A selection changed on the sender's side: what it now holds.
    case offer(BridgeOffer)
    /// Asks for the bytes of one announced representation of the copy (origin, generation):
    /// the origin too, since generations are counted by each origin and a bridge forwards
    /// copies of several.
    case request(origin: UInt64, generation: UInt64, selection: String, target: String)
    /// The bytes of a requested representation; nil when the sender no longer has them (a
    /// newer copy replaced them, or the owner refused).
    case data(origin: UInt64, generation: UInt64, selection: String, target: String, bytes: [UInt8]?)
    /// The sender is leaving; the stream ends after this.
    case bye

    /// The protocol version this build speaks (2: offers say what they saw; requests and data
    /// name the copy's origin).
    public static let version = 2
    /// The bytes every hello payload starts with, so that a stream that is not a bridge (a
    /// shell's greeting through ssh, say) is recognised as such.
    static let magic: [UInt8] = Array("XPB-BRIDGE".utf8)

    enum Kind: UInt8 {
        case hello = 1, offer = 2, request = 3, data = 4, bye = 5
    }
}

/// What a selection holds, as one side announces it: every representation with its size, and
/// the bytes of those that travel at once.
public struct BridgeOffer: Sendable, Equatable {
    /// One representation.
    public struct Item: Sendable, Equatable {
        /// The target atom's name.
        public var target: String
        /// The property type's name.
        public var type: String
        /// 8, 16 or 32.
        public var format: Int
        /// The size in bytes.
        public var size: UInt64
        /// The bytes, when they travel with the offer; nil when they cross only on request.
        public var bytes: [UInt8]?

        /// Creates an item.
        public init(target: String, type: String, format: Int, size: UInt64, bytes: [UInt8]?) {
            self.target = target
            self.type = type
            self.format = format
            self.size = size
            self.bytes = bytes
        }
    }

    /// The process where the content was first copied (its hello origin id).
    public var origin: UInt64
    /// The origin's counter of copies: (origin, generation) names one copy everywhere.
    public var generation: UInt64
    /// How many offers the sender had received on this stream when it sent this one: an offer
    /// that did not see the receiver's own latest offer of the same selection crossed it
    /// (copies on both sides at once), and both sides then keep the same one of the two.
    public var seen: UInt64
    /// The selection's atom name.
    public var selection: String
    /// The representations, in the owner's order.
    public var items: [Item]

    /// Creates an offer.
    public init(origin: UInt64, generation: UInt64, seen: UInt64 = 0, selection: String, items: [Item]) {
        self.origin = origin
        self.generation = generation
        self.seen = seen
        self.selection = selection
        self.items = items
    }
}

/// Why a bridge stream was refused: a message for the one `xpb: bridge: …` line.
public struct BridgeProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for people.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// The limits a reader holds a stream to: nothing larger is allocated.
public struct BridgeLimits: Sendable {
    /// The largest payload of one frame.
    public var maxFrame: UInt64
    /// The most representations one offer may carry: each target becomes an atom on the
    /// receiving display, and atoms are never freed.
    public var maxItems = BridgeOffer.maxItems
    /// The longest target, type or selection name.
    public var maxName = 4096

    /// Limits for content of at most `maxSize` bytes.
    public init(maxSize: Int) {
        // A data frame carries one representation plus its names; an offer also carries names.
        maxFrame = UInt64(maxSize) + 1 << 20
    }
}
