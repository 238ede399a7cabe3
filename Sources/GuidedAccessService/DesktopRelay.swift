import FoundationEssentials
import Glibc
import GuidedAccessCore

/// Changes made to the desktop's settings outside the service (GNOME
/// Settings, `gsettings set`, at-spi): relayed to the bus, and undone where
/// they go against the administrator or a running session.
extension GuidedAccessService {
    func desktopChanged(_ change: DesktopSettingChange) {
        switch change {
        case .feature(let feature):
            publish(featureChanged(feature))
        case .restrictionSetting:
            // Puts back a write that loosened the session; nothing to do otherwise.
            do {
                for problem in try model.with({ $0.settleDesktop() }) { log(problem) }
            } catch {
                log("cannot settle the desktop's settings: \(error)")
            }
        }
    }

    /// Re-reads the feature; a value against managed `LockedFeatures` is put back and audited.
    private func featureChanged(_ feature: Feature) -> [ModelChange] {
        do {
            return try restoringLockedValue(of: feature)
        } catch {
            log("cannot put back \(feature.propertyName) as managed.json locks it: \(error)")
            return [.featureChanged(feature, read { $0.featureValue(feature) })]
        }
    }

    private func restoringLockedValue(of feature: Feature) throws -> [ModelChange] {
        try model.with { model in
            let value = model.featureValue(feature)
            guard let locked = model.managedConfig.lockedFeatures[feature], locked != value else {
                return [.featureChanged(feature, value)]
            }
            let outcome: AuditResult
            do throws(DomainError) {
                _ = try model.setFeature(feature, enabled: locked)
                outcome = .allowed
            } catch {
                outcome = .error(error)
                log("cannot put back \(feature.propertyName), locked \(locked ? "on" : "off") by managed.json: \(error)")
            }
            do {
                try model.auditLog.append(
                    caller: AuditCaller(uid: getuid(), pid: 0, app: "desktop settings"), action: "restore-locked-feature",
                    target: "\(feature.propertyName)=\(locked)", result: outcome, now: Date())
            } catch {
                log("audit log write failed: \(error)")
            }
            return [.featureChanged(feature, model.featureValue(feature))]
        }
    }
}
