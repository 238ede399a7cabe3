// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import GuidedAccessContract
import GuidedAccessCore

#if canImport(Glibc)
import Glibc
import Locking
#endif

/// Shells and compositors that enforce the session on screen, each as it
/// said with `RegisterEnforcer`, until it withdraws (an empty list) or its
/// connection leaves the bus. The service only reports them (`Enforcers`,
/// `SystemRestrictionSources`); what they do on screen is theirs.
final class EnforcerRegistry: Sendable {
    private struct Registration {
        let connection: BusName
        let name: String
        let capabilities: [String]
    }

    private struct State {
        /// In registration order, one per connection.
        var registrations: [Registration] = []
        /// Every connection that registered and is still on the bus, withdrawn
        /// or not: one watch on its leaving is enough.
        var watched: Set<BusName> = []

        /// Drops what `connection` enforces; the name and capabilities it
        /// had registered, or nil when it had none.
        mutating func dropRegistration(of connection: BusName) -> Withdrawn? {
            guard let index = registrations.firstIndex(where: { $0.connection == connection }) else { return nil }
            let registration = registrations.remove(at: index)
            return Withdrawn(name: registration.name, capabilities: registration.capabilities)
        }
    }

    private let state = Locked(State())

    /// What a connection enforced until it withdrew or left.
    struct Withdrawn {
        let name: String
        let capabilities: [String]
    }

    /// Records (or replaces) what `connection` enforces. `isNew` when this
    /// connection is new, so its leaving is still to be watched; `lost`, what
    /// it enforced before and no longer does.
    func register(_ connection: BusName, name: String, capabilities: [String]) -> (isNew: Bool, lost: Set<String>) {
        state.withLock { state in
            let before = state.dropRegistration(of: connection)?.capabilities ?? []
            state.registrations.append(Registration(connection: connection, name: name, capabilities: capabilities))
            return (state.watched.insert(connection).inserted, Set(before).subtracting(capabilities))
        }
    }

    /// Drops what `connection` enforces while it stays on the bus; what it
    /// had registered, or nil when it had none.
    func withdraw(_ connection: BusName) -> Withdrawn? {
        state.withLock { state in state.dropRegistration(of: connection) }
    }

    /// Forgets `connection`, which left the bus; what it had registered, or
    /// nil when it had none (it had withdrawn).
    func remove(_ connection: BusName) -> Withdrawn? {
        state.withLock { state in
            state.watched.remove(connection)
            return state.dropRegistration(of: connection)
        }
    }

    /// The name `connection` enforces under now, nil when it does not.
    func name(of connection: BusName) -> String? {
        state.withLock { state in state.registrations.first { $0.connection == connection }?.name }
    }

    /// Whether any connection enforces under `name` now.
    func isRegistered(_ name: String) -> Bool {
        state.withLock { state in state.registrations.contains { $0.name == name } }
    }

    /// `Enforcers`: name → what it enforces. When two connections use one
    /// name, the later registration is shown.
    var byName: [String: [String]] {
        state.withLock { state in
            var names: [String: [String]] = [:]
            for registration in state.registrations { names[registration.name] = registration.capabilities }
            return names
        }
    }

    /// `SystemRestrictionSources`: `shell:NAME` for each enforcer that covers
    /// a restriction, before the desktop's own entries (which still apply);
    /// `published` only while nothing enforces it.
    func sources(merging desktop: [String: String]) -> [String: String] {
        let enforcers = byName
        return desktop.reduce(into: [:]) { sources, entry in
            let (restriction, desktopSource) = entry
            let shells = enforcers.filter { $0.value.contains(restriction) }.keys.sorted().map { "shell:\($0)" }
            let own = desktopSource == "published" && !shells.isEmpty ? [] : [desktopSource]
            sources[restriction] = (shells + own).joined(separator: ",")
        }
    }
}

extension GuidedAccessService {
    /// Longest enforcer name accepted, in bytes.
    static let maxEnforcerNameBytes = 64

    /// `RegisterEnforcer`: no polkit check, as it changes nothing but what
    /// the service reports; callers of another user are refused like every call.
    /// An empty list withdraws the caller's registration: during a session
    /// that is handled like its connection leaving (a known enforcer is
    /// turned back on).
    func registerEnforcer(_ call: MethodCall, name: String, restrictions: [String]) async throws {
        try Self.validateEnforcer(name: name, capabilities: restrictions)
        let caller = try await identify(call)
        let bus = call.connection
        guard !restrictions.isEmpty else {
            guard let registered = enforcers.withdraw(caller.busName) else { return }
            log("enforcer \(registered.name) (\(caller.busName), \(caller.app)) withdrew")
            call.afterReply {
                self.announceEnforcers()
                self.enforcerDropped(registered.name, lost: Set(registered.capabilities))
            }
            Task { await reviveEnforcer(named: registered.name, on: bus) }
            return
        }
        var capabilities: [String] = []
        for capability in restrictions where !capabilities.contains(capability) { capabilities.append(capability) }
        let (isNew, lost) = enforcers.register(caller.busName, name: name, capabilities: capabilities)
        log("enforcer \(name) (\(caller.busName), \(caller.app)) enforces: \(capabilities.joined(separator: ", "))")
        call.afterReply {
            self.announceEnforcers()
            self.enforcerDropped(name, lost: lost)
        }
        guard isNew else { return }
        Task {
            do {
                for await owner in try await bus.watchOwner(of: caller.busName) where owner == nil { break }
            } catch {
                log("cannot watch enforcer \(name) (\(caller.busName)): \(error); treating it as gone")
            }
            if let registered = enforcers.remove(caller.busName) {
                log("enforcer \(registered.name) (\(caller.busName)) left the bus")
                announceEnforcers()
                enforcerDropped(registered.name, lost: Set(registered.capabilities))
                await reviveEnforcer(named: registered.name, on: bus)
            }
        }
    }

    static func validateEnforcer(name: String, capabilities: [String]) throws(DomainError) {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard !name.isEmpty, name.utf8.count <= maxEnforcerNameBytes, allowed else {
            throw .invalidArgument(
                "the enforcer name must be 1 to \(maxEnforcerNameBytes) of A-Z a-z 0-9 . _ -, e.g. gnome-shell")
        }
        for capability in capabilities where !EnforcedCapability.all.contains(capability) {
            throw .invalidArgument(
                "\(capability) is nothing an enforcer can enforce; use any of \(EnforcedCapability.all.joined(separator: ", "))")
        }
    }

    /// `LaunchApp`: launches the session's app for a registered enforcer,
    /// at most ``LaunchBudget/limit`` times a minute per session. Nothing
    /// else can be launched this way, so no polkit check: any process of the
    /// user can start that app anyway.
    func launchApp(_ call: MethodCall) async throws {
        let caller = try await identify(call)
        guard let enforcer = enforcers.name(of: caller.busName) else {
            throw DomainError.permissionDenied(
                "only an enforcer may launch the locked app: call RegisterEnforcer on this connection first")
        }
        let (app, session) = read { ($0.enabled ? $0.app : nil, $0.startedAtMicroseconds) }
        guard let app else { throw DomainError.notActive("no Guided Access session is active; there is no app to launch") }
        guard let launcher else { throw DomainError.failed("this daemon cannot start programs; end the session with the gesture") }
        guard launchBudget.withLock({ $0.take(session: session, now: Date()) }) else {
            throw DomainError.quotaExceeded(
                "\(app) was launched \(LaunchBudget.limit) times in the last minute; the person ends the session with the gesture")
        }
        try await model.io.run { try launcher.launch(app) }
        log("launched \(app) again for enforcer \(enforcer) (\(caller.busName))")
    }

    /// `GetAppIds`: the ids of a process of this service's user, so an
    /// enforcer matches windows by the same rule as the service.
    func appIDs(ofProcess pid: UInt32) throws(DomainError) -> [String] {
        var info = stat()
        guard pid > 0, stat("/proc/\(pid)", &info) == 0 else {
            throw .invalidArgument("no process has pid \(pid)")
        }
        guard info.st_uid == getuid() else {
            throw .permissionDenied(
                "process \(pid) belongs to user \(info.st_uid); this service gives the app ids of user \(getuid())'s processes only")
        }
        return CallerIdentity.appIDs(of: pid, procRoot: "/proc")
    }
}
