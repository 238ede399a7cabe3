// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc

/// A string that libdbus would reject, refused before it reaches libdbus
/// (libdbus aborts the process on invalid input instead of failing).
public struct InvalidNameError: Error, CustomStringConvertible, Sendable {
    /// What kind of value was rejected ("object path", "bus name", ...).
    public let kind: String
    /// The rejected value, escaped for printing.
    public let value: String
    public var description: String { "invalid D-Bus \(kind): \(value.debugDescription)" }
}

/// Runs one of libdbus's `dbus_validate_*` functions on a Swift string.
/// Embedded NUL bytes are rejected first: C would silently truncate there.
func libdbusAccepts(_ value: String, _ validate: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t) -> Bool {
    value.withCString { cString in
        // A NUL inside the string shows as a C string shorter than the Swift one.
        strlen(cString) == value.utf8.count && validate(cString, nil) != 0
    }
}

/// Declares a checked string type: a value exists only if libdbus accepts it.
public protocol CheckedName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The validated string.
    var rawValue: String { get }
    /// Creates the name, or throws `InvalidNameError` when libdbus would reject it.
    init(validating rawValue: String) throws
}

extension CheckedName {
    public var description: String { rawValue }
    /// Literals are written by programmers; a bad one is a programming error.
    public init(stringLiteral value: String) {
        do { try self.init(validating: value) } catch { preconditionFailure("\(error)") }
    }
}

/// A D-Bus object path such as `/org/example/Object`.
public struct ObjectPath: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_validate_path) else { throw InvalidNameError(kind: "object path", value: rawValue) }
        self.rawValue = rawValue
    }
    /// The root path `/`.
    public static let root: ObjectPath = "/"

    /// Appends one element; `element` must already be a valid path element.
    public func appending(_ element: String) throws -> ObjectPath {
        try ObjectPath(validating: rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` lies strictly below `ancestor`.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        if ancestor.rawValue == "/" { return rawValue != "/" }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    /// Escapes an arbitrary string into a single path element, the way sd-bus
    /// does: `[A-Za-z0-9]` are kept, every other byte becomes `_XX` (hex).
    public static func escapeElement(_ text: String) -> String {
        if text.isEmpty { return "_" }
        var out = ""
        for byte in text.utf8 {
            let c = Character(UnicodeScalar(byte))
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                out.append(c)
            } else {
                out += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The string `escapeElement` made `element` from; nil when `element`
    /// is not such an escape (a `_` not followed by two hex digits).
    public static func unescapeElement(_ element: Substring) -> String? {
        if element == "_" { return "" }
        var bytes: [UInt8] = []
        var rest = element.utf8[...]
        while let first = rest.first {
            guard first == UInt8(ascii: "_") else {
                bytes.append(first)
                rest = rest.dropFirst()
                continue
            }
            guard rest.count >= 3, let byte = UInt8(String(decoding: rest.dropFirst().prefix(2), as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
            rest = rest.dropFirst(3)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// A unique (`:1.42`) or well-known (`org.example.Service`) bus name.
public struct BusName: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_validate_bus_name) else { throw InvalidNameError(kind: "bus name", value: rawValue) }
        self.rawValue = rawValue
    }
    /// True for names the bus assigned to a connection (`:1.42`).
    public var isUnique: Bool { rawValue.hasPrefix(":") }
    /// The bus itself.
    public static let bus: BusName = "org.freedesktop.DBus"
}

/// An interface name such as `org.example.Interface`.
public struct InterfaceName: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_validate_interface) else { throw InvalidNameError(kind: "interface name", value: rawValue) }
        self.rawValue = rawValue
    }
    public static let properties: InterfaceName = "org.freedesktop.DBus.Properties"
    public static let introspectable: InterfaceName = "org.freedesktop.DBus.Introspectable"
    public static let peer: InterfaceName = "org.freedesktop.DBus.Peer"
    public static let objectManager: InterfaceName = "org.freedesktop.DBus.ObjectManager"
    public static let bus: InterfaceName = "org.freedesktop.DBus"
}

/// A method or signal name such as `GetAll`.
public struct MemberName: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_validate_member) else { throw InvalidNameError(kind: "member name", value: rawValue) }
        self.rawValue = rawValue
    }
}

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs`.
public struct ErrorName: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_validate_error_name) else { throw InvalidNameError(kind: "error name", value: rawValue) }
        self.rawValue = rawValue
    }
}

/// A type signature: zero or more complete types, such as `a{sv}i`.
public struct Signature: CheckedName {
    public let rawValue: String
    public init(validating rawValue: String) throws {
        guard libdbusAccepts(rawValue, dbus_signature_validate) else { throw InvalidNameError(kind: "signature", value: rawValue) }
        self.rawValue = rawValue
    }
    /// The empty signature (no values).
    public static let empty: Signature = ""

    /// Splits into its complete types (`a{sv}i` → `a{sv}`, `i`).
    public var completeTypes: [Signature] {
        var result: [Signature] = []
        var iter = DBusSignatureIter()
        guard !rawValue.isEmpty else { return [] }
        rawValue.withCString { cString in
            dbus_signature_iter_init(&iter, cString)
            repeat {
                if let sig = dbus_signature_iter_get_signature(&iter) {
                    result.append(Signature(unchecked: String(cString: sig)))
                    dbus_free(sig)
                }
            } while dbus_signature_iter_next(&iter) != 0
        }
        return result
    }

    init(unchecked: String) { rawValue = unchecked }
}

/// Checks a string for what libdbus requires of every string argument:
/// valid UTF-8 and no NUL byte.
public func validateDBusString(_ value: String) throws {
    guard libdbusAccepts(value, dbus_validate_utf8) else { throw InvalidNameError(kind: "string", value: value) }
}
