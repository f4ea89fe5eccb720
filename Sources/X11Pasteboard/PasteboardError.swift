/// What went wrong talking to the X server, in words a user can act on.
public struct PasteboardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; callers switch on this.
    public enum Code: Sendable, Hashable {
        /// No display name was given and `$DISPLAY` is not set.
        case noDisplay
        /// The display could not be opened (no server, refused authorisation).
        case cannotOpenDisplay
        /// The server lacks a needed extension (XFixes).
        case missingExtension
        /// Nobody owns the selection.
        case noOwner
        /// The owner does not offer the requested target, or refused the conversion.
        case targetNotOffered
        /// The owner stopped answering for longer than the timeout.
        case timedOut
        /// The owner sent something the protocol does not allow.
        case protocolViolation
        /// Another client took the selection before we could serve it.
        case ownershipRefused
        /// Writing the received data failed (a closed pipe, a full disk).
        case outputFailed
        /// The X server went away (or its socket cannot be waited on); the connection is
        /// unusable, and the next `Pasteboard` call opens a new one.
        case connectionLost
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence describing the failure, without a trailing period.
    public var message: String

    /// Creates an error with a human-readable message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, ready for a `xpb: …` line.
    public var description: String { message }
}

extension PasteboardError {
    /// The server of `displayName` is gone.
    static func connectionLost(_ displayName: String) -> PasteboardError {
        PasteboardError(.connectionLost, "lost the connection to the X server \"\(displayName)\"")
    }
}

extension PasteboardError {
    /// A read brought more than `limit` bytes and was abandoned.
    static func tooLarge(_ limit: Int) -> PasteboardError {
        PasteboardError(.outputFailed, "the data is larger than the limit of \(limit) bytes")
    }
}
