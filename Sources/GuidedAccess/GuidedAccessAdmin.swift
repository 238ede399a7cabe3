// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import Locking

/// Administration of the Guided Access service, for tools such as the
/// `guided-access` CLI: start and end sessions, set the passcode, change
/// restrictions and features, read the full status, follow every signal.
///
/// Every method throws ``GuidedAccessAdminError``. Methods that change
/// something take `interactive`: when true the call carries D-Bus's
/// ALLOW_INTERACTIVE_AUTHORIZATION flag, so polkit may ask the person to
/// authenticate.
public final class GuidedAccessAdmin: Sendable {
    /// The bus connection the calls go through.
    public let connection: Connection

    /// Connects to `bus`.
    /// - Throws: ``GuidedAccessAdminError`` with reason `.serviceUnavailable`
    ///   when the bus cannot be reached.
    public init(bus: BusAddress = .session) throws {
        ownsConnection = true
        do {
            connection = try Connection(bus)
        } catch {
            throw GuidedAccessAdminError(reason: .serviceUnavailable, name: (error as? DBusError)?.name.rawValue ?? "",
                                         message: "cannot connect to the bus: \(error)")
        }
    }

    /// Uses an existing connection; the caller keeps closing it.
    public init(connection: Connection) {
        self.connection = connection
        ownsConnection = false
    }

    private let ownsConnection: Bool
    private let isClosed = Locked(false)

    /// libdbus aborts when a private connection is released unclosed.
    deinit { if ownsConnection { close() } }

    /// Closes the connection (also done when the admin is released); once only,
    /// as closing twice would join the connection's thread twice.
    public func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { connection.close() }
    }

    /// The service object, through the contract's declarations.
    private var service: Proxy { .guidedAccess(connection) }

    /// Runs one request; every failure becomes a ``GuidedAccessAdminError``.
    private func request<T>(_ body: (Proxy) async throws -> T) async throws -> T {
        do {
            return try await body(service)
        } catch {
            throw GuidedAccessAdminError(error)
        }
    }

    // MARK: Session

    /// Everything `org.guidedaccess.GuidedAccess1` reports about the session.
    public func status() async throws -> GuidedAccessStatus {
        GuidedAccessStatus(try await request { try await $0.getAll(ServiceInterface.session.name) })
    }

    /// Locks the desktop to `app` (`Start`).
    public func start(app: String, options: GuidedAccessSessionOptions = .init(), interactive: Bool = false) async throws {
        try await request {
            try await $0.call(Contract.Session.start, app, options.wireValue, interactively: interactive)
        }
    }

    /// The options of the last `Start` for `app` (`GetLastOptions`), as the
    /// service remembers them: all eight system restrictions, `presentation`
    /// and `autoLock` set, `timeLimit` nil for none; `nil` when it remembers
    /// none. `app` is normalised as `Start` normalises it.
    public func lastOptions(for app: String) async throws -> GuidedAccessSessionOptions? {
        let wire = try await request { try await $0.call(Contract.Session.getLastOptions, app) }
        return wire.isEmpty ? nil : GuidedAccessSessionOptions(wire)
    }

    /// Ends the session (`End`) with the passcode, or with polkit's
    /// end-session authority when `passcode` is nil or wrong.
    public func end(passcode: String? = nil, interactive: Bool = false) async throws {
        let option = Contract.Session.EndOptions.self
        var options: [String: Variant] = [:]
        options[option.passcode] = passcode
        if interactive { options[option.interactive] = true }
        try await request { try await $0.call(Contract.Session.end, options, interactively: interactive) }
    }

    /// Sets the session passcode (`SetPasscode`).
    public func setPasscode(_ passcode: String, interactive: Bool = false) async throws {
        try await request { try await $0.call(Contract.Session.setPasscode, passcode, interactively: interactive) }
    }

    /// Gives the running session more time (`ExtendTimeLimit`).
    public func extendTimeLimit(bySeconds seconds: UInt64, interactive: Bool = false) async throws {
        try await request { try await $0.call(Contract.Session.extendTimeLimit, seconds, interactively: interactive) }
    }

    // MARK: Enforcement on screen

    /// Every id the service gives process `pid` (`GetAppIds`), preferred
    /// first; a window belongs to the session when `App` is one of them.
    public func appIDs(ofProcess pid: UInt32) async throws -> [String] {
        try await request { try await $0.call(Contract.Session.getAppIds, pid) }
    }

    /// Tells the service what this connection enforces on screen
    /// (`RegisterEnforcer`), until it closes; a second call replaces the first.
    /// `capabilities`: `app-lock`, `disabled-regions` and system restriction
    /// names; none withdraws the registration (during a session the service
    /// then turns a known enforcer back on, as when the connection closes).
    public func registerEnforcer(name: String, enforcing capabilities: [String]) async throws {
        try await request { try await $0.call(Contract.Session.registerEnforcer, name, capabilities) }
    }

    // MARK: Restrictions

    /// Every known custom restriction (`List`), each marked when managed.json forces its state (`Forced`).
    public func restrictions() async throws -> [GuidedAccessRestrictionInfo] {
        let rows = try await request { try await $0.call(Contract.Restrictions.list) }
        let properties = try await request { try await $0.getAll(ServiceInterface.restrictions.name) }
        let forced = Set(Contract.Restrictions.forced.value(in: properties) ?? [])
        return rows.map { GuidedAccessRestrictionInfo($0, isForced: forced.contains($0.identifier)) }
    }

    /// The state of one restriction (`GetState`).
    public func restrictionState(_ identifier: String) async throws -> GuidedAccessRestrictionState {
        let raw = try await request { try await $0.call(Contract.Restrictions.getState, identifier) }
        guard let state = GuidedAccessRestrictionState(rawValue: raw) else {
            throw GuidedAccessAdminError(reason: .failed, name: "", message: "GetState returned an unknown state '\(raw)'")
        }
        return state
    }

    /// Denies or allows a restriction (`SetState`).
    public func setRestriction(_ identifier: String, to state: GuidedAccessRestrictionState, interactive: Bool = false) async throws {
        try await request {
            try await $0.call(Contract.Restrictions.setState, identifier, state.rawValue, interactively: interactive)
        }
    }

    /// Sets restrictions back to `allow`; all of them when `identifiers` is empty (`Reset`).
    public func resetRestrictions(_ identifiers: [String] = [], interactive: Bool = false) async throws {
        try await request { try await $0.call(Contract.Restrictions.reset, identifiers, interactively: interactive) }
    }

    // MARK: Features

    /// Every feature's value and where it is stored.
    public func features() async throws -> [GuidedAccessFeatureInfo] {
        let properties = try await request { try await $0.getAll(ServiceInterface.features.name) }
        let sources = Contract.Features.sources.value(in: properties) ?? [:]
        let locks = Contract.Features.locked.value(in: properties) ?? [:]
        return AccessibilityFeature.allCases.compactMap { feature in
            guard let enabled = Contract.Features.enabled(feature).value(in: properties) else { return nil }
            return GuidedAccessFeatureInfo(feature: feature, isEnabled: enabled, source: sources[feature.rawValue] ?? "",
                                           lockedBy: locks[feature.rawValue])
        }
    }

    /// Switches a feature (`SetFeature`).
    public func setFeature(_ feature: AccessibilityFeature, enabled: Bool, interactive: Bool = false) async throws {
        try await request {
            try await $0.call(Contract.Features.setFeature, feature.rawValue, enabled, interactively: interactive)
        }
    }

    /// Switches a feature of the running session's accessibility shortcut
    /// (`ToggleAccessibilityFeature`), as an enforcer's accessibility menu
    /// does: this connection must have called ``registerEnforcer(name:enforcing:)``.
    /// Put back when the session ends.
    public func toggleAccessibilityFeature(_ feature: AccessibilityFeature, enabled: Bool) async throws {
        try await request { try await $0.call(Contract.Session.toggleAccessibilityFeature, feature.rawValue, enabled) }
    }

    // MARK: Signals

    /// Every signal the service sends, from any of its objects, as it arrives.
    /// Works before the service starts and across its restarts.
    public func signals() async throws -> AsyncStream<GuidedAccessSignal> {
        let messages: SignalStream
        do {
            messages = try await connection.signals(MatchRule(sender: BusName.guidedAccess))
        } catch {
            throw GuidedAccessAdminError(error)
        }
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages { continuation.yield(GuidedAccessSignal(message)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// True when the service has an owner on the bus right now.
    public func isServiceRunning() async -> Bool {
        (try? await connection.owner(of: BusName.guidedAccess)) != nil
    }
}
