// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import Synchronization

/// The app's view of Guided Access: session status, custom restrictions,
/// accessibility settings and the requests an app may make — UIKit's
/// `UIAccessibility` Guided Access API over the `guided-accessd` service.
///
/// Getters are synchronous and cheap: they read a cache that the client keeps
/// fresh from the service's signals. The client follows the service across
/// restarts: when `org.guidedaccess.GuidedAccess1` gets a new owner it
/// registers the delegate's restrictions again, re-reads everything and
/// reports what changed meanwhile. While the service has never been seen,
/// reads return the defaults (not enabled, `.allow`, features off) and nothing
/// throws; while it restarts, the last known values stay (the service keeps
/// its state across restarts, so an app does not flip to *allow* for a moment).
public final class GuidedAccessClient: Sendable {
    /// The client for the user's session bus, created on first use.
    public static let shared = GuidedAccessClient()

    let engine: ClientEngine

    /// Connects to `bus`. When the bus cannot be reached, the client still
    /// works and reports the defaults.
    public init(bus: BusAddress = .session) {
        engine = ClientEngine(connection: try? Connection(bus))
        engine.start()
    }

    /// Connects to the bus at a D-Bus address such as `unix:path=/run/bus`.
    public convenience init(address: String) {
        self.init(bus: .address(address))
    }

    /// Uses an existing connection (its signals are shared with other users of it).
    public init(connection: Connection) {
        engine = ClientEngine(connection: connection, ownsConnection: false)
        engine.start()
    }

    deinit { engine.shutDown() }

    // MARK: Session status

    /// A Guided Access session is active (UIKit `isGuidedAccessEnabled`).
    public var isGuidedAccessEnabled: Bool { engine.snapshot.withLock(\.isEnabled) }

    /// Yields the new status every time a session starts or ends
    /// (UIKit `guidedAccessStatusDidChangeNotification`).
    public var statusChanges: AsyncStream<Bool> { engine.statusChanges.stream() }

    /// The service currently has an owner on the bus.
    public var isServiceRunning: Bool { engine.snapshot.withLock { $0.owner != nil } }

    // MARK: Custom restrictions

    /// The object that declares this app's custom restrictions. Setting it
    /// registers them with the service in the background (use
    /// ``setRestrictionDelegate(_:)`` to wait and see errors). The client
    /// keeps a strong reference.
    public var restrictionDelegate: (any GuidedAccessRestrictionDelegate)? {
        get { engine.snapshot.withLock(\.delegate) }
        set {
            engine.snapshot.withLock { $0.delegate = newValue }
            engine.send(.delegateChanged(nil))
        }
    }

    /// Sets the delegate and waits until its restrictions are registered and
    /// their states read. When the service is not running this returns at
    /// once; registration happens when it appears.
    /// - Throws: ``GuidedAccessError`` when the service refuses the
    ///   registration (invalid identifier or text, too many restrictions).
    public func setRestrictionDelegate(_ delegate: (any GuidedAccessRestrictionDelegate)?) async throws {
        engine.snapshot.withLock { $0.delegate = delegate }
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            engine.send(.delegateChanged(done))
        }
    }

    /// The state of a custom restriction; `.allow` for identifiers the
    /// service has not reported and while the service is absent
    /// (UIKit `guidedAccessRestrictionState(forIdentifier:)`).
    public func guidedAccessRestrictionState(forIdentifier restrictionIdentifier: String) -> GuidedAccessRestrictionState {
        engine.snapshot.withLock { $0.restrictions[restrictionIdentifier] } ?? .allow
    }

    /// Yields every restriction change the client learns of, for any identifier.
    public var restrictionChanges: AsyncStream<GuidedAccessRestrictionChange> { engine.restrictionChanges.stream() }

    // MARK: Accessibility features

    /// The feature's current value; false while unknown.
    public func isEnabled(_ feature: AccessibilityFeature) -> Bool {
        engine.snapshot.withLock { $0.features[feature] } ?? false
    }

    /// Yields the feature's new value every time it changes
    /// (UIKit's `…StatusDidChangeNotification`s).
    public func changes(of feature: AccessibilityFeature) -> AsyncStream<Bool> {
        engine.featureChanges[feature]!.stream()
    }

    // MARK: Requests

    /// Asks to lock the desktop to this app (`true`) or to release it
    /// (`false`). Returns whether that happened; false for any error, e.g.
    /// the app is not allow-listed or another app holds the session.
    public func requestGuidedAccessSession(enabled: Bool) async -> Bool {
        guard let connection = engine.connection else { return false }
        do {
            let granted = try await Proxy.guidedAccess(connection).call(Contract.Session.requestSession, enabled, [:])
            if granted { await refresh() }
            return granted
        } catch {
            return false
        }
    }

    /// Switches accessibility features while this app is locked in Guided
    /// Access. An empty set does nothing.
    /// - Throws: ``GuidedAccessError`` — `.permissionDenied` when this app is
    ///   not the locked app (and not an administrator), `.failed` otherwise
    ///   (no active session, service unreachable, ...).
    public func configureForGuidedAccess(features: GuidedAccessAccessibilityFeature, enabled: Bool) async throws {
        let names = features.wireNames
        guard !names.isEmpty else { return }
        guard let connection = engine.connection else {
            throw GuidedAccessError(.failed, "not connected to the session bus; Guided Access is unavailable")
        }
        do {
            try await Proxy.guidedAccess(connection).call(Contract.Features.configureForGuidedAccess, names, enabled)
        } catch {
            throw GuidedAccessError(error)
        }
    }

    /// Switches a feature the session's accessibility shortcut offers, while
    /// this app is the locked one: for an app that draws its own
    /// accessibility menu. The service puts it back when the session ends.
    /// - Throws: ``GuidedAccessError`` — `.permissionDenied` when this app is
    ///   not the locked app or the feature is not offered, `.failed` otherwise
    ///   (no session: ``GuidedAccessError/serviceError`` is `.notActive`).
    public func toggleAccessibilityFeature(_ feature: AccessibilityFeature, enabled: Bool) async throws {
        guard let connection = engine.connection else {
            throw GuidedAccessError(.failed, "not connected to the session bus; Guided Access is unavailable")
        }
        do {
            try await Proxy.guidedAccess(connection).call(Contract.Session.toggleAccessibilityFeature, feature.rawValue, enabled)
        } catch {
            throw GuidedAccessError(error)
        }
    }

    /// Re-reads status, features and restriction states from the service now
    /// and returns when the cache holds them (or the service is absent).
    public func refresh() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            engine.send(.refresh(done))
        }
    }
}
