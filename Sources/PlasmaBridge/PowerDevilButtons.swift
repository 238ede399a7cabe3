// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// The power button set to do nothing for a session that denies
/// `sleep-wake-button`, in PowerDevil's own settings, for each of its
/// profiles (on mains, on battery, on low battery): Plasma 6 keeps them in
/// `powerdevilrc` `[PROFILE][SuspendAndShutdown]`, Plasma 5 in
/// `powermanagementprofilesrc` `[PROFILE][HandleButtonEvents]`; 0 is
/// "do nothing" in both. PowerDevil follows no change of its files: it is
/// asked to `refreshStatus`, which reads them again and reloads the
/// buttons' actions.
///
/// The sleep and hibernate keys have no setting (PowerDevil binds them as
/// global shortcuts; ``GlobalShortcutsOff``).
enum PowerDevilButtons {
    static let profiles = ["AC", "Battery", "LowBattery"]

    /// The file, group and keys for Plasma `version`.
    static func layout(plasma version: Int) -> (file: String, group: String, keys: [String]) {
        version >= 6 ? ("powerdevilrc", "SuspendAndShutdown", ["PowerButtonAction", "PowerDownAction"])
            : ("powermanagementprofilesrc", "HandleButtonEvents", ["powerButtonAction", "powerDownAction"])
    }

    static func applier(plasma version: Int, directory: String) -> KConfigSessionEntries {
        let (file, group, keys) = layout(plasma: version)
        let entries = profiles.flatMap { profile in
            keys.map { KConfigSessionEntries.Entry(group: "\(profile)\(KConfigText.nesting)\(group)", key: $0, value: "0") }
        }
        return KConfigSessionEntries(
            file: file, directory: directory, entries: entries, restriction: .sleepWakeButton,
            reload: .init(destination: "org.kde.Solid.PowerManagement", path: "/org/kde/Solid/PowerManagement",
                          interface: "org.kde.Solid.PowerManagement", member: "refreshStatus"),
            isDemanded: { $0.denied.contains(.sleepWakeButton) })
    }
}
