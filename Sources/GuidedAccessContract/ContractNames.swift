// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
@_exported import GuidedAccessVocabulary

// The bus names (BusNames.swift) as DBusKit's checked types, for the daemon
// and the client library alike. They are constants of the contract: a name
// libdbus rejected would be a typo in this module, found by the first test.

extension BusName {
    /// `org.guidedaccess.GuidedAccess1`.
    public static let guidedAccess = checked(GuidedAccessBus.name, BusName.init(validating:))
}

extension ObjectPath {
    /// `/org/guidedaccess/GuidedAccess1`: the service object and ObjectManager root.
    public static let guidedAccess = checked(GuidedAccessBus.objectPath, ObjectPath.init(validating:))

    /// The object of one custom restriction: the identifier escaped into one
    /// path element below `/restriction/`; `nil` when no path can hold it.
    public static func restriction(_ identifier: String) -> ObjectPath? {
        try? ObjectPath(validating: GuidedAccessBus.restrictionPathPrefix + ObjectPath.escapeElement(identifier))
    }

    /// The identifier whose restriction object is at `path`; nil for any other path.
    public static func restrictionIdentifier(at path: ObjectPath) -> String? {
        guard path.rawValue.hasPrefix(GuidedAccessBus.restrictionPathPrefix) else { return nil }
        return ObjectPath.unescapeElement(path.rawValue.dropFirst(GuidedAccessBus.restrictionPathPrefix.count))
    }
}

extension ServiceInterface {
    /// The interface name as DBusKit takes it.
    public var name: InterfaceName { checked(rawValue, InterfaceName.init(validating:)) }
}

extension ServiceErrorName {
    /// The error name as DBusKit takes it.
    public var dbusName: ErrorName { checked(rawValue, ErrorName.init(validating:)) }

    /// The row of the table a service error reply carries; `nil` for errors
    /// from elsewhere (the bus, a timeout, another service).
    public init?(_ error: DBusError) {
        self.init(rawValue: error.name.rawValue)
    }
}

func checked<Name>(_ raw: String, _ make: (String) throws -> Name) -> Name {
    do {
        return try make(raw)
    } catch {
        preconditionFailure("GuidedAccessContract spells an invalid D-Bus name: \(error)")
    }
}
