// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation

/// What a test of the daemon needs, and why it is skipped without it:
/// `@Test(.enabled(if: Requirements.canRunDaemon, …))` with the reason as
/// its comment.
public enum Requirements {
    /// The daemon is built where ``Project/daemon`` looks.
    public static var daemonBuilt: Bool { FileManager.default.isExecutableFile(atPath: Project.daemon) }

    /// The clients the tests drive the daemon with, and its private bus.
    public static var tools: Bool {
        ["dbus-daemon", "busctl", "gdbus", "dbus-send"].allSatisfy { ProcessRunner.findExecutable(named: $0) != nil }
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    /// The daemon on a private bus with its clients; no root needed.
    public static var canRunDaemon: Bool { daemonBuilt && tools }

    /// Also a real polkitd and clients run as nobody: root only.
    public static var canRunPolkit: Bool { canRunDaemon && PolkitTestAuthority.isAvailable && ProcessRunner.canRunUnprivileged }

    /// Why a test that needs ``canRunDaemon`` is skipped.
    public static var daemonReason: String {
        "needs the built guided-accessd (swift build; looked at \(Project.daemon)), dbus-daemon, busctl, gdbus, dbus-send and /usr/bin/python3"
    }

    /// Why a test that needs ``canRunPolkit`` is skipped.
    public static var polkitReason: String {
        if !canRunDaemon { return daemonReason }
        return "needs root for a private polkitd and setpriv: "
            + (PolkitTestAuthority.skipReason ?? (ProcessRunner.canRunUnprivileged ? "ok" : "setpriv missing or not root"))
    }
}
