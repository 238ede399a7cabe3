// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import Locking

/// What the client knows, readable from any thread.
struct ServiceSnapshot: Sendable {
    var owner: BusName?
    var isEnabled = false
    var features: [AccessibilityFeature: Bool] = [:]
    var restrictions: [String: GuidedAccessRestrictionState] = [:]
    var delegate: (any GuidedAccessRestrictionDelegate)?
}

/// Work for the client's one synchronizing task, handled strictly in order.
enum ClientEvent: Sendable {
    case owner(BusName?)
    case signal(Message)
    case delegateChanged(CheckedContinuation<Void, any Error>?)
    case refresh(CheckedContinuation<Void, Never>)
}

/// Owns the connection, the cache and the task that keeps the cache fresh.
final class ClientEngine: Sendable {
    let connection: Connection?
    /// The service object on `connection`, called through the contract.
    var service: Proxy? { connection.map(Proxy.guidedAccess) }
    private let ownsConnection: Bool
    let snapshot = Locked(ServiceSnapshot())
    let statusChanges = Broadcaster<Bool>()
    let restrictionChanges = Broadcaster<GuidedAccessRestrictionChange>()
    let featureChanges: [AccessibilityFeature: Broadcaster<Bool>]
    private let events: AsyncStream<ClientEvent>
    private let sink: AsyncStream<ClientEvent>.Continuation
    private let tasks = Locked<[Task<Void, Never>]>([])

    init(connection: Connection?, ownsConnection: Bool = true) {
        self.connection = connection
        self.ownsConnection = ownsConnection
        featureChanges = Dictionary(uniqueKeysWithValues: AccessibilityFeature.allCases.map { ($0, Broadcaster<Bool>()) })
        (events, sink) = AsyncStream<ClientEvent>.makeStream(bufferingPolicy: .unbounded)
    }

    func send(_ event: ClientEvent) {
        if case .terminated = sink.yield(event) {
            // Shut down: answer waiters instead of leaving them hanging.
            switch event {
            case .delegateChanged(let done): done?.resume()
            case .refresh(let done): done.resume()
            default: break
            }
        }
    }

    func start() {
        let events = self.events
        let task = Task { [self] in
            var synchronizer = ClientSynchronizer(engine: self)
            await synchronizer.subscribe()
            for await event in events { await synchronizer.handle(event) }
        }
        tasks.withLock { $0.append(task) }
    }

    /// Feeds a stream into the event queue until it ends.
    func pump<S: AsyncSequence & Sendable>(_ stream: S, _ wrap: @escaping @Sendable (S.Element) -> ClientEvent)
        where S.Element: Sendable {
        let sink = self.sink
        let task = Task {
            do { for try await element in stream { sink.yield(wrap(element)) } } catch {}
        }
        tasks.withLock { $0.append(task) }
    }

    func shutDown() {
        sink.finish()
        for task in tasks.withLock({ $0 }).dropFirst() { task.cancel() }
        if ownsConnection { connection?.close() }
        statusChanges.finish()
        restrictionChanges.finish()
        for broadcaster in featureChanges.values { broadcaster.finish() }
    }

    // MARK: Cache updates (report only real changes)

    func setEnabled(_ enabled: Bool) {
        let changed = snapshot.withLock { state in
            defer { state.isEnabled = enabled }
            return state.isEnabled != enabled
        }
        if changed { statusChanges.yield(enabled) }
    }

    func setFeature(_ feature: AccessibilityFeature, _ enabled: Bool) {
        let changed = snapshot.withLock { state in
            defer { state.features[feature] = enabled }
            return (state.features[feature] ?? false) != enabled
        }
        if changed { featureChanges[feature]?.yield(enabled) }
    }

    /// Returns true when the state really changed; the caller announces it.
    func setRestriction(_ identifier: String, _ newState: GuidedAccessRestrictionState) -> Bool {
        snapshot.withLock { state in
            defer { state.restrictions[identifier] = newState }
            return (state.restrictions[identifier] ?? .allow) != newState
        }
    }
}

/// Runs inside the engine's task: subscribes, follows the service's owner,
/// applies signals and re-synchronizes after restarts. Not shared, so its
/// bookkeeping needs no lock.
struct ClientSynchronizer {
    let engine: ClientEngine
    /// The owner the cache and registrations belong to.
    private var owner: BusName?
    /// Identifiers registered with `owner` on this connection.
    private var registered: [String] = []

    init(engine: ClientEngine) { self.engine = engine }

    /// Signals first, then the owner watch, so nothing between the two is lost.
    func subscribe() async {
        guard let connection = engine.connection else { return }
        do {
            let signals = try await connection.signals(MatchRule(sender: BusName.guidedAccess, path: ObjectPath.guidedAccess))
            engine.pump(signals) { .signal($0) }
            let owners = try await connection.watchOwner(of: BusName.guidedAccess)
            engine.pump(owners) { .owner($0) }
        } catch {
            // The bus went away; the cache keeps its defaults.
        }
    }

    mutating func handle(_ event: ClientEvent) async {
        switch event {
        case .owner(let newOwner):
            _ = await follow(newOwner)
        case .signal(let message):
            apply(message)
        case .delegateChanged(let done):
            // The owner watch may not have reported yet; ask the bus, so a
            // delegate set right after start-up is registered before this returns.
            let current = await currentOwner()
            let failure: (any Error)?
            if current != owner {
                failure = await follow(current)
            } else {
                do { try await registerDelegate(); failure = nil } catch { failure = error }
            }
            if let failure { done?.resume(throwing: GuidedAccessError(failure)) } else { done?.resume() }
        case .refresh(let done):
            let current = await currentOwner()
            if current != owner { _ = await follow(current) } else if owner != nil { _ = await resynchronize() }
            done.resume()
        }
    }

    private func currentOwner() async -> BusName? {
        guard let connection = engine.connection else { return nil }
        return try? await connection.owner(of: BusName.guidedAccess)
    }

    /// Adopts a new owner: registrations belong to the old one, so redo them
    /// and re-read everything. Returns the registration error, if any.
    private mutating func follow(_ newOwner: BusName?) async -> (any Error)? {
        guard newOwner != owner else { return nil }
        owner = newOwner
        registered = []
        engine.snapshot.withLock { $0.owner = newOwner }
        return newOwner != nil ? await resynchronize() : nil
    }

    /// Registers the delegate with the current owner and reads everything.
    /// Returns the registration error, if any; reading goes on regardless.
    private mutating func resynchronize() async -> (any Error)? {
        var failure: (any Error)? = nil
        do { try await registerDelegate() } catch { failure = error }
        guard let service = engine.service, owner != nil else { return failure }
        if let enabled = try? await service.get(Contract.Session.enabled) {
            engine.setEnabled(enabled)
        }
        if let features = try? await service.getAll(ServiceInterface.features.name) {
            applyFeatures(features)
        }
        let known = engine.snapshot.withLock { Array($0.restrictions.keys) }
        await readStates(Array(Set(known).union(registered)).sorted())
        return failure
    }

    /// Brings the registration in line with the current delegate.
    private mutating func registerDelegate() async throws {
        guard let service = engine.service, owner != nil else { return }
        let delegate = engine.snapshot.withLock(\.delegate)
        let identifiers = delegate?.guidedAccessRestrictionIdentifiers ?? []
        if !registered.isEmpty {
            try? await service.call(Contract.Restrictions.unregister, registered)
            registered = []
        }
        guard let delegate, !identifiers.isEmpty else { return }
        let entries = identifiers.map { identifier in
            RestrictionEntry(identifier: identifier, text: delegate.textForGuidedAccessRestriction(withIdentifier: identifier),
                             detail: delegate.detailTextForGuidedAccessRestriction(withIdentifier: identifier) ?? "")
        }
        _ = try await service.call(Contract.Restrictions.register, entries)
        registered = identifiers
        await readStates(identifiers)
    }

    private func readStates(_ identifiers: [String]) async {
        guard let service = engine.service else { return }
        for identifier in identifiers {
            guard let raw = try? await service.call(Contract.Restrictions.getState, identifier),
                  let state = GuidedAccessRestrictionState(rawValue: raw) else { continue }
            restrictionChanged(identifier, state)
        }
    }

    /// The delegate hears first, so an app has adapted before anyone
    /// waiting on `restrictionChanges` goes on.
    private func restrictionChanged(_ identifier: String, _ state: GuidedAccessRestrictionState) {
        guard engine.setRestriction(identifier, state) else { return }
        if registered.contains(identifier), let delegate = engine.snapshot.withLock(\.delegate) {
            delegate.guidedAccessRestriction(withIdentifier: identifier, didChange: state)
        }
        engine.restrictionChanges.yield(.init(identifier: identifier, state: state))
    }

    private func apply(_ message: Message) {
        if let enabled = Contract.Session.statusChanged.arguments(of: message) {
            engine.setEnabled(enabled)
        } else if let (identifier, raw) = Contract.Restrictions.restrictionChanged.arguments(of: message) {
            guard let state = GuidedAccessRestrictionState(rawValue: raw) else { return }
            restrictionChanged(identifier, state)
        } else if let (interface, changed, _) = StandardSignals.propertiesChanged.arguments(of: message) {
            applyPropertiesChanged(interface, changed)
        }
    }

    private func applyPropertiesChanged(_ interface: String, _ changed: [String: Variant]) {
        if interface == ServiceInterface.session.name.rawValue, let enabled = Contract.Session.enabled.value(in: changed) {
            engine.setEnabled(enabled)
        }
        if interface == ServiceInterface.features.name.rawValue {
            applyFeatures(changed)
        }
        // Properties here all emit their values; invalidations would need a
        // re-read, which the next resynchronization does.
    }

    private func applyFeatures(_ values: [String: Variant]) {
        for feature in AccessibilityFeature.allCases {
            if let enabled = Contract.Features.enabled(feature).value(in: values) { engine.setFeature(feature, enabled) }
        }
    }
}
