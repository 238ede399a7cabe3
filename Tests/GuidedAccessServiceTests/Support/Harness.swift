// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessTesting
import Locking

/// `guided-accessd` under test (``DaemonUnderTest``: private buses, polkit,
/// the supervised daemon, its state directory and managed.json) with the
/// desktop's settings it reads, and the clients a test talks to it with.
final class Harness: Sendable {
    typealias Polkit = DaemonUnderTest.Polkit

    struct Options: Sendable {
        var polkit: Polkit = .absent
        /// Run the daemon as nobody (65534) with a state directory owned by nobody.
        var asNobody = false
        var allowedApplications: [String] = []
        /// Managed `AdminApplications`: sandboxed apps that may act as an administrator.
        var adminApplications: [String] = []
        var polkitTimeout: Double = 5
        var startDaemon = true
        /// Where desktop settings live; a daemon run as nobody always uses memory.
        var settings: DesktopEnvironment.Backend = .dconf
        /// Managed `LockedFeatures`.
        var lockedFeatures: [String: Bool] = [:]
        /// Managed `Limits`.
        var limits: [String: Int] = [:]
        /// `XDG_DATA_DIRS` holding the only schemas GLib may see; nil: the system's.
        var schemaDataDirectories: String?
        /// dconf keys set and locked by a system database (path → value).
        var dconfLocks: [String: String] = [:]
        /// A KDE Plasma session of this major version: the daemon keeps the
        /// features in Plasma's KConfig files; nil: GNOME's GSettings.
        var plasma: Int?
        /// A Cinnamon session (`XDG_CURRENT_DESKTOP=X-Cinnamon`): the daemon
        /// keeps the features in Cinnamon's own GSettings schemas.
        var cinnamon = false
    }

    let options: Options
    let daemon: DaemonUnderTest
    let desktop: DesktopEnvironment
    /// Client connections handed out by `connect()`, closed by `stop()`.
    let connections = Locked<[Connection]>([])

    var fixture: DaemonFixture { daemon.fixture }
    var bus: PrivateBus { daemon.bus }
    var address: String { daemon.address }
    var directory: URL { daemon.directory }
    var polkit: PolkitTestAuthority? { daemon.polkit }
    var daemonPID: pid_t? { daemon.daemonPID }
    var stateDirectory: URL { daemon.stateDirectory }
    var managedConfig: URL { daemon.managedConfig }

    private init(options: Options, daemon: DaemonUnderTest, desktop: DesktopEnvironment) {
        self.options = options
        self.daemon = daemon
        self.desktop = desktop
    }

    /// Starts the buses, writes managed.json, and (unless told not to) the daemon.
    static func start(_ options: Options) async throws -> Harness {
        let directory = try DaemonUnderTest.makeDirectory(prefix: "ga-svc-test")
        let desktop: DesktopEnvironment
        do {
            desktop = try DesktopEnvironment(in: directory, backend: options.asNobody ? .memory : options.settings,
                                             dataDirectories: options.schemaDataDirectories, locks: options.dconfLocks,
                                             plasmaVersion: options.plasma, cinnamon: options.cinnamon)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        var daemonOptions = DaemonUnderTest.Options()
        daemonOptions.polkit = options.polkit
        daemonOptions.polkitTimeout = options.polkitTimeout
        daemonOptions.passcodeCost = 1
        daemonOptions.asNobody = options.asNobody
        daemonOptions.managedConfig = try managedConfig(allowedApplications: options.allowedApplications,
                                                        adminApplications: options.adminApplications,
                                                        lockedFeatures: options.lockedFeatures, limits: options.limits)
        // GLib reaches the desktop's settings (dconf) over the session bus: the private one.
        daemonOptions.serviceDirectories = [desktop.serviceDirectory.path]
        daemonOptions.busEnvironment = desktop.variables
        daemonOptions.environment = desktop.variables
        daemonOptions.startsDaemon = options.startDaemon
        return Harness(options: options, daemon: try await DaemonUnderTest.start(daemonOptions, in: directory), desktop: desktop)
    }

    /// managed.json's text.
    private static func managedConfig(allowedApplications: [String], adminApplications: [String],
                                      lockedFeatures: [String: Bool], limits: [String: Int]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: ["AllowedApplications": allowedApplications,
                                                               "AdminApplications": adminApplications,
                                                               "LockedFeatures": lockedFeatures, "Limits": limits])
        return String(decoding: data, as: UTF8.self)
    }

    func writeManagedConfig(allowedApplications: [String], adminApplications: [String] = [],
                            lockedFeatures: [String: Bool] = [:], limits: [String: Int] = [:]) throws {
        try daemon.writeManagedConfig(Self.managedConfig(allowedApplications: allowedApplications, adminApplications: adminApplications,
                                                         lockedFeatures: lockedFeatures, limits: limits))
    }

    /// managed.json as `object`, moved into place as a configuration tool would.
    func writeManagedConfig(_ object: [String: Any]) throws {
        try daemon.writeManagedConfig(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// Starts the daemon and returns when it owns its name.
    func startDaemon() async throws { try await daemon.startDaemon() }
    /// SIGKILL, as a crash would; returns when the bus has dropped the name.
    func killDaemon() async throws { try await daemon.killDaemon() }
    /// SIGTERM, as a clean stop.
    func stopDaemon() { daemon.stopDaemon() }
    func waitUntilNameIsFree() async throws { try await daemon.waitUntilNameIsFree() }
    /// Stops polkitd early (releasing the cross-test polkit lock) when a test
    /// no longer needs it, e.g. before waiting for a time limit.
    func stopPolkit() { daemon.stopPolkit() }
    /// Everything the daemon wrote on stderr.
    func log() -> String { daemon.log() }

    /// The audit log's records.
    func auditRecords() -> [[String: Any]] {
        let text = (try? String(contentsOf: stateDirectory.appendingPathComponent("audit.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Stops the daemon, clients, polkit and buses; removes the directory.
    func stop() {
        for connection in connections.withLock({ current -> [Connection] in defer { current = [] }; return current }) {
            connection.close()
        }
        daemon.stop()
    }
}
