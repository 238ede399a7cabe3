// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessCore
import Locking

/// Global shortcuts a session unbinds in kglobalaccel (which runs inside
/// KWin on Wayland): the volume keys of the `kmix` component (plasma-pa
/// keeps kmix's names) for `volume-buttons`, and PowerDevil's sleep,
/// hibernate and power keys for `sleep-wake-button`.
///
/// Each action's keys are read before the session (``refreshOriginals()``),
/// kept in the state file, set to none with `setForeignShortcutKeys` (which
/// also tells the program that owns them) and set back at `End`.
/// kglobalaccel saves the empty binding in kglobalshortcutsrc, so after a
/// crash the keys stay unbound until the restarted daemon's `End` puts them
/// back from the state file. An action no program registered has no keys
/// and is left alone.
final class GlobalShortcutsOff: SessionSettingsApplier, Sendable {
    struct Action: Sendable {
        let component: String
        let name: String
        let restriction: SystemRestriction

        /// The id in the state file.
        var id: String { "kglobalaccel:\(component)/\(name)" }
        /// kglobalaccel's action id: component, action, and their (unused) friendly names.
        var wireID: DBusValue { .array(element: "s", [.string(component), .string(name), .string(""), .string("")]) }
    }

    static let actions: [Action] =
        ["increase_volume", "decrease_volume", "mute", "increase_volume_small", "decrease_volume_small"].map {
            Action(component: "kmix", name: $0, restriction: .volumeButtons)
        } + ["Sleep", "Hibernate", "PowerOff", "PowerDown"].map {
            Action(component: "org_kde_powerdevil", name: $0, restriction: .sleepWakeButton)
        }

    static let service: BusName = "org.kde.kglobalaccel"
    static let path: ObjectPath = "/kglobalaccel"
    static let interface: InterfaceName = "org.kde.KGlobalAccel"
    /// For all the calls of one read or write together: kglobalaccel lives
    /// in KWin, which a session must not wait on for long.
    static let timeout = Duration.seconds(2)

    private struct State {
        var connection: Connection?
        /// Each action's keys as last read (``KeyText``); absent: never read.
        var keys: [String: String] = [:]
        /// The actions this daemon unbound, until it binds them again.
        var unbound: Set<String> = []
    }

    private let state = Locked(State())

    func source(of restriction: SystemRestriction) -> String {
        let bound = state.withLock { state in
            Self.actions.filter { $0.restriction == restriction && (!(state.keys[$0.id] ?? "").isEmpty || state.unbound.contains($0.id)) }
        }
        guard !bound.isEmpty else { return "published" }
        return Set(bound.map { "kglobalaccel:\($0.component)" }).sorted().joined(separator: ",")
    }

    func settings(for demand: DesktopDemand) -> [String] {
        Self.actions.filter { demand.denied.contains($0.restriction) }.map(\.id)
    }

    /// From the copy ``refreshOriginals()`` made; an action never read is
    /// saved as unknown (nil), and put back to its default keys.
    func originals(of settings: [String]) -> [String: SavedSetting] {
        let keys = state.withLock { $0.keys }
        return Dictionary(uniqueKeysWithValues: settings.filter(owns).map { ($0, SavedSetting(userValue: keys[$0])) })
    }

    func owns(_ setting: String) -> Bool { setting.hasPrefix("kglobalaccel:") }

    var refreshesOriginals: Bool { true }

    func refreshOriginals() {
        guard let connection = state.withLock({ $0.connection }),
              let read = try? BlockingBus.wait({ try await Self.keys(of: Self.actions, on: connection) }) else { return }
        state.withLock { $0.keys.merge(read) { _, new in new } }
    }

    func apply(_ demand: DesktopDemand) -> [String] {
        let (connection, keys) = state.withLock { ($0.connection, $0.keys) }
        guard let connection else { return [] }
        let bound = Self.actions.filter { demand.denied.contains($0.restriction) && !(keys[$0.id] ?? "").isEmpty }
        guard !bound.isEmpty else { return [] }
        return set(bound.map { ($0, "") }, on: connection, purpose: "unbind")
    }

    func restore(_ originals: [String: SavedSetting]) -> [String] {
        guard let connection = state.withLock({ $0.connection }) else {
            return originals.keys.filter(owns).isEmpty ? [] : ["cannot put global shortcuts back: not on the bus yet"]
        }
        let byID = Dictionary(uniqueKeysWithValues: Self.actions.map { ($0.id, $0) })
        let writes = originals.compactMap { id, saved in byID[id].map { ($0, saved.userValue) } }
        guard !writes.isEmpty else { return [] }
        var problems: [String] = []
        // Unknown originals go back to kglobalaccel's defaults.
        let unknown = writes.filter { $0.1 == nil }.map(\.0)
        var known = writes.compactMap { action, text in text.map { (action, $0) } }
        if !unknown.isEmpty {
            do {
                let defaults = try BlockingBus.wait { try await Self.keys(of: unknown, on: connection, member: "defaultShortcutKeys") }
                known += unknown.map { ($0, defaults[$0.id] ?? "") }
            } catch {
                problems.append("cannot read the default keys of \(unknown.map(\.id).joined(separator: ", ")): \(error)")
            }
        }
        return problems + set(known, on: connection, purpose: "put back")
    }

    /// Reads the keys of each action from kglobalaccel on `connection`
    /// when the daemon is on the bus (and before each session after that).
    func connect(to connection: Connection) {
        state.withLock { $0.connection = connection }
    }

    /// Sets each action's keys; the problems, for the log.
    private func set(_ writes: [(Action, String)], on connection: Connection, purpose: String) -> [String] {
        do {
            try BlockingBus.wait {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (action, text) in writes {
                        group.addTask {
                            _ = try await connection.call(Message.methodCall(
                                destination: Self.service, path: Self.path, interface: Self.interface, member: "setForeignShortcutKeys",
                                arguments: [action.wireID, KeyText.value(text)], autoStart: false), timeout: Self.timeout)
                        }
                    }
                    try await group.waitForAll()
                }
            }
            state.withLock { state in
                for (action, text) in writes {
                    state.keys[action.id] = text
                    if text.isEmpty { state.unbound.insert(action.id) } else { state.unbound.remove(action.id) }
                }
            }
            return []
        } catch {
            return ["cannot \(purpose) the global shortcuts \(writes.map(\.0.id).joined(separator: ", ")) in kglobalaccel: \(error)"]
        }
    }

    /// Each action's keys (`shortcutKeys`, or `defaultShortcutKeys`), as ``KeyText``.
    private static func keys(of actions: [Action], on connection: Connection,
                             member: MemberName = "shortcutKeys") async throws -> [String: String] {
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            for action in actions {
                group.addTask {
                    let reply = try await connection.call(Message.methodCall(
                        destination: service, path: path, interface: interface, member: member,
                        arguments: [action.wireID], autoStart: false), timeout: timeout)
                    return (action.id, KeyText.text(reply.arguments.first))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }
}

/// A list of key sequences (kglobalaccel's `a(ai)`: up to four Qt key
/// codes each) as text for the state file: sequences separated by `;`,
/// codes by `,`; no keys is the empty text.
enum KeyText {
    static func text(_ value: DBusValue?) -> String {
        guard case .array(_, let sequences)? = value else { return "" }
        return sequences.compactMap { sequence -> String? in
            guard case .structure(let fields) = sequence, case .array(_, let codes)? = fields.first else { return nil }
            return codes.compactMap { code -> String? in
                if case .int32(let number) = code { return "\(number)" }
                return nil
            }.joined(separator: ",")
        }.joined(separator: ";")
    }

    static func value(_ text: String) -> DBusValue {
        let sequences = text.split(separator: ";").map { sequence in
            DBusValue.structure([.array(element: "i", sequence.split(separator: ",").compactMap { Int32($0) }.map(DBusValue.int32))])
        }
        return .array(element: "(ai)", sequences)
    }
}
