import GuidedAccessCore
import Locking

/// The desktop's settings through GIO's GSettings: whatever backend GIO
/// picks (dconf on GNOME; keyfile or memory elsewhere).
///
/// Features and system restrictions follow ``DesktopMappings``. A key whose
/// schema is not installed, or whose type differs, is left out: its
/// feature stays with the service and its restriction is only `published`.
/// Every GIO call runs on one ``GLibThread``; that confinement is what
/// makes the class safe to share (hence `@unchecked Sendable`).
public final class GSettingsDesktop: DesktopSettings, @unchecked Sendable {
    private let thread = GLibThread()
    private let installed: InstalledSettings
    private let featureKeys: [Feature: FeatureSetting]
    private let restrictionKeys: [SystemRestriction: [RestrictionSetting]]
    private let handler = Locked<(@Sendable (DesktopSettingChange) -> Void)?>(nil)

    public let desktopFeatures: [Feature]
    public let problems: [String]

    /// Looks up every key of the mapping tables and starts watching them.
    public init() {
        let (installed, features, restrictions) = thread.perform { () -> (InstalledSettings, [FeatureSetting], [RestrictionSetting]) in
            let installed = InstalledSettings()
            let features = DesktopMappings.features.filter { installed.install($0.key, requiredType: $0.mapping.keyType) }
            let restrictions = DesktopMappings.restrictions.filter { installed.install($0.key) }
            return (installed, features, restrictions)
        }
        self.installed = installed
        featureKeys = Dictionary(uniqueKeysWithValues: features.map { ($0.feature, $0) })
        restrictionKeys = Dictionary(grouping: restrictions, by: \.restriction)
        desktopFeatures = features.map(\.feature)
        problems = installed.problems
        let featuresByKey = Dictionary(grouping: features, by: \.key).mapValues { $0.map(\.feature) }
        let restrictionIDs = Set(restrictions.map(\.key.description))
        thread.perform {
            for schema in installed.schemas {
                installed.watch(schema: schema) { [weak self] key in
                    guard let self, let notify = handler.withLock({ $0 }) else { return }
                    for feature in featuresByKey[key] ?? [] { notify(.feature(feature)) }
                    if restrictionIDs.contains(key.description) { notify(.restrictionSetting(key.description)) }
                }
            }
        }
    }

    public func observe(_ handler: @escaping @Sendable (DesktopSettingChange) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    // MARK: Features

    public func value(of feature: Feature) -> Bool {
        guard let setting = featureKeys[feature] else { return false }
        return setting.mapping.isOn(thread.perform { installed.decodedValue(of: setting.key) })
    }

    /// Writes the key and waits until the backend has it.
    public func set(_ enabled: Bool, for feature: Feature) throws {
        guard let setting = featureKeys[feature] else { throw SettingError("\(feature.propertyName) is not stored in GSettings") }
        let text = setting.mapping.keyValue(on: enabled)
        let failure = thread.perform { () -> SettingError? in
            do throws(SettingError) {
                try installed.write(setting.key, text)
                installed.sync()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    public func sourceDescription(of feature: Feature) -> String {
        featureKeys[feature].map { "gsettings:\($0.key)" } ?? "service"
    }

    // MARK: System restrictions

    public func source(of restriction: SystemRestriction) -> String {
        guard let settings = restrictionKeys[restriction], !settings.isEmpty else { return "published" }
        return settings.map { "gsettings:\($0.key)" }.joined(separator: ",")
    }

    public func settings(for restrictions: Set<SystemRestriction>) -> [String] {
        restrictions.flatMap { restrictionKeys[$0] ?? [] }.map(\.key.description)
    }

    public func originals(of settings: [String]) -> [String: SavedSetting] {
        thread.perform {
            Dictionary(uniqueKeysWithValues: settings.compactMap { id in
                SettingKey(id: id).map { (id, SavedSetting(userValue: installed.userValueText(of: $0))) }
            })
        }
    }

    public func apply(_ restrictions: Set<SystemRestriction>) -> [String] {
        let settings = restrictions.flatMap { restrictionKeys[$0] ?? [] }
        return thread.perform {
            var problems: [String] = []
            var wrote = false
            for setting in settings where !installed.hasValue(setting.key, setting.deniedValue) {
                do throws(SettingError) {
                    try installed.write(setting.key, setting.deniedValue)
                    wrote = true
                } catch {
                    problems.append("cannot deny \(setting.restriction.rawValue) through \(setting.key): \(error)")
                }
            }
            if wrote { installed.sync() }
            return problems
        }
    }

    public func restore(_ originals: [String: SavedSetting]) -> [String] {
        thread.perform {
            var problems: [String] = []
            for (id, saved) in originals.sorted(by: { $0.key < $1.key }) {
                guard let key = SettingKey(id: id), installed.install(key) else {
                    problems.append("cannot restore \(id): the key is no longer installed")
                    continue
                }
                do throws(SettingError) {
                    if let text = saved.userValue { try installed.write(key, text) } else { try installed.reset(key) }
                } catch {
                    problems.append("cannot restore \(id): \(error)")
                }
            }
            installed.sync()
            return problems
        }
    }
}
