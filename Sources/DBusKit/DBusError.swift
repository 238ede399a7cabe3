// SPDX-License-Identifier: LGPL-2.1-or-later
/// A D-Bus error: a name from the error namespace plus a human message.
///
/// Method handlers throw these (or any `DBusErrorConvertible`) to reply with
/// that exact name; callers receive them from failed calls.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    public let name: ErrorName
    public let message: String

    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    public static func failed(_ message: String) -> DBusError { .init(.failed, message) }
    public static func invalidArgs(_ message: String) -> DBusError { .init(.invalidArgs, message) }
    public static func unknownMethod(_ message: String) -> DBusError { .init(.unknownMethod, message) }
    public static func unknownObject(_ message: String) -> DBusError { .init(.unknownObject, message) }
    public static func unknownInterface(_ message: String) -> DBusError { .init(.unknownInterface, message) }
    public static func unknownProperty(_ message: String) -> DBusError { .init(.unknownProperty, message) }
    public static func propertyReadOnly(_ message: String) -> DBusError { .init(.propertyReadOnly, message) }
    public static func accessDenied(_ message: String) -> DBusError { .init(.accessDenied, message) }
    public static func limitsExceeded(_ message: String) -> DBusError { .init(.limitsExceeded, message) }
    public static func noReply(_ message: String) -> DBusError { .init(.noReply, message) }
    public static func disconnected(_ message: String) -> DBusError { .init(.disconnected, message) }
    public static func interactiveAuthorizationRequired(_ message: String) -> DBusError {
        .init(.interactiveAuthorizationRequired, message)
    }
}

/// An error that knows which D-Bus error it is, so a handler can throw its
/// own domain errors and the caller still sees a precise name.
public protocol DBusErrorConvertible: Error {
    var dbusError: DBusError { get }
}

extension DBusError: DBusErrorConvertible {
    public var dbusError: DBusError { self }
}

extension DBusError {
    /// Maps any error thrown by a handler to what goes on the wire.
    static func from(_ error: any Error) -> DBusError {
        switch error {
        case let convertible as any DBusErrorConvertible: convertible.dbusError
        case let invalid as InvalidNameError: .invalidArgs(invalid.description)
        case let marshalling as MarshallingError: .invalidArgs(marshalling.description)
        default: .failed(String(describing: error))
        }
    }
}

/// The standard errors of the D-Bus specification (`org.freedesktop.DBus.Error.*`)
/// that buses, libdbus and this library send, each spelled here once; match
/// them by name: `case .accessDenied:` on an ``ErrorName``.
extension ErrorName {
    /// A generic failure with no more specific name.
    public static let failed: ErrorName = "org.freedesktop.DBus.Error.Failed"
    /// The arguments do not fit the method (wrong types, bad values).
    public static let invalidArgs: ErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    /// The object has no such method.
    public static let unknownMethod: ErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    /// Nothing is exported at the path.
    public static let unknownObject: ErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    /// The object does not implement the interface.
    public static let unknownInterface: ErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    /// The interface has no such property.
    public static let unknownProperty: ErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
    /// The property cannot be set.
    public static let propertyReadOnly: ErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    /// The caller may not do this.
    public static let accessDenied: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    /// A limit was reached (the bus's pending replies, a sender's calls in flight).
    public static let limitsExceeded: ErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
    /// No reply came within the call's timeout.
    public static let noReply: ErrorName = "org.freedesktop.DBus.Error.NoReply"
    /// The connection to the bus is closed.
    public static let disconnected: ErrorName = "org.freedesktop.DBus.Error.Disconnected"
    /// No bus could be reached at the address.
    public static let noServer: ErrorName = "org.freedesktop.DBus.Error.NoServer"
    /// Nobody owns the name and no service file can start an owner.
    public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// Nobody owns the name (the bus's answer to `GetNameOwner`).
    public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// The action needs authorization the caller could give interactively,
    /// had it allowed interactive authorization on the call.
    public static let interactiveAuthorizationRequired: ErrorName = "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

    /// True for `org.freedesktop.DBus.Error.Spawn.*`: the bus could not start
    /// the activatable service that owns the destination.
    public var isSpawnFailure: Bool { rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.") }
}
