// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Integration-test support: the built `guided-accessd` on a private session
// bus with its own state directory and managed.json, optionally a real
// polkitd on a private system bus, and the clients that talk to it
// (DBusKit in process, busctl, gdbus, dbus-send, /usr/bin/python3).

/// Names of the contract, spelt once for the tests.
enum GA {
    static let busName = "org.guidedaccess.GuidedAccess1"
    static let path = "/org/guidedaccess/GuidedAccess1"
    static let session = "org.guidedaccess.GuidedAccess1"
    static let features = "org.guidedaccess.Features1"
    static let restrictions = "org.guidedaccess.Restrictions1"
    static let restriction = "org.guidedaccess.Restriction1"

    static func error(_ name: String) -> String { "org.guidedaccess.Error.\(name)" }
    static let invalidArgs = ErrorName.invalidArgs.rawValue
    static let interactiveAuthorizationRequired = ErrorName.interactiveAuthorizationRequired.rawValue

    /// `/org/guidedaccess/GuidedAccess1/restriction/<escaped identifier>`.
    static func restrictionPath(_ identifier: String) -> String {
        path + "/restriction/" + ObjectPath.escapeElement(identifier)
    }
}

/// Where things are on disk.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$GUIDED_ACCESSD`, else next to the running test bundle (any scratch
    /// path), else `<package>/.build/debug/guided-accessd`.
    static let daemon: String = {
        if let path = ProcessInfo.processInfo.environment["GUIDED_ACCESSD"], !path.isEmpty { return path }
        let candidates = [
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "",
            Bundle.main.executablePath ?? "",
            CommandLine.arguments.first ?? "",
        ]
        for candidate in candidates where !candidate.isEmpty {
            let sibling = URL(fileURLWithPath: candidate).deletingLastPathComponent().appendingPathComponent("guided-accessd").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return packageRoot.appendingPathComponent(".build/debug/guided-accessd").path
    }()

    static let python = "/usr/bin/python3"
    static let policyFile = packageRoot.appendingPathComponent("polkit/org.guidedaccess.policy")
    static let introspectionFiles: [URL] = {
        let directory = packageRoot.appendingPathComponent("dbus")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("org.guidedaccess.") && $0.hasSuffix(".xml") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }()

    /// The app id the daemon sees for a python client: the resolved executable.
    static let pythonAppID: String = URL(fileURLWithPath: python).resolvingSymlinksInPath().path
}

/// Why a group of tests cannot run here (nil: it can). Used with `.enabled(if:)`.
enum Requirements {
    static var daemonBuilt: Bool { FileManager.default.isExecutableFile(atPath: Paths.daemon) }
    static var tools: Bool {
        ["dbus-daemon", "busctl", "gdbus", "dbus-send"].allSatisfy { ProcessRunner.findExecutable(named: $0) != nil }
            && FileManager.default.isExecutableFile(atPath: Paths.python)
    }
    /// Daemon and clients, no root needed.
    static var canRunDaemon: Bool { daemonBuilt && tools }
    /// Real polkitd, setpriv: root only.
    static var canRunPolkit: Bool { canRunDaemon && PolkitTestAuthority.isAvailable && ProcessRunner.canRunUnprivileged }

    /// A Flatpak sandbox (``FlatpakSandbox``) as this user, and the daemon.
    static var canRunSandbox: Bool { canRunDaemon && FlatpakSandbox.problem(asNobody: false) == nil }
    /// A Flatpak sandbox as nobody, with a real polkitd: root only.
    static var canRunSandboxWithPolkit: Bool { canRunPolkit && FlatpakSandbox.problem(asNobody: true) == nil }

    static var sandboxReason: Comment {
        Comment(rawValue: "needs the built daemon and a sandbox: " + (FlatpakSandbox.problem(asNobody: false) ?? "ok"))
    }
    static var sandboxPolkitReason: Comment {
        Comment(rawValue: "needs root for polkitd and a sandbox as nobody: "
            + (PolkitTestAuthority.skipReason ?? FlatpakSandbox.problem(asNobody: true) ?? "ok"))
    }

    static let daemonReason: Comment = "needs the built guided-accessd (swift build), dbus-daemon, busctl, gdbus, dbus-send and /usr/bin/python3"
    static var polkitReason: Comment {
        Comment(rawValue: "needs root for a private polkitd and setpriv: "
            + (PolkitTestAuthority.skipReason ?? (ProcessRunner.canRunUnprivileged ? "ok" : "setpriv missing or not root")))
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
