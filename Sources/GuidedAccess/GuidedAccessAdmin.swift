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

    // MARK: Signals

    /// Every signal the service sends, from any of its objects, as it arrives.
    /// Works before the service starts and across its restarts.
    public func signals() async throws -> AsyncStream<GuidedAccessSignal> {
        let messages: AsyncStream<Message>
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

/// Why an administrative request failed, with the service's own message.
public struct GuidedAccessAdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failure classes a script may want to tell apart.
    public enum Reason: Sendable, Hashable {
        /// polkit or the service said no (`PermissionDenied`, bus `AccessDenied`).
        case permissionDenied
        /// polkit would ask the person, but the call did not allow interaction.
        case interactiveAuthorizationRequired
        /// The bus or the service cannot be reached.
        case serviceUnavailable
        /// The request needs an active session (`NotActive`).
        case notActive
        /// The request needs no session (`AlreadyActive`).
        case alreadyActive
        /// The caller does not own what it tries to change (`NotOwner`).
        case notOwner
        /// Too many wrong passcodes (`RateLimited`).
        case rateLimited
        /// An argument was refused (`InvalidArgument`, `UnknownFeature`).
        case invalidArgument
        /// Too many registrations (`QuotaExceeded`).
        case quotaExceeded
        /// Anything else (`Failed`, timeouts, unexpected replies).
        case failed
    }

    /// The failure class.
    public let reason: Reason
    /// The D-Bus error name, or "" for failures found locally.
    public let name: String
    /// The service's error, from the contract's table; `nil` when the
    /// failure came from elsewhere (the bus, a timeout, this process).
    public var serviceError: ServiceErrorName? { ServiceErrorName(rawValue: name) }
    /// What was wrong, as the service or the bus said it.
    public let message: String

    /// Creates an error.
    public init(reason: Reason, name: String, message: String) {
        self.reason = reason
        self.name = name
        self.message = message
    }

    /// Classifies a `DBusError` by its name.
    init(_ error: any Error) {
        if let error = error as? GuidedAccessAdminError { self = error; return }
        guard let error = error as? DBusError else {
            self.init(reason: .failed, name: "", message: String(describing: error))
            return
        }
        let name = error.name.rawValue
        let reason: Reason
        if let serviceError = ServiceErrorName(error) {
            reason = switch serviceError {
            case .permissionDenied: .permissionDenied
            case .notActive: .notActive
            case .alreadyActive: .alreadyActive
            case .notOwner: .notOwner
            case .rateLimited: .rateLimited
            case .invalidArgument, .unknownFeature: .invalidArgument
            case .quotaExceeded: .quotaExceeded
            case .failed: .failed
            }
        } else {
            switch error.name {
            case .accessDenied: reason = .permissionDenied
            case .interactiveAuthorizationRequired: reason = .interactiveAuthorizationRequired
            case .invalidArgs: reason = .invalidArgument
            case .serviceUnknown, .nameHasNoOwner, .disconnected, .noServer: reason = .serviceUnavailable
            case let other: reason = other.isSpawnFailure ? .serviceUnavailable : .failed
            }
        }
        self.init(reason: reason, name: name, message: error.message)
    }

    public var description: String { message }
}

/// Options for ``GuidedAccessAdmin/start(app:options:interactive:)``, and
/// what ``GuidedAccessAdmin/lastOptions(for:)`` answers.
public struct GuidedAccessSessionOptions: Sendable, Hashable {
    /// Seconds until the session expires; nil for no limit.
    public var timeLimit: UInt64?
    /// Built-in restrictions by name (`sleep-wake-button`, ...) → state.
    public var systemRestrictions: [String: GuidedAccessRestrictionState]
    /// Screen regions where input is ignored.
    public var disabledRegions: [GuidedAccessRegion]
    /// Custom restriction states to apply for the session.
    public var restrictions: [String: GuidedAccessRestrictionState]
    /// How the enforcer shows the app's windows; nil for the default (`as-is`).
    public var presentation: GuidedAccessPresentation?
    /// Seconds of inactivity before the screen blanks during the session,
    /// 0 = never (``AutoLock/never``), -1 = the desktop's own (``AutoLock/desktop``);
    /// nil for the default, the desktop's own.
    public var autoLock: Int64?

    /// Creates options; everything defaults to "none".
    public init(timeLimit: UInt64? = nil, systemRestrictions: [String: GuidedAccessRestrictionState] = [:],
                disabledRegions: [GuidedAccessRegion] = [], restrictions: [String: GuidedAccessRestrictionState] = [:],
                presentation: GuidedAccessPresentation? = nil, autoLock: Int64? = nil) {
        self.timeLimit = timeLimit
        self.systemRestrictions = systemRestrictions
        self.disabledRegions = disabledRegions
        self.restrictions = restrictions
        self.presentation = presentation
        self.autoLock = autoLock
    }

    var wireValue: [String: Variant] {
        let option = Contract.Session.StartOptions.self
        var options: [String: Variant] = [:]
        options[option.timeLimit] = timeLimit
        if !systemRestrictions.isEmpty { options[option.systemRestrictions] = systemRestrictions.mapValues(\.rawValue) }
        if !disabledRegions.isEmpty { options[option.disabledRegions] = disabledRegions.map(\.wireValue) }
        if !restrictions.isEmpty { options[option.restrictions] = restrictions.mapValues(\.rawValue) }
        options[option.presentation] = presentation?.rawValue
        options[option.autoLock] = autoLock
        return options
    }

    /// Reads `GetLastOptions`' answer; entries of another type or value are left out.
    init(_ wire: [String: Variant]) {
        let option = Contract.Session.StartOptions.self
        func states(_ map: [String: String]?) -> [String: GuidedAccessRestrictionState] {
            (map ?? [:]).compactMapValues(GuidedAccessRestrictionState.init(rawValue:))
        }
        self.init(timeLimit: wire[option.timeLimit].flatMap { $0 == 0 ? nil : $0 },
                  systemRestrictions: states(wire[option.systemRestrictions]),
                  disabledRegions: (wire[option.disabledRegions] ?? []).map(GuidedAccessRegion.init),
                  restrictions: states(wire[option.restrictions]),
                  presentation: wire[option.presentation].flatMap(GuidedAccessPresentation.init(rawValue:)),
                  autoLock: wire[option.autoLock])
    }
}

/// How the locked app's windows are shown during a session (the contract's names).
public typealias GuidedAccessPresentation = Presentation

/// The built-in restrictions every session has (the contract's names).
public typealias GuidedAccessSystemRestriction = SystemRestriction

/// A screen rectangle in pixels.
public struct GuidedAccessRegion: Sendable, Hashable {
    public var x: Int32, y: Int32, width: Int32, height: Int32
    /// Creates a region.
    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    var wireValue: WireRegion { WireRegion(x: x, y: y, width: width, height: height) }
    init(_ wire: WireRegion) { self.init(x: wire.x, y: wire.y, width: wire.width, height: wire.height) }
}

/// A snapshot of `org.guidedaccess.GuidedAccess1`'s properties.
public struct GuidedAccessStatus: Sendable, Hashable {
    /// Interface version.
    public var version: UInt32
    /// A session is active.
    public var isEnabled: Bool
    /// `inactive`, `active` or `expired`.
    public var state: String
    /// The locked app's id, "" when inactive.
    public var app: String
    /// Microseconds since the epoch, 0 when inactive.
    public var startedAt: UInt64
    /// Seconds, 0 for none.
    public var timeLimit: UInt64
    /// Seconds left.
    public var timeRemaining: UInt64
    /// Built-in restriction name → `allow`/`deny`.
    public var systemRestrictions: [String: String]
    /// Built-in restriction name → where it is enforced: `shell:NAME` for each
    /// registered enforcer, then `gsettings:SCHEMA/KEY` entries, joined by
    /// commas; `published` when nothing enforces it yet.
    public var systemRestrictionSources: [String: String]
    /// Shells enforcing the session on screen: name → what each enforces.
    public var enforcers: [String: [String]]
    /// Regions where input is ignored.
    public var disabledRegions: [GuidedAccessRegion]
    /// A passcode is configured.
    public var isPasscodeSet: Bool
    /// Apps that may lock themselves.
    public var allowedApplications: [String]
    /// How the enforcer shows the app's windows: `as-is`, `maximized`, `fullscreen`.
    public var presentation: String
    /// Seconds before the screen blanks during the session, 0 = never, -1 = the desktop's own.
    public var autoLock: Int64

    init(_ properties: [String: Variant]) {
        let session = Contract.Session.self
        version = session.version.value(in: properties) ?? 0
        isEnabled = session.enabled.value(in: properties) ?? false
        state = session.state.value(in: properties) ?? ""
        app = session.app.value(in: properties) ?? ""
        startedAt = session.startedAt.value(in: properties) ?? 0
        timeLimit = session.timeLimit.value(in: properties) ?? 0
        timeRemaining = session.timeRemaining.value(in: properties) ?? 0
        systemRestrictions = session.systemRestrictions.value(in: properties) ?? [:]
        systemRestrictionSources = session.systemRestrictionSources.value(in: properties) ?? [:]
        enforcers = session.enforcers.value(in: properties) ?? [:]
        disabledRegions = (session.disabledRegions.value(in: properties) ?? []).map(GuidedAccessRegion.init)
        isPasscodeSet = session.passcodeSet.value(in: properties) ?? false
        allowedApplications = session.allowedApplications.value(in: properties) ?? []
        presentation = session.presentation.value(in: properties) ?? Presentation.asIs.rawValue
        autoLock = session.autoLock.value(in: properties) ?? AutoLock.desktop
    }
}

/// One row of `Restrictions1.List`.
public struct GuidedAccessRestrictionInfo: Sendable, Hashable {
    public var identifier: String
    public var text: String
    public var detailText: String
    public var state: String
    /// The app that registered it.
    public var app: String
    /// Its registering connection is still alive.
    public var isRegistered: Bool
    /// managed.json sets its state; nobody can change it.
    public var isForced: Bool

    init(_ row: RestrictionRow, isForced: Bool) {
        identifier = row.identifier
        text = row.text
        detailText = row.detail
        state = row.state
        app = row.app
        isRegistered = row.registered
        self.isForced = isForced
    }
}

/// A feature's value and where the desktop keeps it.
public struct GuidedAccessFeatureInfo: Sendable, Hashable {
    public var feature: AccessibilityFeature
    public var isEnabled: Bool
    /// `service`, `gsettings:SCHEMA/KEY`, `atspi`, ...
    public var source: String
    /// Who keeps it from changing: `managed` (managed.json's
    /// `LockedFeatures`) or `desktop` (a dconf lock); nil when nobody does.
    public var lockedBy: String?
}

/// A signal from the service.
public struct GuidedAccessSignal: Sendable {
    /// The object that sent it.
    public var path: String
    /// Its interface.
    public var interface: String
    /// Its name.
    public var member: String
    /// Its arguments.
    public var arguments: [DBusValue]

    init(_ message: Message) {
        path = message.path?.rawValue ?? ""
        interface = message.interface?.rawValue ?? ""
        member = message.member?.rawValue ?? ""
        arguments = message.arguments
    }
}
