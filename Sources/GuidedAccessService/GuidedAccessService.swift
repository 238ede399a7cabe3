// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FileWatching
import FoundationEssentials
import GuidedAccessContract
import GuidedAccessCore
import Locking

/// Where the service keeps its state and whom it asks.
public struct ServiceConfiguration: Sendable {
    /// The bus to serve on.
    public var busAddress: BusAddress = .session
    /// `$XDG_STATE_HOME/guided-access` unless overridden.
    public var stateDirectory: String
    /// `/etc/guided-access/managed.json` unless overridden.
    public var managedConfigPath: String = ManagedConfig.defaultPath
    /// The bus polkit is on (the system bus outside tests).
    public var polkitAddress: BusAddress = .system
    /// How long a non-interactive polkit check may take before it counts as "no".
    public var polkitTimeout: Duration = .seconds(25)
    /// yescrypt cost of new passcode hashes (1–11); only tests lower it.
    public var passcodeCost: Int = PasscodeVault.defaultCost
    /// The desktop's settings that features and system restrictions map to;
    /// `nil` keeps every value in the service.
    public var desktop: (any DesktopSettings)?
    /// Starts the locked app again for enforcers that cannot (`LaunchApp`);
    /// nil: `LaunchApp` fails.
    public var launcher: (any AppLauncher)?
    /// Per enforcer name (as it registers), the user's setting that keeps
    /// it off even when its host is asked to turn it on; removed first when
    /// the daemon turns it back on during a session.
    public var enforcerOffSettings: [String: any EnforcerOffSetting] = [:]

    public init(stateDirectory: String) { self.stateDirectory = stateDirectory }
}

/// `guided-accessd`: binds `GuidedAccessModel` to the bus.
///
/// Every handler runs validate → authorize → change → write → reply → emit.
/// The model lives behind one lock held for in-memory work only: polkit,
/// passcode hashing and the write of `state.json` happen outside it, and the
/// state is checked again once polkit's answer is in.
public final class GuidedAccessService: Sendable {
    /// Method calls one connection may have running at once; more are
    /// refused with `RateLimited` at once (property reads are not counted:
    /// they are answered on the spot).
    public static let maxCallsInFlightPerSender = 32
    /// Room above the largest `Register` the limits allow (alignment, a
    /// caller's extra fields): calls larger than both are refused unread.
    static let messageSlackBytes = 64 * 1024

    let model: LockedModel
    /// Who did what, in the state directory.
    let auditLog: AuditLog
    /// Passcode checks, one at a time (see `end`); a check that waits
    /// suspends its task rather than blocking a thread.
    let passcodeChecks = AsyncLock()
    let polkit: PolkitAuthority
    /// Who called, per unique bus name.
    let callers = CallerIdentityCache()
    /// Shells enforcing the session on screen.
    let enforcers = EnforcerRegistry()
    /// Built on first use (its getters need `self`), then shared by every restriction object.
    let restrictionObject = Locked<Interface?>(nil)
    let desktop: (any DesktopSettings)?
    /// Named in refusals that the administrator can lift there.
    let managedConfigPath: String
    let enforcerOffSettings: [String: any EnforcerOffSetting]
    let launcher: (any AppLauncher)?
    /// `LaunchApp`'s launches in the current session.
    let launchBudget = Locked(LaunchBudget())
    private let connection: Locked<Connection?> = Locked(nil)
    private let deadlineTimer: Locked<Task<Void, Never>?> = Locked(nil)
    private let watchedOwners: Locked<Set<BusName>> = Locked([])
    private let heapRelease = HeapRelease()
    /// Follows managed.json once serving (ManagedPolicy.swift).
    let managedConfigWatcher = Locked<FileWatcher?>(nil)
    /// One reading of managed.json at a time, so an older read never lands after a newer one.
    let managedConfigReads = AsyncLock()
    /// `List`'s reply, kept marshalled until the model changes.
    let listReply: ReplyCache
    /// Messages for the daemon's log (startup warnings, audit failures).
    let log: @Sendable (String) -> Void

    /// Loads state and managed config; throws when managed config is malformed
    /// (a kiosk must not come up without its policy).
    public init(_ configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) throws {
        let managed = try ManagedConfig.load(from: configuration.managedConfigPath)
        let store = StateStore(directory: configuration.stateDirectory)
        var model = try store.loadModel(managedConfig: managed, passcodeCost: configuration.passcodeCost, now: Date())
        for warning in model.startupWarnings { log(warning) }
        Self.connect(&model, to: configuration.desktop, store: store, log: log)
        let listReply = ReplyCache()
        self.listReply = listReply
        self.model = LockedModel(model, store: store, log: log, changed: listReply.invalidate)
        auditLog = AuditLog(directory: configuration.stateDirectory)
        self.desktop = configuration.desktop
        managedConfigPath = configuration.managedConfigPath
        enforcerOffSettings = configuration.enforcerOffSettings
        launcher = configuration.launcher
        polkit = PolkitAuthority(address: configuration.polkitAddress, timeout: configuration.polkitTimeout)
        self.log = log
    }

    /// Routes the desktop's features, restrictions and a session's demands
    /// to it, pushes the administrator's
    /// locked values, and settles a session that was running (or being
    /// restored) when the daemon last stopped. Before serving: the I/O is
    /// done here, in turn.
    private static func connect(_ model: inout GuidedAccessModel, to desktop: (any DesktopSettings)?,
                                store: StateStore, log: @Sendable (String) -> Void) {
        guard let desktop else { return }
        for problem in desktop.problems { log(problem) }
        model.setFeatureSource(desktop, for: desktop.desktopFeatures)
        do {
            _ = try model.enforceLockedFeatures()
            if let pending = model.takePendingSave() {
                do { try pending.write(to: store) } catch { model.saveFailed(pending); throw error }
            }
        } catch {
            // The daemon still serves: what the store holds is what it reports.
            log("cannot push the values managed.json locks: \(error)")
        }
        model.setSessionSettingsApplier(desktop)
        guard let settlement = model.desktopSettlement() else { return }
        for problem in settlement.perform() { log(problem) }
        if let state = model.settled(settlement) {
            do { try store.save(state) } catch { log("could not record the restored desktop settings: \(error)") }
        }
    }

    /// The interfaces at `path`, declared once.
    public var interfaces: [Interface] { [sessionDeclaration, featuresDeclaration, restrictionsDeclaration] }

    /// Every interface of the contract, including the per-restriction one;
    /// the source of `dbus/*.xml`.
    public var contractInterfaces: [Interface] { interfaces + [restrictionObjectDeclaration] }

    /// Exports every object, then takes the bus name (so no early call is
    /// lost), and arms the time-limit timer of a resumed session.
    public func start(on bus: Connection) async throws {
        HeapRelease.mapLargeBlocks()
        connection.withLock { $0 = bus }
        bus.setCallPolicy(CallPolicy(
            admit: { Self.refusal(ofUser: $0.userID)?.dbusError },
            maxInFlightPerSender: Self.maxCallsInFlightPerSender,
            busy: DomainError.rateLimited(
                "this connection already has \(Self.maxCallsInFlightPerSender) calls in flight; wait for their replies").dbusError,
            maxMessageBytes: read { $0.managedConfig.limits.largestRegisterBytes } + Self.messageSlackBytes,
            largeMessage: { [heapRelease] in heapRelease.soon() }))
        bus.export(ObjectPath.guidedAccess, interfaces)
        bus.addObjectManager(at: ObjectPath.guidedAccess)
        for listing in read({ $0.restrictions() }) { exportRestriction(listing.identifier, on: bus) }
        desktop?.observe { [weak self] change in
            // Off the GLib thread: a writer holding the writers' lock may be waiting on that thread.
            Task { await self?.desktopChanged(change) }
        }
        try await callers.follow(bus)
        await followManagedConfig()
        try await bus.requestName(BusName.guidedAccess)
        // An enforcer that cannot follow signals registers again with a
        // daemon that restarted, and takes up what it restored.
        nudgeEnforcers(on: bus)
        rearmDeadline()
    }

    /// Stops timers; state is already on disk after every change.
    public func stop() {
        deadlineTimer.withLock { $0?.cancel() }
    }

    // MARK: Reading the model

    /// Reads under the lock; for property getters.
    func read<T>(_ body: (GuidedAccessModel) -> T) -> T {
        model.read(body)
    }

    // MARK: Publishing changes

    /// Turns model changes into signals and object (un)exports.
    func publish(_ changes: [ModelChange]) {
        guard !changes.isEmpty, let bus = connection.withLock({ $0 }) else { return }
        for change in changes { publish(change, on: bus) }
        if changes.contains(where: \.isReadByEnforcers) { nudgeEnforcers(on: bus) }
        rearmDeadline()
    }

    private func publish(_ change: ModelChange, on bus: Connection) {
        do {
            switch change {
            case .statusChanged(let enabled):
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.statusChanged, enabled)
            case .sessionPropertiesChanged(let properties):
                bus.propertiesChanged(ObjectPath.guidedAccess, ServiceInterface.session.name, properties.map(\.memberName))
            case .restrictionAdded(let identifier):
                exportRestriction(identifier, on: bus)
            case .restrictionRemoved(let identifier):
                if let path = ObjectPath.restriction(identifier) { bus.unexport(path) }
            case .restrictionRecordChanged(let identifier):
                restrictionPropertiesChanged(identifier, on: bus)
            case .restrictionChanged(let identifier, let state):
                try bus.emit(ObjectPath.guidedAccess, Contract.Restrictions.restrictionChanged, identifier, state.rawValue)
                restrictionPropertiesChanged(identifier, on: bus)
            case .featureChanged(let feature, _):
                // A dconf lock comes and goes with a change of the key's writability, announced as a change of the key.
                bus.propertiesChanged(ObjectPath.guidedAccess, ServiceInterface.features.name,
                                      [Contract.Features.enabled(feature).name, Contract.Features.locked.name])
            case .timeLimitWarning(let secondsLeft):
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.timeLimitWarning, secondsLeft)
            case .timeExpired:
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.timeExpired)
            case .assessmentBegan:
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.assessmentBegan)
            case .assessmentEnded:
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.assessmentEnded)
            case .assessmentInterrupted(let reason):
                try bus.emit(ObjectPath.guidedAccess, Contract.Session.assessmentInterrupted, reason)
            }
        } catch {
            log("could not announce \(change): \(error)")
        }
    }

    /// `Enforcers` and `SystemRestrictionSources` after an enforcer came or went.
    func announceEnforcers() {
        guard let bus = connection.withLock({ $0 }) else { return }
        bus.propertiesChanged(ObjectPath.guidedAccess, ServiceInterface.session.name,
                              [Contract.Session.enforcers.name, Contract.Session.systemRestrictionSources.name])
    }

    private func restrictionPropertiesChanged(_ identifier: String, on bus: Connection) {
        guard let path = ObjectPath.restriction(identifier) else { return }
        let restriction = Contract.Restriction.self
        bus.propertiesChanged(path, ServiceInterface.restriction.name,
                              [restriction.text.name, restriction.detailText.name, restriction.state.name, restriction.app.name,
                               restriction.registered.name])
    }

    private func exportRestriction(_ identifier: String, on bus: Connection) {
        guard let path = ObjectPath.restriction(identifier) else { return }
        bus.export(path, [restrictionObjectDeclaration])
    }

    // MARK: Time limit

    /// One timer for the next warning or expiry; re-armed after every change.
    func rearmDeadline() {
        let deadline = read { $0.nextDeadline }
        let task: Task<Void, Never>? = deadline.map { deadline in
            Task { [weak self] in
                let wait = max(0, deadline.timeIntervalSinceNow)
                try? await Task.sleep(for: .milliseconds(Int(wait * 1000) + 5))
                guard !Task.isCancelled, let self else { return }
                do {
                    let changes = try await model.with { try $0.tick(now: Date()) }
                    publish(changes)
                } catch {
                    log("time limit check failed: \(error)")
                }
            }
        }
        deadlineTimer.withLock { old in
            old?.cancel()
            old = task
        }
    }

    // MARK: Registrations that live as long as their connection

    /// Watches `owner`; when it leaves the bus its registrations drop
    /// (Registered=false) while their states stay.
    func watchRegistrant(_ owner: BusName, on bus: Connection) {
        guard watchedOwners.withLock({ $0.insert(owner).inserted }) else { return }
        Task {
            do {
                for await current in try await bus.watchOwner(of: owner) where current == nil {
                    break
                }
            } catch {
                log("cannot watch \(owner): \(error); treating it as gone")
            }
            watchedOwners.withLock { _ = $0.remove(owner) }
            do {
                publish(try await model.with { $0.ownerLeft(owner.rawValue) })
                heapRelease.soon()
            } catch {
                log("cannot forget the registrations of \(owner): \(error)")
            }
        }
    }
}

/// The model behind one lock for reads and in-memory changes, and a second
/// that orders writers until their change is in the desktop's store and on
/// disk. The first is never held across I/O; writers wait for the second
/// suspended, not blocking a thread, and the I/O itself runs on a thread of
/// its own (``BlockingWork``).
final class LockedModel: Sendable {
    /// Taken for in-memory work only: every getter and every change.
    private let model: Locked<GuidedAccessModel>
    /// Held by one writer from its change until that change is confirmed by
    /// the desktop's store and on disk, so writes land in order and a failed
    /// one can be undone.
    private let writing = AsyncLock()
    /// Where the writes that block (dconf, fsync, the user's kwinrc) run.
    let io = BlockingWork()
    /// Where changes are saved; it never changes, so it is read unlocked.
    private let store: StateStore
    private let log: @Sendable (String) -> Void

    /// Called after every change, made or undone.
    private let changed: @Sendable () -> Void

    init(_ model: GuidedAccessModel, store: StateStore, log: @escaping @Sendable (String) -> Void = { _ in },
         changed: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.log = log
        self.model = Locked(model)
        self.changed = changed
    }

    /// Reads or validates; never waits for a disk write, the desktop's store
    /// or a passcode hash. It may see a change whose write is still under
    /// way (whose reply and signals are not out yet); a feature the desktop
    /// stores reads the store's confirmed value.
    func read<T>(_ body: (GuidedAccessModel) throws -> T) rethrows -> T {
        try Self.holding(model, body)
    }

    /// Changes the model and returns once the change is confirmed by the
    /// desktop's store and on disk, or undone when writing it failed (that
    /// error is thrown). Readers wait only for the in-memory part.
    func with<T>(_ body: (inout GuidedAccessModel) throws -> T) async throws -> T {
        defer { changed() }
        return try await writing.withLock {
            await refreshOriginalsBeforeASession()
            return try await withWritingLock(body)
        }
    }

    /// A change may start a session, which records the originals of what it
    /// writes: first read again those the desktop does not announce.
    private func refreshOriginalsBeforeASession() async {
        guard let applier = read({ $0.session.isLocked ? nil : $0.sessionSettingsApplier }),
              applier.refreshesOriginals else { return }
        _ = try? await io.run { applier.refreshOriginals() }
    }

    /// Brings the desktop in line with the session (after an outside write
    /// to one of its settings), in turn with the writers.
    func settleDesktop() async {
        await writing.withLock {
            if let settlement = read({ $0.desktopSettlement() }) { await settle(settlement) }
        }
    }

    /// Runs `body` with `lock`'s value while holding it, throwing what `body` throws.
    private static func holding<Value, T, E: Error>(_ lock: Locked<Value>, _ body: (Value) throws(E) -> T) throws(E) -> T {
        try lock.withLock { (value: inout Value) throws(E) -> T in try body(value) }
    }

    private func withWritingLock<T>(_ body: (inout GuidedAccessModel) throws -> T) async throws -> T {
        let (result, pending) = change { model in (Result { try body(&model) }, model.takePendingSave()) }
        if let pending {
            do {
                try await io.run { [store] in try pending.write(to: store) }
            } catch {
                change { $0.saveFailed(pending) }
                throw error
            }
            if let settlement = read({ $0.saved(pending) }) { await settle(settlement) }
        }
        return try result.get()
    }

    /// Changes the model in memory, under the lock readers take.
    private func change<T>(_ body: (inout GuidedAccessModel) -> T) -> T {
        model.withLock { body(&$0) }
    }

    /// Writes the desktop's settings outside the lock, then records the
    /// originals it put back.
    private func settle(_ settlement: DesktopSettlement) async {
        let problems = (try? await io.run { settlement.perform() }) ?? []
        for problem in problems { log(problem) }
        guard let state = change({ $0.settled(settlement) }) else { return }
        do {
            try await io.run { [store] in try store.save(state) }
        } catch {
            log("could not record the restored desktop settings: \(error)")
        }
    }
}
