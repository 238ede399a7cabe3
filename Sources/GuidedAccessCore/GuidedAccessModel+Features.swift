// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

extension GuidedAccessModel {
    /// Routes `features` to `source` (e.g. a GSettings bridge) instead of the
    /// service's own store. Call before serving; locked values are not pushed
    /// here, call ``enforceLockedFeatures()`` afterwards.
    public mutating func setFeatureSource(_ source: any FeatureValueSource, for features: [Feature]) {
        for feature in features { featureSources[feature] = source }
    }

    /// The current value, read from where it lives.
    public func featureValue(_ feature: Feature) -> Bool {
        featureSources[feature]?.value(of: feature) ?? ownFeatureValues[feature] ?? false
    }

    /// `Sources`: feature → where its value lives (`service` for the service's own).
    public var featureSourceDescriptions: [Feature: String] {
        Dictionary(uniqueKeysWithValues: Feature.allCases.map { ($0, featureSources[$0]?.sourceDescription(of: $0) ?? "service") })
    }

    /// `Locked`: feature → who holds it, `managed` (managed.json's
    /// `LockedFeatures`) or `desktop` (its store will not write it).
    public var featureLocks: [Feature: String] {
        Feature.allCases.reduce(into: [:]) { locks, feature in
            if managedConfig.lockedFeatures[feature] != nil {
                locks[feature] = "managed"
            } else if featureSources[feature]?.isLocked(feature) == true {
                locks[feature] = "desktop"
            }
        }
    }

    /// `SetFeature`: throws `permissionDenied` when locked, `failed` when the
    /// backing store refuses.
    public mutating func setFeature(_ feature: Feature, enabled: Bool) throws(DomainError) -> [ModelChange] {
        try checkNotLocked([feature], to: enabled)
        return try commit { (model) throws(DomainError) in
            model.releaseSessionFeature(feature)
            return model.write([feature], enabled)
        }
    }

    /// `SetFeature` by the feature's name; throws `unknownFeature` for unknown names.
    public mutating func setFeature(named name: String, enabled: Bool) throws(DomainError) -> [ModelChange] {
        try setFeature(Feature(parsing: name), enabled: enabled)
    }

    /// `ConfigureForGuidedAccess`: only while a session runs (`notActive`
    /// otherwise); wire names such as `screen-reader` (`unknownFeature` for
    /// others); `permissionDenied` when a feature is locked.
    public mutating func configureForGuidedAccess(features: [String], enabled: Bool) throws(DomainError) -> [ModelChange] {
        guard session.isLocked else { throw .noSession }
        var parsed: [Feature] = []
        for name in features { parsed.append(try GuidedAccessFeature(parsing: name).feature) }
        try checkNotLocked(parsed, to: enabled)
        return try commit { (model) throws(DomainError) in model.write(parsed, enabled) }
    }

    /// Pushes managed-config locked values into their sources.
    public mutating func enforceLockedFeatures() throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in model.writeLockedFeatures() }
    }

    /// The managed-config locked values written, inside a commit.
    mutating func writeLockedFeatures() -> [ModelChange] {
        managedConfig.lockedFeatures.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { write([$0.key], $0.value) }
    }

    func checkNotLocked(_ features: [Feature], to enabled: Bool) throws(DomainError) {
        for feature in features {
            if let locked = managedConfig.lockedFeatures[feature], locked != enabled {
                throw .permissionDenied(
                    "\(feature.name) is locked \(locked ? "on" : "off") by the administrator in managed.json; change it there")
            }
            if let source = featureSources[feature], source.isLocked(feature), featureValue(feature) != enabled {
                throw .permissionDenied("\(feature.name) is locked by the administrator in the desktop's settings "
                                        + "(\(source.lockDescription(of: feature))); lift the lock there")
            }
        }
    }

    /// Writes each feature whose value differs and reports the ones that changed.
    ///
    /// A feature the desktop stores is only staged: the caller writes it
    /// with the commit's ``PendingSave`` and replies once its store confirms.
    /// Until then it reads from the store, so nothing the store does not
    /// hold is published.
    private mutating func write(_ features: [Feature], _ enabled: Bool) -> [ModelChange] {
        var changes: [ModelChange] = []
        for feature in features where featureValue(feature) != enabled {
            if let source = featureSources[feature] {
                stagedFeatureWrites.append(FeatureWrite(feature: feature, enabled: enabled, source: source))
            } else {
                ownFeatureValues[feature] = enabled ? true : nil
            }
            changes.append(.featureChanged(feature, enabled))
        }
        return changes
    }

    /// `failed`, naming the feature, its store and the store's reason (which says what to check).
    static func storeFailure(_ feature: Feature, _ source: any FeatureValueSource, _ error: any Error) -> DomainError {
        .failed("could not set \(feature.name) in \(source.sourceDescription(of: feature)): \(error)")
    }
}
