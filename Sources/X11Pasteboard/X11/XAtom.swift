/// An X atom: the server-side name of a selection, a target or a property.
///
/// Wraps Xlib's `Atom` so that code above the engine never sees a C integer.
public struct XAtom: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The atom's value on the X server.
    public let rawValue: UInt

    /// Wraps a raw atom value.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The atom that means "no atom" (Xlib's `None`).
    public static let none = XAtom(rawValue: 0)

    /// Predefined atoms whose values the core protocol fixes, so they need no round trip.
    public static let primary = XAtom(rawValue: 1)
    /// The predefined `SECONDARY` selection.
    public static let secondary = XAtom(rawValue: 2)
    /// The predefined `ATOM` type.
    public static let atom = XAtom(rawValue: 4)
    /// The predefined `INTEGER` type.
    public static let integer = XAtom(rawValue: 19)
    /// The predefined `STRING` type (ISO Latin-1 text).
    public static let string = XAtom(rawValue: 31)

    /// A short description for logs and test failures.
    public var description: String { "XAtom(\(rawValue))" }
}

/// An X window id.
public struct XWindow: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The window's id on the X server.
    public let rawValue: UInt

    /// Wraps a raw window id.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// No window (Xlib's `None`): what an unowned selection reports as its owner.
    public static let none = XWindow(rawValue: 0)

    /// The id in the `0x…` form xprop and xwininfo print.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// An X server timestamp in milliseconds; it wraps around every 49.7 days.
public struct XTimestamp: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The server time in milliseconds, modulo 2^32.
    public let rawValue: UInt32

    /// Wraps a raw server time.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Xlib's `CurrentTime`: "whenever the server gets to it", never a real time.
    public static let current = XTimestamp(rawValue: 0)

    /// Whether `self` is earlier than `other`, treating the 32-bit clock as circular
    /// (ICCCM §2.1: a server up for more than 24.8 days wraps half the range).
    public func isBefore(_ other: XTimestamp) -> Bool {
        let difference = other.rawValue &- rawValue
        return difference != 0 && difference < 0x8000_0000
    }

    /// The decimal server time.
    public var description: String { String(rawValue) }
}
