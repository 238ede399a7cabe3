// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

// The administrator's Single App Mode: managed.json's `SingleAppMode` keeps
// the session locked to its app from the moment the daemon runs, and only a
// change of that file moves or ends it.

extension GuidedAccessModel {
    /// Throws `permissionDenied` while the administrator's Single App Mode
    /// holds the session: no passcode, app or authority ends it.
    public func refuseIfManaged() throws(DomainError) {
        guard session.mode == .singleApp else { return }
        throw .permissionDenied(
            "this session is set by the administrator in managed.json (SingleAppMode); it ends only when they change that file")
    }

    /// Takes the administrator's new policy (managed.json changed) and acts
    /// on it at once: forced restriction states, locked features, the apps
    /// that may lock themselves, and Single App Mode (started, ending a
    /// session someone else started; started again for another app or
    /// other options; ended when the key is gone). Call once the model is
    /// loaded, and after every change of the policy.
    /// Throws, changing nothing, when the new policy cannot hold (a locked
    /// feature its store refuses, a Single App Mode whose features are locked otherwise).
    public mutating func applyManagedConfig(_ config: ManagedConfig, now: Date) throws(DomainError) -> [ModelChange] {
        if let policy = config.singleAppMode {
            var probe = self
            probe.managedConfig = config
            try probe.checkSessionFeatures(policy.options.features)
        }
        return try commit { (model) throws(DomainError) in
            model.managedConfig = config
            model.registry.setForcedStates(config.restrictions)
            model.registry.limits = config.limits
            // A value the administrator now locks is theirs, not the session's to put back.
            for feature in config.lockedFeatures.keys where model.session.features[feature] != nil {
                model.releaseSessionFeature(feature)
            }
            return model.writeLockedFeatures() + (try model.followSingleAppModeInCommit(now: now))
        }
    }

    private mutating func followSingleAppModeInCommit(now: Date) throws(DomainError) -> [ModelChange] {
        guard let policy = managedConfig.singleAppMode else {
            if session.mode == .singleApp { try session.end() }
            return []
        }
        let shortcut = shortcut(for: policy.options)
        if session.mode == .singleApp, session.holds(app: policy.app, options: policy.options, shortcut: shortcut) {
            return []
        }
        let assessmentEnds = session.mode == .assessment
        if session.isLocked { try session.end() }
        try startInCommit(app: policy.app, options: policy.options, mode: .singleApp, requestedBy: nil, now: now)
        return assessmentEnds
            ? [.assessmentInterrupted(reason: "the administrator's Single App Mode took over"), .assessmentEnded] : []
    }
}

extension GuidedAccessSession {
    /// True when the session is locked to `app` as `options` and `shortcut` would lock it.
    func holds(app: String, options: SessionOptions, shortcut: [Feature]) -> Bool {
        isLocked && self.app == app && timeLimit == options.timeLimit && systemRestrictions == options.systemRestrictions
            && disabledRegions == options.disabledRegions && presentation == options.presentation
            && autoLock == options.autoLock && alsoAllowed == options.alsoAllowed.filter { $0 != app }
            && accessibilityShortcut == shortcut
    }
}
