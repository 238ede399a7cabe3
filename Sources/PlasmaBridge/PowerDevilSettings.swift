// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// What a session sets in PowerDevil's own settings, for each of its
/// profiles (on mains, on battery, on low battery):
///
/// - the power button set to do nothing while `sleep-wake-button` is
///   denied: Plasma 6 keeps it in `powerdevilrc` `[PROFILE][SuspendAndShutdown]`,
///   Plasma 5 in `powermanagementprofilesrc` `[PROFILE][HandleButtonEvents]`;
///   0 is "do nothing" in both. The sleep and hibernate keys have no
///   setting (PowerDevil binds them as global shortcuts; ``GlobalShortcutsOff``).
/// - the session's `AutoLock` as the time before the display turns off,
///   Plasma 6's `[PROFILE][Display]` (-1 with the switch off is System
///   Settings' "never"), without locking first. Plasma 5 keeps that time
///   as a `[DPMSControl]` group whose mere presence turns the display off,
///   so there the person's own time stays.
///
/// PowerDevil follows no change of its files: it is asked to
/// `refreshStatus`, which reads them again.
enum PowerDevilSettings {
    static let profiles = ["AC", "Battery", "LowBattery"]

    /// The file, and the button entries' group and keys, for Plasma `version`.
    static func layout(plasma version: Int) -> (file: String, group: String, keys: [String]) {
        version >= 6 ? ("powerdevilrc", "SuspendAndShutdown", ["PowerButtonAction", "PowerDownAction"])
            : ("powermanagementprofilesrc", "HandleButtonEvents", ["powerButtonAction", "powerDownAction"])
    }

    static func applier(plasma version: Int, directory: String) -> KConfigSessionEntries {
        let (file, group, keys) = layout(plasma: version)
        let entries = profiles.flatMap { profile in
            keys.map {
                KConfigSessionEntries.Entry(group: "\(profile)\(KConfigText.nesting)\(group)", key: $0, value: "0",
                                            when: { $0.denied.contains(.sleepWakeButton) })
            } + (version >= 6 ? display(profile: profile) : [])
        }
        return KConfigSessionEntries(
            file: file, directory: directory, entries: entries, restriction: .sleepWakeButton,
            reload: .init(destination: "org.kde.Solid.PowerManagement", path: "/org/kde/Solid/PowerManagement",
                          interface: "org.kde.Solid.PowerManagement", member: "refreshStatus"))
    }

    /// Plasma 6's display entries of `profile` for a session's auto-lock.
    private static func display(profile: String) -> [KConfigSessionEntries.Entry] {
        let group = "\(profile)\(KConfigText.nesting)Display"
        return [
            .init(group: group, key: "TurnOffDisplayWhenIdle") { $0.autoLock.map { $0 > 0 ? "true" : "false" } },
            .init(group: group, key: "TurnOffDisplayIdleTimeoutSec") { $0.autoLock.map { $0 > 0 ? "\($0)" : "-1" } },
            .init(group: group, key: "LockBeforeTurnOffDisplay") { $0.autoLock.map { _ in "false" } },
        ]
    }
}
