// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO
import GuidedAccessCore
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// The desktop's settings through GIO's GSettings: whatever backend GIO
/// picks (dconf on GNOME; keyfile or memory elsewhere).
///
/// Features and system restrictions follow ``DesktopMappings``. A key whose
/// schema is not installed, or whose type differs, is left out: its
/// feature stays with the service and its restriction is only `published`.
/// Every GIO call runs on one ``GLibThread``; that confinement (`writing`
/// is the GLib thread's alone) and a lock around each value the other
/// threads read make the class safe to share (hence `@unchecked Sendable`).
///
/// Reads answer from a cache that the keys' change notifications keep
/// fresh, so a reader never waits for the GLib thread (which a stalled
/// dconf-service can hold for as long as a D-Bus timeout). Writes are
/// confirmed: synced, then read back, because the dconf backend reports
/// success before dconf-service has answered.
public final class GSettingsDesktop: DesktopSettings, @unchecked Sendable {
    private let thread = GLibThread()
    private let installed: InstalledSettings
    private let featureKeys: [Feature: FeatureSetting]
    private let restrictionKeys: [SystemRestriction: [RestrictionSetting]]
    /// The keys a session's auto-lock writes; empty when their schemas are not installed.
    private let autoLockKeys: [AutoLockSetting]
    /// The keys an assessment's spelling help off writes; empty without IBus.
    private let spellingKeys: [FixedSetting]
    private let handler = Locked<(@Sendable (DesktopSettingChange) -> Void)?>(nil)
    /// Every installed key as the store last confirmed it.
    private let cache = Locked<[SettingKey: CachedSetting]>([:])
    /// Session keys whose demanded value the store did not keep (logged
    /// once); a restriction's is not named in `SystemRestrictionSources`
    /// until a later write sticks.
    private let unheld = Locked<Set<SettingKey>>([])
    /// GLib thread only: keys the service is writing. Their change signals
    /// (GSettings announces a write before the store has it) are ignored;
    /// the read-back after the sync updates the cache.
    private var writing: Set<SettingKey> = []
    /// The backend, named in errors: `dconf`, `keyfile`, `memory`.
    private let store: String

    public let desktopFeatures: [Feature]
    public let problems: [String]

    /// What of the mapping tables a bridge takes on.
    public enum Scope: Sendable {
        /// All of them, with the desktop's own schemas: GNOME's (also for the
        /// desktops that read GNOME's) or Cinnamon's.
        case desktop(DesktopMappings)
        /// IBus's keys only (an assessment's spelling help): IBus reads them
        /// from GSettings whatever the desktop, Plasma included.
        case inputMethod
    }

    /// Looks up every key of the mapping tables in `scope`, reads them and starts watching them.
    public init(scope: Scope = .desktop(.gnome)) {
        let mappings: DesktopMappings? = if case .desktop(let mappings) = scope { mappings } else { nil }
        let (installed, features, restrictions, autoLock, spelling, store) = thread.perform {
            () -> (InstalledSettings, [FeatureSetting], [RestrictionSetting], [AutoLockSetting], [FixedSetting], String) in
            let installed = InstalledSettings()
            let features = (mappings?.features ?? []).filter { installed.install($0.key, requiredType: $0.mapping.keyType) }
            let restrictions = (mappings?.restrictions ?? []).filter { installed.install($0.key) }
            let autoLock = (mappings?.autoLock ?? []).filter { installed.install($0.key, requiredType: $0.type) }
            let spelling = DesktopMappings.spellingHelp.filter { installed.install($0.key, requiredType: $0.type) }
            return (installed, features, restrictions, autoLock, spelling, Self.backendName())
        }
        self.installed = installed
        self.store = store
        spellingKeys = spelling
        featureKeys = Dictionary(uniqueKeysWithValues: features.map { ($0.feature, $0) })
        restrictionKeys = Dictionary(grouping: restrictions, by: \.restriction)
        autoLockKeys = autoLock
        desktopFeatures = features.map(\.feature)
        problems = installed.problems
        let featuresByKey = Dictionary(grouping: features, by: \.key).mapValues { $0.map(\.feature) }
        let sessionKeys = Set(restrictions.map(\.key) + autoLock.map(\.key) + spelling.map(\.key))
        let keys = Set(features.map(\.key)).union(sessionKeys)
        thread.perform {
            for key in keys { _ = refresh(key) }
            for schema in installed.schemas {
                installed.watch(schema: schema) { [weak self] key in
                    guard let self, keys.contains(key), !writing.contains(key), refresh(key),
                          let notify = handler.withLock({ $0 }) else { return }
                    for feature in featuresByKey[key] ?? [] { notify(.feature(feature)) }
                    if sessionKeys.contains(key) { notify(.sessionSetting(key.description)) }
                }
            }
        }
    }

    public func observe(_ handler: @escaping @Sendable (DesktopSettingChange) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    // MARK: Features

    /// From the cache: never waits for the GLib thread.
    public func value(of feature: Feature) -> Bool {
        guard let setting = featureKeys[feature] else { return false }
        return setting.mapping.isOn(cache.withLock { $0[setting.key]?.decoded } ?? .other)
    }

    /// Writes the key and returns once the store has confirmed it; throws
    /// naming the store, the key and what to check when it did not keep it.
    /// Blocks while the store is slow: call it off the cooperative pool.
    public func set(_ enabled: Bool, for feature: Feature) throws {
        guard let setting = featureKeys[feature] else { throw SettingError("\(feature.name) is not stored in GSettings") }
        let failures = thread.perform { writeConfirmed([(setting.key, setting.mapping.keyValue(on: enabled))]) }
        if let failure = failures.first { throw failure.error }
    }

    public func sourceDescription(of feature: Feature) -> String {
        featureKeys[feature].map { "gsettings:\($0.key)" } ?? "service"
    }

    /// From the cache: never waits for the GLib thread.
    public func isLocked(_ feature: Feature) -> Bool {
        guard let setting = featureKeys[feature] else { return false }
        return cache.withLock { $0[setting.key]?.writable } == false
    }

    // MARK: A session's demands: system restrictions, auto-lock, spelling help

    /// The keys that enforce `restriction`, less those the store did not keep.
    public func source(of restriction: SystemRestriction) -> String {
        let unheld = unheld.withLock { $0 }
        let settings = (restrictionKeys[restriction] ?? []).filter { !unheld.contains($0.key) }
        guard !settings.isEmpty else { return "published" }
        return settings.map { "gsettings:\($0.key)" }.joined(separator: ",")
    }

    public func settings(for demand: DesktopDemand) -> [String] {
        demandedValues(demand).map(\.key.description)
    }

    /// From the cache: never waits for the GLib thread.
    public func originals(of settings: [String]) -> [String: SavedSetting] {
        let cache = cache.withLock { $0 }
        return Dictionary(uniqueKeysWithValues: settings.compactMap { id in
            SettingKey(id: id).map { (id, SavedSetting(userValue: cache[$0]?.userValue)) }
        })
    }

    /// Writes the demanded values; a key the store does not keep is logged
    /// once, and a restriction's is left out of `source(of:)` until a later write sticks.
    public func apply(_ demand: DesktopDemand) -> [String] {
        let demanded = demandedValues(demand)
        let failures = thread.perform {
            writeConfirmed(demanded.filter { !installed.hasValue($0.key, $0.value) }.map { ($0.key, $0.value) })
        }
        let failed = Dictionary(failures.map { ($0.key, $0.error) }) { first, _ in first }
        return unheld.withLock { unheld in
            var problems: [String] = []
            for setting in demanded {
                guard let error = failed[setting.key] else {
                    unheld.remove(setting.key)
                    continue
                }
                if unheld.insert(setting.key).inserted {
                    problems.append("cannot \(setting.purpose) through \(setting.key): \(error)"
                                    + (setting.isRestriction ? "; SystemRestrictionSources no longer names it" : ""))
                }
            }
            return problems
        }
    }

    /// Every key `demand` writes, with its value and what it is for.
    private func demandedValues(_ demand: DesktopDemand)
        -> [(key: SettingKey, value: String, purpose: String, isRestriction: Bool)] {
        let restrictions = demand.denied.flatMap { restrictionKeys[$0] ?? [] }.map {
            (key: $0.key, value: $0.deniedValue, purpose: "deny \($0.restriction.rawValue)", isRestriction: true)
        }
        let autoLock = demand.autoLock.map { seconds in
            autoLockKeys.map {
                (key: $0.key, value: $0.value(seconds), purpose: "apply the session's auto-lock of \(seconds) s", isRestriction: false)
            }
        } ?? []
        let spelling = !demand.spellingHelpOff ? [] : spellingKeys.map {
            (key: $0.key, value: $0.value, purpose: "switch the assessment's spelling help off", isRestriction: false)
        }
        return restrictions + autoLock + spelling
    }

    /// `SCHEMA/KEY`; a schema's name has no colon.
    public func owns(_ setting: String) -> Bool {
        SettingKey(id: setting).map { !$0.schema.contains(":") } ?? false
    }

    public func restore(_ originals: [String: SavedSetting]) -> [String] {
        thread.perform {
            var problems: [String] = []
            var writes: [(SettingKey, String?)] = []
            for (id, saved) in originals.sorted(by: { $0.key < $1.key }) {
                guard let key = SettingKey(id: id), installed.install(key) else {
                    problems.append("cannot restore \(id): the key is no longer installed")
                    continue
                }
                writes.append((key, saved.userValue))
            }
            return problems + writeConfirmed(writes).map { "cannot restore \($0.key): \($0.error)" }
        }
    }

    // MARK: On the GLib thread

    /// Writes each key (`nil` resets it), waits until the store has answered
    /// every write, and reads each back: the keys the store did not keep,
    /// with why. GSettings' own success means little here: with dconf it
    /// only says the write was queued for dconf-service.
    private func writeConfirmed(_ writes: [(key: SettingKey, text: String?)]) -> [(key: SettingKey, error: SettingError)] {
        guard !writes.isEmpty else { return [] }
        writing.formUnion(writes.map(\.key))
        var refused: [SettingKey: SettingError] = [:]
        for (key, text) in writes {
            do throws(SettingError) {
                if let text { try installed.write(key, text) } else { try installed.reset(key) }
            } catch {
                refused[key] = error
            }
        }
        installed.sync()
        writing.subtract(writes.map(\.key))
        return writes.compactMap { key, text in
            _ = refresh(key)
            if let error = refused[key] { return (key, error) }
            return installed.holds(key, text) ? nil : (key, notKept(key, text))
        }
    }

    /// Reads `key` into the cache; true when its value changed.
    private func refresh(_ key: SettingKey) -> Bool {
        let now = installed.snapshot(of: key)
        return cache.withLock { cache in
            defer { cache[key] = now }
            return cache[key] != now
        }
    }

    private func notKept(_ key: SettingKey, _ text: String?) -> SettingError {
        let current = cache.withLock { $0[key]?.text } ?? "nothing"
        return SettingError("the desktop's settings store (\(store)) did not keep \(key) = \(text ?? "its default"): "
                            + "it still reads \(current) after the write; \(whatToCheck)")
    }

    /// Where to look when the store did not keep a write.
    private var whatToCheck: String {
        guard store == "dconf" else { return "check that GSETTINGS_BACKEND names a store this session can write" }
        let database = String(cString: g_get_user_config_dir()) + "/dconf/user"
        return "check that dconf-service can be started on the session bus and that \(database) can be written "
            + "(its directory writable, the disk not full)"
    }

    /// `dconf`, `keyfile`, `memory`, or GIO's type name for another backend.
    private static func backendName() -> String {
        let name = String(cString: cgio_default_backend_name())
        for (prefix, short) in [("DConf", "dconf"), ("GKeyfile", "keyfile"), ("GMemory", "memory")] where name.hasPrefix(prefix) {
            return short
        }
        return name
    }
}
