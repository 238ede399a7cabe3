import DBusKit
import GuidedAccessContract

/// How long the client library waits for the service.
enum ServiceCalls {
    /// Calls that may wait for a person to authenticate get this long.
    static let interactiveTimeout: Duration = .seconds(300)
    /// Everything else.
    static let timeout: Duration = .seconds(25)
}

extension Connection {
    /// Calls a member of the Guided Access service object.
    func callService(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue] = [],
                     interactive: Bool = false) async throws -> [DBusValue] {
        try await call(BusName.guidedAccess, ObjectPath.guidedAccess, interface, member, arguments,
                       allowInteractiveAuthorization: interactive,
                       timeout: interactive ? ServiceCalls.interactiveTimeout : ServiceCalls.timeout)
    }

    /// `org.freedesktop.DBus.Properties.Get` on the service object.
    func serviceProperty(_ interface: InterfaceName, _ name: String) async throws -> DBusValue {
        let reply = try await callService(.properties, "Get", [.string(interface.rawValue), .string(name)])
        guard case .variant(let value)? = reply.first else {
            throw DBusError.failed("Get(\(interface), \(name)) returned no value")
        }
        return value
    }

    /// `org.freedesktop.DBus.Properties.GetAll` on the service object.
    func serviceProperties(_ interface: InterfaceName) async throws -> [String: Variant] {
        let reply = try await callService(.properties, "GetAll", [.string(interface.rawValue)])
        guard let first = reply.first else { throw DBusError.failed("GetAll(\(interface)) returned nothing") }
        return try [String: Variant](dbusValue: first)
    }
}

extension DBusValue {
    /// An `a{sv}` options dictionary.
    static func options(_ values: [String: Variant]) -> DBusValue { values.dbusValue }
}
