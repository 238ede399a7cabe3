// SPDX-License-Identifier: LGPL-2.1-or-later
/// The value a desktop setting had before a session changed it, kept in the
/// state file until it is put back.
public struct SavedSetting: Codable, Sendable, Equatable {
    /// The value the user had set, in the backend's text form; `nil` when the
    /// key was at its default, so restoring resets it instead of pinning the
    /// default as a user value.
    public var userValue: String?

    public init(userValue: String?) { self.userValue = userValue }
}

/// What a running session asks of the desktop's settings: that the ways
/// out every session closes are closed (KWin's screen edges), the system
/// restrictions it denies, its display auto-lock and, in an assessment,
/// spelling help. Nothing when no session runs.
public struct DesktopDemand: Sendable, Equatable {
    /// True while a session runs, whatever it denies.
    public var sessionRuns = false
    /// The denied system restrictions.
    public var denied: Set<SystemRestriction> = []
    /// Seconds of inactivity before the screen blanks, 0 = never; `nil`
    /// leaves the desktop's own setting alone (`AutoLock` -1).
    public var autoLock: UInt32?
    /// Feature values the session holds (written through the features'
    /// sources, not an applier).
    public var features: [Feature: Bool] = [:]
    /// True during an assessment that does not allow spelling help: the
    /// desktop's input-method emoji and spelling pickers are switched off.
    public var spellingHelpOff = false

    /// Asks nothing.
    public init() {}

    /// What a running session denying `denied`, with `autoLock`, asks.
    public init(denied: Set<SystemRestriction>, autoLock: UInt32? = nil) {
        sessionRuns = true
        self.denied = denied
        self.autoLock = autoLock
    }

    /// True when the desktop may be left as its user set it.
    public var isEmpty: Bool { !sessionRuns }
}

/// Where the desktop lets a session's demands take effect (GSettings on
/// GNOME): denied system restrictions, the display auto-lock and an
/// assessment's spelling help. The model decides what is demanded and keeps
/// the originals durable; an applier only reads and writes settings.
///
/// Settings are named by an opaque id (`SCHEMA/KEY` for GSettings).
/// `source`, `settings` and `originals` are called with the model's lock
/// held and must answer from memory; `apply` and `restore` do the I/O and
/// are called outside it (``DesktopSettlement``).
public protocol SessionSettingsApplier: AnyObject, Sendable {
    /// Where `restriction` is enforced, for `SystemRestrictionSources`:
    /// `gsettings:SCHEMA/KEY` entries joined by commas, or `published` when
    /// only the shell can act on the published state.
    func source(of restriction: SystemRestriction) -> String
    /// The ids of the settings that `demand` writes.
    func settings(for demand: DesktopDemand) -> [String]
    /// The current values of `settings`, exactly as they must be put back.
    func originals(of settings: [String]) -> [String: SavedSetting]
    /// Writes the demanded value of every setting of `demand` that
    /// differs; durable when it returns. Returns problems to log; a
    /// restriction's setting the store did not keep is no longer named by `source(of:)`.
    func apply(_ demand: DesktopDemand) -> [String]
    /// Puts `originals` back exactly; durable when it returns. Returns problems to log.
    func restore(_ originals: [String: SavedSetting]) -> [String]
    /// Whether `setting` is one of this applier's ids (a stale original
    /// goes back to the applier that wrote it).
    func owns(_ setting: String) -> Bool
    /// True when `originals(of:)` answers from a copy that
    /// ``refreshOriginals()`` must bring up to date before a session starts
    /// (a file nobody announces changes of).
    var refreshesOriginals: Bool { get }
    /// Reads the settings again; blocking I/O, called outside the model's
    /// lock before a change that may start a session.
    func refreshOriginals()
}

extension SessionSettingsApplier {
    /// Told of every change: nothing to refresh.
    public var refreshesOriginals: Bool { false }
    public func refreshOriginals() {}
}

/// Several appliers as one: each setting id goes to the applier that owns
/// it (GSettings and KWin's configuration on a desktop that has both).
public final class CombinedSettingsApplier: SessionSettingsApplier {
    private let parts: [any SessionSettingsApplier]

    /// Combines `parts`; the first that owns an id gets it.
    public init(_ parts: [any SessionSettingsApplier]) { self.parts = parts }

    public func source(of restriction: SystemRestriction) -> String {
        let sources = parts.map { $0.source(of: restriction) }.filter { $0 != "published" }
        return sources.isEmpty ? "published" : sources.joined(separator: ",")
    }

    public func settings(for demand: DesktopDemand) -> [String] {
        parts.flatMap { $0.settings(for: demand) }
    }

    public func originals(of settings: [String]) -> [String: SavedSetting] {
        parts.reduce(into: [:]) { all, part in
            all.merge(part.originals(of: settings.filter(part.owns))) { first, _ in first }
        }
    }

    public func apply(_ demand: DesktopDemand) -> [String] {
        parts.flatMap { $0.apply(demand) }
    }

    public func restore(_ originals: [String: SavedSetting]) -> [String] {
        var rest = originals
        var problems: [String] = []
        for part in parts {
            let owned = rest.filter { part.owns($0.key) }
            guard !owned.isEmpty else { continue }
            problems += part.restore(owned)
            for id in owned.keys { rest[id] = nil }
        }
        return problems + rest.keys.sorted().map { "no desktop setting \($0) to put back: its store is gone" }
    }

    public func owns(_ setting: String) -> Bool { parts.contains { $0.owns(setting) } }
    public var refreshesOriginals: Bool { parts.contains(where: \.refreshesOriginals) }
    public func refreshOriginals() { for part in parts where part.refreshesOriginals { part.refreshOriginals() } }
}

extension GuidedAccessModel {
    /// Routes the session's demands to the desktop. Call before serving, then
    /// carry out ``desktopSettlement()`` to apply a resumed session or finish
    /// an interrupted restore.
    public mutating func setSessionSettingsApplier(_ applier: any SessionSettingsApplier) {
        sessionSettingsApplier = applier
    }

    /// `SystemRestrictionSources`: restriction → where it is enforced.
    public var systemRestrictionSources: [String: String] {
        Dictionary(uniqueKeysWithValues: SystemRestriction.allCases.map {
            ($0.rawValue, sessionSettingsApplier?.source(of: $0) ?? "published")
        })
    }

    /// What the desktop should do now: the denied restrictions, the
    /// auto-lock and an assessment's spelling help of a running session;
    /// nothing without one.
    var desktopDemand: DesktopDemand {
        guard session.isLocked else { return DesktopDemand() }
        let denied = Set(session.systemRestrictions.compactMap { name, state in
            state == .deny ? SystemRestriction(rawValue: name) : nil
        })
        // The session checked the range: -1 or 0 up to a day.
        var demand = DesktopDemand(denied: denied, autoLock: session.autoLock == AutoLock.desktop ? nil : UInt32(session.autoLock))
        demand.features = session.features
        demand.spellingHelpOff = session.assessment.map { !$0.allowsSpellCheck } ?? false
        return demand
    }

    /// Records the originals of settings the new state will write, before
    /// anything is written; called inside `commit`, so they are saved in the
    /// same atomic write as the session that needs them.
    mutating func captureDesktopOriginals() {
        guard let applier = sessionSettingsApplier else { return }
        let missing = applier.settings(for: desktopDemand).filter { desktopOriginals[$0] == nil }
        guard !missing.isEmpty else { return }
        desktopOriginals.merge(applier.originals(of: missing)) { saved, _ in saved }
    }

    /// What bringing the desktop in line with the session takes now: the
    /// demanded values written, the originals of settings no longer demanded
    /// put back (and forgotten once restored, ``settled(_:)``). Safe to
    /// repeat; it also puts back an outside write that loosened a running
    /// session. Nil without a desktop.
    public func desktopSettlement() -> DesktopSettlement? {
        let features = sessionFeatureWrites()
        guard sessionSettingsApplier != nil || !features.writes.isEmpty || !features.released.isEmpty else { return nil }
        let demand = desktopDemand
        let needed = Set(sessionSettingsApplier?.settings(for: demand) ?? [])
        return DesktopSettlement(applier: sessionSettingsApplier, demand: demand,
                                 stale: desktopOriginals.filter { !needed.contains($0.key) },
                                 featureWrites: features.writes, releasedFeatures: features.released)
    }

    /// Forgets the originals `settlement` put back; the state to save when
    /// there were any. Forgotten only once restored: a crash before that
    /// save restores them again on restart.
    public mutating func settled(_ settlement: DesktopSettlement) -> PersistentState? {
        // A write the store refused keeps its original, to try again at the next settle.
        let released = settlement.releasedFeatures.filter { feature in
            session.features[feature] == nil && featureOriginals[feature].map { $0 == featureValue(feature) } == true
        }
        guard !settlement.stale.isEmpty || !released.isEmpty else { return nil }
        for id in settlement.stale.keys { desktopOriginals[id] = nil }
        for feature in released { featureOriginals[feature] = nil }
        return stateToSave
    }
}

/// The desktop writes one settle needs, planned under the model's lock and
/// carried out outside it (``GuidedAccessModel/settled(_:)`` finishes it).
public struct DesktopSettlement: Sendable {
    let applier: (any SessionSettingsApplier)?
    let demand: DesktopDemand
    let stale: [String: SavedSetting]
    /// The desktop's features set to the session's values or put back.
    let featureWrites: [FeatureWrite]
    /// Features whose originals are put back by `featureWrites` (or already were), to forget.
    let releasedFeatures: [Feature]

    /// Writes the demanded values and puts back the stale originals;
    /// blocking I/O. Returns problems to log.
    public func perform() -> [String] {
        var problems: [String] = []
        if let applier, !demand.isEmpty { problems += applier.apply(demand) }
        if let applier, !stale.isEmpty { problems += applier.restore(stale) }
        for write in featureWrites {
            do throws(DomainError) { try write.perform() } catch { problems.append(error.message) }
        }
        return problems
    }
}

/// A desktop whose own settings hold some features and apply some of a
/// session's demands (GSettings on GNOME). The service routes those features
/// and demands to it and relays its outside changes.
public protocol DesktopSettings: FeatureValueSource, SessionSettingsApplier {
    /// The features whose value the desktop stores; the rest stay with the service.
    var desktopFeatures: [Feature] { get }
    /// Keys left out at start (schema not installed, unexpected type), to log once.
    var problems: [String] { get }
    /// Calls `handler` whenever one of its settings changes, whoever wrote
    /// it. Called on the desktop's own thread: hand the work off rather
    /// than block there.
    func observe(_ handler: @escaping @Sendable (DesktopSettingChange) -> Void)
}

/// What changed in the desktop's settings.
public enum DesktopSettingChange: Sendable, Equatable {
    /// The setting holding this feature.
    case feature(Feature)
    /// A setting that a session writes (a denied system restriction's or
    /// the auto-lock's), by id.
    case sessionSetting(String)
}

/// A user's setting that keeps a shell's enforcer off even when its host is
/// asked to turn it on (KDE's `kwinrc` `[Plugins] guidedaccessEnabled=false`,
/// an extension's uuid missing from Cinnamon's `enabled-extensions`):
/// undone before the host is asked.
public protocol EnforcerOffSetting: Sendable {
    /// What undoing it does, as the audit log and the daemon log say it
    /// ("remove kwinrc [Plugins] guidedaccessEnabled=false").
    var undo: String { get }
    /// Undoes the setting, so the enforcer is on again; true when it was
    /// off. Blocking I/O.
    func removeOff() throws -> Bool
}
