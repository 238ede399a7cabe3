// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import Locking
#endif

/// `guided-accessd` under test: DBusTesting's `DaemonFixture` (private buses,
/// polkit, the supervised daemon, readiness = the name is owned) with what
/// this daemon reads: a state directory, managed.json and the desktop's
/// settings.
final class Harness: Sendable {
    enum Polkit: Sendable {
        /// `--polkit-address` names a socket that does not exist.
        case absent
        /// A private system bus on which nobody owns org.freedesktop.PolicyKit1.
        case busWithoutPolkit
        /// A real polkitd with the project's policy and optional extra rules.
        case real(rules: String? = nil)
    }

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
    }

    let options: Options
    let fixture: DaemonFixture
    let desktop: DesktopEnvironment
    /// Client connections handed out by `connect()`, closed by `stop()`.
    let connections = Locked<[Connection]>([])

    var bus: PrivateBus { fixture.bus }
    var address: String { fixture.address }
    var directory: URL { fixture.directory }
    var polkit: PolkitTestAuthority? { fixture.polkit }
    var daemonPID: pid_t? { fixture.daemonPID }
    var stateDirectory: URL { directory.appendingPathComponent("state") }
    var managedConfig: URL { directory.appendingPathComponent("managed.json") }

    private init(options: Options, fixture: DaemonFixture, desktop: DesktopEnvironment) {
        self.options = options
        self.fixture = fixture
        self.desktop = desktop
    }

    /// Starts the buses, writes managed.json, and (unless told not to) the daemon.
    static func start(_ options: Options) async throws -> Harness {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("ga-svc-test-\(UUID().uuidString.prefix(13))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let desktop: DesktopEnvironment
        do {
            desktop = try DesktopEnvironment(in: directory, backend: options.asNobody ? .memory : options.settings,
                                             dataDirectories: options.schemaDataDirectories)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        var configuration = DaemonFixture.Configuration(busName: GA.busName, directory: directory) { fixture in
            daemonArguments(fixture, options)
        }
        configuration.polkit = switch options.polkit {
        case .absent: .absent
        case .busWithoutPolkit: .busWithoutPolkit
        case .real(let rules): .real(policyFiles: [Paths.policyFile], rules: rules)
        }
        // GLib reaches the desktop's settings (dconf) over the session bus: the private one.
        configuration.serviceDirectories = [desktop.serviceDirectory.path]
        configuration.busEnvironment = desktop.variables
        configuration.environment = desktop.variables
        configuration.startsDaemon = options.startDaemon
        let fixture = try await DaemonFixture.start(configuration) { fixture in
            try prepare(fixture.directory.appendingPathComponent("state"), asNobody: options.asNobody)
            let harness = Harness(options: options, fixture: fixture, desktop: desktop)
            try harness.writeManagedConfig(allowedApplications: options.allowedApplications,
                                           adminApplications: options.adminApplications, lockedFeatures: options.lockedFeatures, limits: options.limits)
        }
        return Harness(options: options, fixture: fixture, desktop: desktop)
    }

    private static func prepare(_ stateDirectory: URL, asNobody: Bool) throws {
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if asNobody {
            guard chown(stateDirectory.path, ProcessRunner.unprivilegedID, ProcessRunner.unprivilegedID) == 0 else {
                throw HarnessError("cannot chown \(stateDirectory.path) to nobody")
            }
        }
    }

    /// The daemon's command line.
    private static func daemonArguments(_ fixture: DaemonFixture, _ options: Options) -> [String] {
        let argv = [Paths.daemon, "--address", fixture.address,
                    "--state-dir", fixture.directory.appendingPathComponent("state").path,
                    "--managed-config", fixture.directory.appendingPathComponent("managed.json").path,
                    "--polkit-address", fixture.polkitAddress,
                    "--polkit-timeout", "\(options.polkitTimeout)", "--passcode-cost", "1"]
        return options.asNobody ? ProcessRunner.asUnprivileged(argv) : argv
    }

    func writeManagedConfig(allowedApplications: [String], adminApplications: [String] = [],
                            lockedFeatures: [String: Bool] = [:], limits: [String: Int] = [:]) throws {
        let data = try JSONSerialization.data(withJSONObject: ["AllowedApplications": allowedApplications,
                                                               "AdminApplications": adminApplications,
                                                               "LockedFeatures": lockedFeatures, "Limits": limits])
        try data.write(to: managedConfig)
        chmod(managedConfig.path, 0o644)
    }

    /// Starts the daemon and returns when it owns its name.
    func startDaemon() async throws { try await fixture.startDaemon() }
    /// SIGKILL, as a crash would; returns when the bus has dropped the name.
    func killDaemon() async throws { try await fixture.killDaemon() }
    /// SIGTERM, as a clean stop.
    func stopDaemon() { fixture.stopDaemon() }
    func waitUntilNameIsFree() async throws { try await fixture.waitUntilNameIsFree() }
    /// Stops polkitd early (releasing the cross-test polkit lock) when a test
    /// no longer needs it, e.g. before waiting for a time limit.
    func stopPolkit() { fixture.stopPolkit() }
    /// Everything the daemon wrote on stderr.
    func log() -> String { fixture.log() }

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
        fixture.stop()
    }
}
