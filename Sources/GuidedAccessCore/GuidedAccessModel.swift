// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// The one source of truth the service binds to the bus: session, custom
/// restrictions, features, passcode, managed policy and their durable state.
///
/// A value that does no I/O. Every mutating method validates, changes and
/// reports what observably changed; what must then happen outside (the
/// state saved, features written to the desktop's store, the desktop
/// settled) it leaves as one ``PendingSave`` for the caller to carry out
/// (``takePendingSave()``), and when carrying it out fails the caller puts
/// the model back (``saveFailed(_:)``). When a method throws, nothing
/// changed. Time is always passed in.
///
/// The service holds it behind one lock (`LockedModel`) for in-memory work
/// only, and carries out each change's `PendingSave` outside that lock.
public struct GuidedAccessModel: Sendable {
    /// The administrator's policy.
    public internal(set) var managedConfig: ManagedConfig
    /// The session, running or not.
    public internal(set) var session: GuidedAccessSession
    /// Custom restrictions and their states.
    public internal(set) var registry: RestrictionRegistry
    /// Values of the features the service keeps itself (the desktop keeps
    /// none of them); absent means off.
    public internal(set) var ownFeatureValues: [Feature: Bool]
    /// Problems met while loading (a state file moved aside); for the daemon to log.
    public let startupWarnings: [String]
    /// What the changes since the last ``takePendingSave()`` ask of the disk and the desktop.
    var pendingSave: PendingSave?
    /// Desktop feature writes of the commit under way, handed to its ``PendingSave``.
    var stagedFeatureWrites: [FeatureWrite] = []

    var vault: PasscodeVault
    var featureSources: [Feature: any FeatureValueSource] = [:]
    public internal(set) var sessionSettingsApplier: (any SessionSettingsApplier)?
    /// Originals of the desktop settings a session changed (see ``SessionSettingsApplier``).
    var desktopOriginals: [String: SavedSetting]
    /// Values of the features a session changed, from before it changed
    /// them, until they are put back (GuidedAccessModel+SessionFeatures.swift).
    var featureOriginals: [Feature: Bool]
    /// The last options started for each recently locked app.
    var perAppMemory: PerAppMemory

    /// The model of `loaded` (``StateStore/load(now:)``), resuming a session
    /// that was running: same app, limits and restrictions; `expired` (still
    /// locked) when its time ran out while the daemon was down.
    /// `passcodeCost` is lowered only by tests. When resuming changed what
    /// goes into `state.json`, ``persistentState`` differs from `loaded`'s:
    /// save it before serving (``StateStore/loadModel(managedConfig:passcodeCost:now:)`` does).
    public init(
        loaded: LoadedState, directory: String, managedConfig: ManagedConfig = ManagedConfig(),
        passcodeCost: Int = PasscodeVault.defaultCost, now: Date
    ) {
        self.managedConfig = managedConfig
        session = loaded.state.session
        registry = RestrictionRegistry(
            records: loaded.state.restrictionRecords, states: loaded.state.restrictionStates,
            forcedStates: managedConfig.restrictions, limits: managedConfig.limits)
        ownFeatureValues = Self.features(from: loaded.state.featureValues).filter(\.value)
        vault = loaded.state.passcode
        desktopOriginals = loaded.state.desktopOriginals ?? [:]
        featureOriginals = Self.features(from: loaded.state.featureOriginals ?? [:])
        perAppMemory = PerAppMemory(loaded.state.lastOptions ?? [])
        vault.cost = passcodeCost
        startupWarnings = (loaded.warning.map { [$0] } ?? [])
            + loaded.removedTemporaries.map { "removed \($0), left in \(directory) by a write that was interrupted" }
        session.resume(now: now)
        for (feature, value) in managedConfig.lockedFeatures { ownFeatureValues[feature] = value ? true : nil }
    }

    /// Everything that goes into `state.json`.
    public var persistentState: PersistentState {
        var state = stateToSave
        state.restrictionRecords.sort { $0.identifier < $1.identifier }
        return state
    }

    /// ``persistentState`` with the records in the registry's order: what a
    /// commit hands to the save, under the lock readers take. The file's
    /// encoding sorts them on the save's own thread (12,800 records take
    /// about 10 ms to sort, which readers would otherwise wait for).
    var stateToSave: PersistentState {
        var state = PersistentState()
        state.session = session
        state.restrictionRecords = Array(registry.records.values)
        state.restrictionStates = registry.states
        state.featureValues = Dictionary(uniqueKeysWithValues: ownFeatureValues.map { ($0.key.name, $0.value) })
        state.passcode = vault
        state.desktopOriginals = desktopOriginals.isEmpty ? nil : desktopOriginals
        state.featureOriginals = featureOriginals.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: featureOriginals.map { ($0.key.name, $0.value) })
        state.lastOptions = perAppMemory.entries.isEmpty ? nil : perAppMemory.entries
        return state
    }

    private static func features(from stored: [String: Bool]) -> [Feature: Bool] {
        // Names this version does not know (written by a newer one) are dropped, not fatal.
        Dictionary(uniqueKeysWithValues: stored.compactMap { name, value in
            Feature(rawValue: name).map { ($0, value) }
        })
    }
}

extension StateStore {
    /// Loads `state.json` into a model and saves at once what resuming
    /// changed (a session that expired while the daemon was down).
    public func loadModel(
        managedConfig: ManagedConfig = ManagedConfig(), passcodeCost: Int = PasscodeVault.defaultCost, now: Date
    ) throws(DomainError) -> GuidedAccessModel {
        let loaded = try load(now: now)
        let model = GuidedAccessModel(loaded: loaded, directory: directory, managedConfig: managedConfig,
                                      passcodeCost: passcodeCost, now: now)
        if model.persistentState != loaded.state { try save(model.persistentState) }
        return model
    }
}

// MARK: - Committing changes

extension GuidedAccessModel {
    /// In-memory state to roll back to; unlike ``PersistentState`` it keeps
    /// live registration owners.
    struct Memento: Sendable {
        let session: GuidedAccessSession
        let registry: RestrictionRegistry
        let vault: PasscodeVault
        let ownFeatureValues: [Feature: Bool]
        let managedConfig: ManagedConfig
        let desktopOriginals: [String: SavedSetting]
        let featureOriginals: [Feature: Bool]
        let perAppMemory: PerAppMemory
    }

    var memento: Memento {
        Memento(
            session: session, registry: registry, vault: vault, ownFeatureValues: ownFeatureValues,
            managedConfig: managedConfig, desktopOriginals: desktopOriginals, featureOriginals: featureOriginals,
            perAppMemory: perAppMemory)
    }

    mutating func restore(_ memento: Memento) {
        session = memento.session
        registry = memento.registry
        vault = memento.vault
        managedConfig = memento.managedConfig
        desktopOriginals = memento.desktopOriginals
        featureOriginals = memento.featureOriginals
        perAppMemory = memento.perAppMemory
        ownFeatureValues = memento.ownFeatureValues
        stagedFeatureWrites = []
    }

    /// Runs `change` and reports what observably changed; what it asks of
    /// the disk and the desktop joins the pending save (``takePendingSave()``).
    /// On any error everything is rolled back. `change` returns events that
    /// a diff cannot see (warnings, feature values).
    ///
    /// When the change alters what the desktop must deny, the originals of
    /// the settings it will write are saved with it, and the desktop is
    /// settled only after that save (``saved(_:)``): a crash at any point
    /// leaves enough on disk to restore exactly.
    mutating func commit(_ change: (inout GuidedAccessModel) throws(DomainError) -> [ModelChange]) throws(DomainError) -> [ModelChange] {
        _ = registry.takeTouched()
        let before = memento
        let demandBefore = desktopDemand
        var events: [ModelChange]
        do throws(DomainError) {
            events = try change(&self)
        } catch {
            restore(before)
            throw error
        }
        events += followSessionFeatures()
        captureDesktopOriginals()
        let featureWrites = stagedFeatureWrites
        stagedFeatureWrites = []
        let stateChanged = durableStateChanged(since: before)
        if stateChanged || !featureWrites.isEmpty || desktopDemand != demandBefore {
            // Commits before the save runs are saved together; a failure undoes them all.
            pendingSave = PendingSave(
                state: stateToSave, stateChanged: stateChanged || pendingSave?.stateChanged == true,
                featureWrites: (pendingSave?.featureWrites ?? []) + featureWrites,
                before: pendingSave?.before ?? before, demandBefore: pendingSave?.demandBefore ?? demandBefore)
        }
        return differences(from: before) + events
    }

    /// What the commits since the last call ask of the disk and the desktop,
    /// to carry out outside the model (``PendingSave/write(to:)``, then
    /// ``saved(_:)``); nil when they ask nothing.
    public mutating func takePendingSave() -> PendingSave? {
        defer { pendingSave = nil }
        return pendingSave
    }

    /// Call after `pending` is on disk: the desktop work the saved change
    /// asks for, to carry out outside the lock (``DesktopSettlement``).
    public func saved(_ pending: PendingSave) -> DesktopSettlement? {
        desktopDemand != pending.demandBefore ? desktopSettlement() : nil
    }

    /// Call when writing `pending` failed: back to the state before its
    /// commits, as if they had thrown.
    public mutating func saveFailed(_ pending: PendingSave) {
        restore(pending.before)
        _ = registry.takeTouched()
    }

    /// Whether what goes into `state.json` changed: compared part by part,
    /// and for restrictions only the identifiers the change touched.
    private func durableStateChanged(since before: Memento) -> Bool {
        session != before.session || vault != before.vault || ownFeatureValues != before.ownFeatureValues
            || desktopOriginals != before.desktopOriginals || featureOriginals != before.featureOriginals
            || perAppMemory != before.perAppMemory
            || registry.touched.contains { identifier in
                !RestrictionRecord.sameOnDisk(registry.records[identifier], before.registry.records[identifier])
                    || registry.states[identifier] != before.registry.states[identifier]
            }
    }

    private mutating func differences(from before: Memento) -> [ModelChange] {
        var changes: [ModelChange] = []
        let properties = SessionProperty.allCases.filter {
            sessionValue($0, session: before.session, vault: before.vault, config: before.managedConfig)
                != sessionValue($0, session: session, vault: vault, config: managedConfig)
        }
        if properties.contains(.enabled) { changes.append(.statusChanged(enabled: session.isLocked)) }
        if !properties.isEmpty { changes.append(.sessionPropertiesChanged(properties)) }
        return changes + restrictionDifferences(from: before.registry)
    }

    private func sessionValue(
        _ property: SessionProperty, session: GuidedAccessSession, vault: PasscodeVault, config: ManagedConfig
    ) -> AnyHashable {
        switch property {
        case .enabled: session.isLocked
        case .state: session.state
        case .app: session.app
        case .startedAt: session.startedAtMicroseconds
        case .timeLimit: session.timeLimit
        case .systemRestrictions: session.systemRestrictions
        case .disabledRegions: session.disabledRegions
        case .passcodeSet: vault.isSet
        case .allowedApplications: config.allowedApplications
        case .presentation: session.presentation
        case .autoLock: session.autoLock
        case .mode: session.mode
        case .alsoAllowed: session.alsoAllowed
        case .accessibilityShortcut: Self.offeredShortcut(session: session, config: config)
        case .assessment: session.assessment
        }
    }

    /// What changed for the identifiers the change touched (the registry
    /// keeps that list), so the cost follows the change, not the registry.
    private mutating func restrictionDifferences(from oldRegistry: RestrictionRegistry) -> [ModelChange] {
        var changes: [ModelChange] = []
        for identifier in registry.takeTouched().sorted() {
            let previous = oldRegistry.listing(of: identifier)
            guard let listing = registry.listing(of: identifier) else {
                guard let previous else { continue }
                if previous.state != .allow { changes.append(.restrictionChanged(identifier: identifier, state: .allow)) }
                changes.append(.restrictionRemoved(identifier: identifier))
                continue
            }
            if previous == nil { changes.append(.restrictionAdded(identifier: identifier)) }
            if let previous, previous.text != listing.text || previous.detail != listing.detail
                || previous.app != listing.app || previous.registered != listing.registered {
                changes.append(.restrictionRecordChanged(identifier: identifier))
            }
            if (previous?.state ?? .allow) != listing.state {
                changes.append(.restrictionChanged(identifier: identifier, state: listing.state))
            }
        }
        return changes
    }
}

/// What one or more commits ask of the world outside the model: the
/// desktop settings they change, the state file and, once both are done,
/// the desktop settled (``GuidedAccessModel/saved(_:)``).
public struct PendingSave: Sendable {
    /// What to write to `state.json`.
    public let state: PersistentState
    /// Whether `state` differs from what is on disk (a feature write alone leaves it).
    public let stateChanged: Bool
    /// Features whose value the desktop stores, written by ``write(to:)``.
    let featureWrites: [FeatureWrite]
    let before: GuidedAccessModel.Memento
    let demandBefore: DesktopDemand

    /// Writes the desktop's features, each confirmed by its store, then the
    /// state (temp file, fsync, rename, fsync directory). Blocking I/O: call
    /// outside the model's lock. On failure the features it wrote are put
    /// back, so the caller can undo the commits as if they had thrown.
    public func write(to store: StateStore) throws(DomainError) {
        var written: [FeatureWrite] = []
        do throws(DomainError) {
            for featureWrite in featureWrites {
                try featureWrite.perform()
                written.append(featureWrite)
            }
            if stateChanged { try store.save(state) }
        } catch {
            for featureWrite in written.reversed() { featureWrite.undo() }
            throw error
        }
    }
}

/// A feature value to write to the desktop's store once the commit is done.
struct FeatureWrite: Sendable {
    let feature: Feature
    let enabled: Bool
    let source: any FeatureValueSource

    func perform() throws(DomainError) {
        do {
            try source.set(enabled, for: feature)
        } catch {
            throw GuidedAccessModel.storeFailure(feature, source, error)
        }
    }

    /// Best effort: the store refused something later in the same commit.
    func undo() { try? source.set(!enabled, for: feature) }
}
