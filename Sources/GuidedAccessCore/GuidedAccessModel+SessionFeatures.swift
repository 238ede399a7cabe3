// SPDX-License-Identifier: LGPL-2.1-or-later
// Accessibility inside a session: the features a session sets (its
// `features` option, the person's toggles from the accessibility menu) and
// how each is put back exactly when the session ends, across crashes.
//
// The value a feature had before the session first changed it is kept in
// `featureOriginals`, saved in the same write as the session that changes
// it. The service's own features change with that write; the desktop's
// are written only once it is on disk (``DesktopSettlement``), and their
// originals are forgotten only once put back (``GuidedAccessModel/settled(_:)``).

extension GuidedAccessModel {
    /// `AccessibilityShortcut`: what the person may switch during the
    /// session; without one, what a session started without its own list
    /// would offer (a start sheet shows it).
    public var accessibilityShortcut: [Feature] { Self.offeredShortcut(session: session, config: managedConfig) }

    static func offeredShortcut(session: GuidedAccessSession, config: ManagedConfig) -> [Feature] {
        session.isLocked ? session.accessibilityShortcut : config.accessibilityShortcut ?? Feature.defaultShortcut
    }

    /// What a session started with `options` offers: its own list, else managed.json's, else the default.
    func shortcut(for options: SessionOptions) -> [Feature] {
        options.accessibilityShortcut ?? managedConfig.accessibilityShortcut ?? Feature.defaultShortcut
    }

    /// `ToggleAccessibilityFeature`: the person switches `name` during the
    /// session (the caller checked it is an enforcer or the locked app).
    /// Throws `notActive`, `unknownFeature`, or `permissionDenied` when the
    /// feature is not in ``accessibilityShortcut`` or is locked.
    public mutating func toggleAccessibilityFeature(named name: String, enabled: Bool) throws(DomainError) -> [ModelChange] {
        guard session.isLocked else { throw .noSession }
        let feature = try Feature(parsing: name)
        guard session.accessibilityShortcut.contains(feature) else {
            let offered = session.accessibilityShortcut.map(\.name).joined(separator: ", ")
            throw .permissionDenied(
                "\(feature.name) is not in this session's accessibility shortcut (\(offered.isEmpty ? "none" : offered)); "
                    + "start the session with it in accessibility-shortcut")
        }
        try checkNotLocked([feature], to: enabled)
        return try commit { (model) throws(DomainError) in
            model.session.features[feature] = enabled
            return []
        }
    }

    /// Throws `permissionDenied` when a session's `features` would change a locked one.
    func checkSessionFeatures(_ features: [Feature: Bool]) throws(DomainError) {
        for (feature, value) in features.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try checkNotLocked([feature], to: value)
        }
    }

    /// Inside `commit`, after the change: records the original of each
    /// feature the session now holds, sets the service's own features to
    /// the session's values and puts back those it no longer holds. The
    /// desktop's are written by ``sessionFeatureWrites()`` before the reply;
    /// each is reported here all the same, so its change is announced.
    mutating func followSessionFeatures() -> [ModelChange] {
        var changes: [ModelChange] = []
        for (feature, value) in session.features.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if featureOriginals[feature] == nil { featureOriginals[feature] = featureValue(feature) }
            changes += setForSession(feature, value)
        }
        for (feature, original) in featureOriginals.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where session.features[feature] == nil {
            // The desktop's originals are forgotten once put back (``settled(_:)``).
            if featureSources[feature] == nil { featureOriginals[feature] = nil }
            changes += setForSession(feature, original)
        }
        return changes
    }

    /// `feature` to `value`: at once when the service keeps it, else left
    /// to the settlement; the change to announce, if any.
    private mutating func setForSession(_ feature: Feature, _ value: Bool) -> [ModelChange] {
        guard featureValue(feature) != value else { return [] }
        if featureSources[feature] == nil { ownFeatureValues[feature] = value ? true : nil }
        return [.featureChanged(feature, value)]
    }

    /// Forgets that the session holds `feature`: an administrator set it,
    /// and that choice outlives the session.
    mutating func releaseSessionFeature(_ feature: Feature) {
        session.features[feature] = nil
        featureOriginals[feature] = nil
    }

    /// The desktop's features to write now: each the session holds at its
    /// value, each it let go of back at its original.
    func sessionFeatureWrites() -> (writes: [FeatureWrite], released: [Feature]) {
        var writes: [FeatureWrite] = []
        var released: [Feature] = []
        for (feature, source) in featureSources.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let wanted: Bool
            if let value = session.features[feature] {
                wanted = value
            } else if let original = featureOriginals[feature] {
                wanted = original
                released.append(feature)
            } else {
                continue
            }
            if source.value(of: feature) != wanted { writes.append(FeatureWrite(feature: feature, enabled: wanted, source: source)) }
        }
        return (writes, released)
    }
}
