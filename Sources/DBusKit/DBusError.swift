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

    public static func failed(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.Failed", message) }
    public static func invalidArgs(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.InvalidArgs", message) }
    public static func unknownMethod(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.UnknownMethod", message) }
    public static func unknownObject(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.UnknownObject", message) }
    public static func unknownInterface(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.UnknownInterface", message) }
    public static func unknownProperty(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.UnknownProperty", message) }
    public static func propertyReadOnly(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.PropertyReadOnly", message) }
    public static func accessDenied(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.AccessDenied", message) }
    public static func limitsExceeded(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.LimitsExceeded", message) }
    public static func noReply(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.NoReply", message) }
    public static func disconnected(_ message: String) -> DBusError { .init("org.freedesktop.DBus.Error.Disconnected", message) }
    public static func interactiveAuthorizationRequired(_ message: String) -> DBusError {
        .init("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", message)
    }
    public static let nameHasNoOwnerName: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
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
