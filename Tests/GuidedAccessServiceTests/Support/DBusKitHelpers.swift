// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import Locking
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

// MARK: - DBusKit helpers

/// The contract's interfaces as the helpers take them: `client.ga(.session, "Start", …)`.
extension InterfaceName {
    static let session = ServiceInterface.session.name
    static let features = ServiceInterface.features.name
    static let restrictions = ServiceInterface.restrictions.name
    static let restriction = ServiceInterface.restriction.name
}

extension Connection {
    /// Calls a member of the service; returns the reply body.
    func ga(_ interface: InterfaceName, _ member: String, _ arguments: [DBusValue] = [], path: String = GuidedAccessBus.objectPath,
            interactive: Bool = false, timeout: Duration = .seconds(20)) async throws -> [DBusValue] {
        try await call(.guidedAccess, ObjectPath(validating: path), interface,
                       MemberName(validating: member), arguments, allowInteractiveAuthorization: interactive, timeout: timeout)
    }

    /// The D-Bus error name a call fails with, or nil when it succeeds.
    func gaError(_ interface: InterfaceName, _ member: String, _ arguments: [DBusValue] = [], path: String = GuidedAccessBus.objectPath,
                 interactive: Bool = false) async -> String? {
        do {
            _ = try await ga(interface, member, arguments, path: path, interactive: interactive)
            return nil
        } catch let error as DBusError {
            return error.name.rawValue
        } catch {
            return "\(error)"
        }
    }

    /// `org.freedesktop.DBus.Properties.Get`, unwrapped from its variant.
    func property(_ interface: InterfaceName, _ name: String, path: String = GuidedAccessBus.objectPath) async throws -> DBusValue {
        let reply = try await ga(.properties, "Get", [.string(interface.rawValue), .string(name)], path: path)
        guard case .variant(let value)? = reply.first else { throw HarnessError("Get \(name) gave \(reply)") }
        return value
    }

    func property<T: DBusType>(_ interface: InterfaceName, _ name: String, as type: T.Type, path: String = GuidedAccessBus.objectPath) async throws -> T {
        try T(dbusValue: try await property(interface, name, path: path))
    }

    func state() async throws -> String { try await property(.session, "State", as: String.self) }
    func enabled() async throws -> Bool { try await property(.session, "Enabled", as: Bool.self) }

    /// `List()` as rows of (identifier, text, detail, state, app, registered).
    func list() async throws -> [ListRow] {
        let reply = try await ga(.restrictions, "List")
        guard case .array(_, let rows)? = reply.first else { throw HarnessError("List gave \(reply)") }
        return try rows.map { row in
            guard case .structure(let fields) = row, fields.count == 6,
                  case .string(let identifier) = fields[0], case .string(let text) = fields[1],
                  case .string(let detail) = fields[2], case .string(let state) = fields[3],
                  case .string(let app) = fields[4], case .bool(let registered) = fields[5] else {
                throw HarnessError("unexpected List row \(row)")
            }
            return ListRow(identifier: identifier, text: text, detail: detail, state: state, app: app, registered: registered)
        }
    }

    /// Subscribes to a signal of the service's main object (or `path`).
    func gaSignals(_ interface: InterfaceName, _ member: String? = nil, path: String? = GuidedAccessBus.objectPath) async throws
        -> SignalStream {
        try await signals(MatchRule(path: try path.map(ObjectPath.init(validating:)), interface: interface,
                                    member: try member.map(MemberName.init(validating:))))
    }
}

struct ListRow: Hashable, Sendable {
    let identifier, text, detail, state, app: String
    let registered: Bool
}

/// An `a{sv}` value.
func options(_ entries: [String: DBusValue]) -> DBusValue {
    .dictionary(key: "s", value: "v", entries.sorted { $0.key < $1.key }.map {
        DBusValue.DictionaryEntry(key: .string($0.key), value: .variant($0.value))
    })
}

/// An `a{ss}` value.
func stringMap(_ entries: [String: String]) -> DBusValue {
    .dictionary(key: "s", value: "s", entries.sorted { $0.key < $1.key }.map {
        DBusValue.DictionaryEntry(key: .string($0.key), value: .string($0.value))
    })
}

/// An `as` value.
func strings(_ values: [String]) -> DBusValue { .array(element: "s", values.map { .string($0) }) }

/// An `a(sss)` value for Register.
func declarations(_ entries: [(String, String, String)]) -> DBusValue {
    .array(element: "(sss)", entries.map { .structure([.string($0.0), .string($0.1), .string($0.2)]) })
}



/// Collects messages from `stream` for `duration`.
func collect(_ stream: SignalStream, for duration: Duration) async -> [Message] {
    let task = Task {
        var received: [Message] = []
        for await message in stream { received.append(message) }
        return received
    }
    try? await Task.sleep(for: duration)
    task.cancel()
    return await task.value
}

/// A program on the bus that only counts the calls of one method, as a
/// stand-in for one that is told to read its settings again (KWin's
/// `reconfigure`, PowerDevil's `refreshStatus`).
final class CountedMethod: Sendable {
    let connection: Connection
    private let count = Locked(0)

    var calls: Int { count.withLock { $0 } }

    init(address: String, name: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName) async throws {
        connection = try Connection(.address(address))
        connection.export(path, [Interface(interface, [
            .method(member) { (_: MethodCall) in self.count.withLock { $0 += 1 } },
        ])])
        try await connection.requestName(name)
    }

    func close() { connection.close() }
}
