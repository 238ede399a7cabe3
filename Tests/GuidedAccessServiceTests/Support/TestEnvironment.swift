// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessTesting
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Integration-test support: the built `guided-accessd` on a private session
// bus (GuidedAccessTesting's DaemonUnderTest), and the clients that talk to
// it (DBusKit in process, busctl, gdbus, dbus-send, /usr/bin/python3).

/// Where things the tests run are on disk (the project's own: ``Project``).
enum Paths {
    static let python = "/usr/bin/python3"
    /// The app id the daemon sees for a python client: the resolved executable.
    static let pythonAppID: String = URL(fileURLWithPath: python).resolvingSymlinksInPath().path
}

/// The Flatpak sandbox (``FlatpakSandbox``) beside what every daemon test needs.
extension Requirements {
    /// A Flatpak sandbox as this user, and the daemon.
    static var canRunSandbox: Bool { canRunDaemon && FlatpakSandbox.problem(asNobody: false) == nil }
    /// A Flatpak sandbox as nobody, with a real polkitd: root only.
    static var canRunSandboxWithPolkit: Bool { canRunPolkit && FlatpakSandbox.problem(asNobody: true) == nil }
}

/// Why a test is skipped: the comments of `.enabled(if: Requirements.…)`.
extension Comment {
    static var daemonReason: Comment { Comment(rawValue: Requirements.daemonReason) }
    static var polkitReason: Comment { Comment(rawValue: Requirements.polkitReason) }
    static var sandboxReason: Comment {
        Comment(rawValue: "needs the built daemon and a sandbox: " + (FlatpakSandbox.problem(asNobody: false) ?? "ok"))
    }
    static var sandboxPolkitReason: Comment {
        Comment(rawValue: "needs root for polkitd and a sandbox as nobody: "
            + (PolkitTestAuthority.skipReason ?? FlatpakSandbox.problem(asNobody: true) ?? "ok"))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The outcome of one command-line client run.
struct ToolResult: Sendable, CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String
    var ok: Bool { status == 0 }
    var description: String { "status \(status)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)" }
    /// stdout with surrounding white space removed.
    var output: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
}
