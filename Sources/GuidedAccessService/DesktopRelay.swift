// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials
import Glibc
import GuidedAccessCore

/// Changes made to the desktop's settings outside the service (GNOME
/// Settings, `gsettings set`, at-spi): relayed to the bus, and undone where
/// they go against the administrator or a running session.
extension GuidedAccessService {
    func desktopChanged(_ change: DesktopSettingChange) async {
        switch change {
        case .feature(let feature):
            publish(await featureChanged(feature))
        case .sessionSetting:
            // Puts back a write that loosened the session or changed its auto-lock; nothing to do otherwise.
            await model.settleDesktop()
        }
    }

    /// The feature's new value; one against managed `LockedFeatures` is put
    /// back and audited (after the write, outside every lock).
    private func featureChanged(_ feature: Feature) async -> [ModelChange] {
        let (value, locked) = read { ($0.featureValue(feature), $0.managedConfig.lockedFeatures[feature]) }
        guard let locked, locked != value else { return [.featureChanged(feature, value)] }
        let outcome: AuditResult
        var changes: [ModelChange] = []
        do {
            changes = try await model.with { try $0.setFeature(feature, enabled: locked) }
            outcome = .allowed
        } catch {
            outcome = .error(error as? DomainError ?? .failed("\(error)"))
            log("cannot put back \(feature.name), locked \(locked ? "on" : "off") by managed.json: \(error)")
        }
        audit(AuditCaller(uid: getuid(), pid: 0, app: "desktop settings"), "restore-locked-feature",
              "\(feature.name)=\(locked)", outcome)
        return changes + [.featureChanged(feature, read { $0.featureValue(feature) })]
    }
}
