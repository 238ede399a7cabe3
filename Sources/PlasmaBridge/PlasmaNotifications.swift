// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessCore
import Locking

/// Plasma's do-not-disturb for a session that denies `notifications`:
/// plasmashell's `org.freedesktop.Notifications` `Inhibit`, held while the
/// session runs and released at its end (`UnInhibit`).
///
/// An inhibition is not a file: nothing of the user's is overwritten, so
/// the original saved is "none" and putting it back is the `UnInhibit`.
/// Plasma drops an inhibition when its caller leaves the bus, so a killed
/// daemon leaves none behind and the restarted one inhibits again. The
/// person can clear it in the notifications applet, and plasmashell can
/// restart: `Inhibited` going false, or a new owner of the name, is
/// reported as a loosening, and the next settle inhibits again.
final class PlasmaNotifications: SessionSettingsApplier, Sendable {
    /// The id in the state file.
    static let id = "org.freedesktop.Notifications:Inhibit"
    static let service: BusName = "org.freedesktop.Notifications"
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"

    private struct State {
        var connection: Connection?
        /// The inhibition held, as plasmashell numbered it.
        var cookie: UInt32?
        /// A denied session asked for it before the daemon was on the bus.
        var owed = false
        /// Why the last `Inhibit` failed (no plasmashell, an error), until one works.
        var failure: String?
    }

    private let state = Locked(State())
    /// Told when the inhibition is gone while a session holds it.
    private let loosened: @Sendable () -> Void

    init(loosened: @escaping @Sendable () -> Void) { self.loosened = loosened }

    func source(of restriction: SystemRestriction) -> String {
        guard restriction == .notifications, state.withLock({ $0.failure == nil }) else { return "published" }
        return "plasma:\(Self.interface).Inhibit"
    }

    func settings(for demand: DesktopDemand) -> [String] {
        demand.denied.contains(.notifications) ? [Self.id] : []
    }

    func originals(of settings: [String]) -> [String: SavedSetting] {
        Dictionary(uniqueKeysWithValues: settings.filter(owns).map { ($0, SavedSetting(userValue: nil)) })
    }

    func owns(_ setting: String) -> Bool { setting == Self.id }

    /// Inhibits, unless already held; waits for plasmashell's answer
    /// (blocking: the settle runs on the thread for blocking work).
    func apply(_ demand: DesktopDemand) -> [String] {
        guard demand.denied.contains(.notifications) else { return [] }
        guard let connection = state.withLock({ state -> Connection? in
            if state.connection == nil { state.owed = true }
            return state.cookie == nil ? state.connection : nil
        }) else { return [] }
        do {
            let reply = try BlockingBus.wait {
                try await connection.call(Message.methodCall(
                    destination: Self.service, path: Self.path, interface: Self.interface, member: "Inhibit",
                    arguments: [.string("guided-access"), .string("Guided Access session"), .dictionary(key: "s", value: "v", [])],
                    autoStart: false), timeout: .seconds(5))
            }
            guard case .uint32(let cookie)? = reply.arguments.first else { throw PlasmaSettingError("Inhibit answered \(reply.arguments)") }
            state.withLock { $0.cookie = cookie; $0.failure = nil }
            return []
        } catch {
            let first = state.withLock { state -> Bool in
                defer { state.failure = "\(error)" }
                return state.failure == nil
            }
            return first ? ["cannot deny notifications through plasmashell's do-not-disturb (\(Self.interface).Inhibit): \(error); "
                            + "SystemRestrictionSources no longer names it"] : []
        }
    }

    /// Releases the inhibition held, if any.
    func restore(_ originals: [String: SavedSetting]) -> [String] {
        guard originals[Self.id] != nil,
              let (connection, cookie) = state.withLock({ state -> (Connection, UInt32)? in
                  defer { state.cookie = nil }
                  guard let connection = state.connection, let cookie = state.cookie else { return nil }
                  return (connection, cookie)
              }) else { return [] }
        do {
            _ = try BlockingBus.wait {
                try await connection.call(Self.service, Self.path, Self.interface, "UnInhibit", [.uint32(cookie)], timeout: .seconds(5))
            }
            return []
        } catch {
            return ["cannot release plasmashell's do-not-disturb (UnInhibit \(cookie)): \(error)"]
        }
    }

    /// Follows `Inhibited` and the name's owner on `connection`; a session
    /// denied before this is settled again now.
    func connect(to connection: Connection) async {
        let owed = state.withLock { state -> Bool in
            defer { state.connection = connection; state.owed = false }
            return state.owed
        }
        if let changes = try? await connection.signals(MatchRule(sender: Self.service, path: Self.path, interface: .properties,
                                                                 member: "PropertiesChanged")) {
            Task { [weak self] in
                for await change in changes {
                    guard change.arguments.first == .string(Self.interface.rawValue),
                          case .dictionary(_, _, let entries)? = change.arguments.dropFirst().first,
                          entries.contains(where: { $0.key == .string("Inhibited") && $0.value == .variant(.bool(false)) }) else { continue }
                    self?.lost()
                }
            }
        }
        if let owners = try? await connection.watchOwner(of: Self.service) {
            Task { [weak self] in
                var first = true
                for await _ in owners {
                    if !first { self?.lost() }
                    first = false
                }
            }
        }
        if owed { loosened() }
    }

    /// The inhibition held is gone (cleared by the person, or plasmashell restarted).
    private func lost() {
        let held = state.withLock { state -> Bool in
            defer { state.cookie = nil }
            return state.cookie != nil
        }
        if held { loosened() }
    }
}
