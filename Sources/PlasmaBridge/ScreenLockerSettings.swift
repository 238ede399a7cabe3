// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// No lock screen during a session with its own `AutoLock`, in Plasma's
/// screen locker settings (`kscreenlockerrc` `[Daemon]`, the same on
/// Plasma 5 and 6): neither after the idle time nor on waking. As on
/// GNOME, waking returns to the locked app, as on iOS, rather than to a
/// lock screen above it. The screen locker (inside KWin on Wayland) is
/// asked to `configure`, as System Settings does after a change.
enum ScreenLockerSettings {
    static func applier(directory: String) -> KConfigSessionEntries {
        let entries = ["Autolock", "LockOnResume"].map {
            KConfigSessionEntries.Entry(group: "Daemon", key: $0, value: "false", when: { $0.autoLock != nil })
        }
        return KConfigSessionEntries(
            file: "kscreenlockerrc", directory: directory, entries: entries,
            reload: .init(destination: "org.kde.screensaver", path: "/ScreenSaver", interface: "org.kde.screensaver",
                          member: "configure"))
    }
}
