// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import Testing
import Locking

/// Where the built executables are: next to this test bundle when present
/// (any scratch path), else `<package>/.build/debug`.
enum Binaries {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let directory: URL = {
        let ownDirectory = URL(fileURLWithPath: selfExecutable).deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: ownDirectory.appendingPathComponent("guided-accessd").path) {
            return ownDirectory
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }()

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    static var daemon: String { path("guided-accessd") }
    static var cli: String { path("guided-access") }
    static var shop: String { path("guided-access-shop") }
    static var daemonExists: Bool { FileManager.default.isExecutableFile(atPath: daemon) }

    /// This process's executable: its app id as the daemon sees it.
    static let selfExecutable: String = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0]

    static let policyFile = packageRoot.appendingPathComponent("polkit/org.guidedaccess.policy")
}

/// Conditions the tests share.
enum Requirements {
    static var daemonMissing: String? {
        Binaries.daemonExists ? nil : "guided-accessd is not built at \(Binaries.daemon); run `swift build` first"
    }
    static var canRunDaemon: Bool {
        Requirements.daemonMissing == nil && ProcessRunner.findExecutable(named: "dbus-daemon") != nil
    }
    static var canRunDaemonWithPolkit: Bool { canRunDaemon && PolkitTestAuthority.isAvailable }
}

/// `guided-accessd` for client and CLI tests: DBusTesting's `DaemonFixture`
/// (private buses, polkit, the supervised daemon, readiness = the name is
/// owned) with a state directory and managed.json. Desktop settings stay in
/// the daemon's memory: these tests are about the client.
final class ServiceFixture: Sendable {
    let fixture: DaemonFixture

    var address: String { fixture.address }
    var polkit: PolkitTestAuthority? { fixture.polkit }
    var stateDirectory: URL { fixture.directory.appendingPathComponent("state") }
    var managedConfig: URL { fixture.directory.appendingPathComponent("managed.json") }

    private init(_ fixture: DaemonFixture) { self.fixture = fixture }

    /// Starts everything; `allowedApplications` goes into managed.json.
    /// Without `polkit`, the daemon's polkit address leads nowhere, so every
    /// admin action is denied.
    static func start(polkit usePolkit: Bool, allowedApplications: [String] = []) async throws -> ServiceFixture {
        var configuration = try configuration { ServiceFixture($0).daemonArguments(on: $0.address, polkitAddress: $0.polkitAddress) }
        configuration.polkit = usePolkit ? .real(policyFiles: [Binaries.policyFile]) : .absent
        return ServiceFixture(try await DaemonFixture.start(configuration) { fixture in
            try ServiceFixture(fixture).writeManagedConfig(allowedApplications: allowedApplications)
        })
    }

    /// A second daemon on a bus of its own that shares this one's state
    /// directory, managed.json and polkit; the caller stops it.
    func startSecondDaemon() async throws -> DaemonFixture {
        try await DaemonFixture.start(try Self.configuration { [self] in
            daemonArguments(on: $0.address, polkitAddress: fixture.polkitAddress)
        })
    }

    private static func configuration(_ arguments: @escaping @Sendable (DaemonFixture) -> [String]) throws
        -> DaemonFixture.Configuration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-client-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = DaemonFixture.Configuration(busName: "org.guidedaccess.GuidedAccess1", directory: directory,
                                                        arguments: arguments)
        configuration.environment = ["GSETTINGS_BACKEND": "memory"]
        return configuration
    }

    private func daemonArguments(on address: String, polkitAddress: String) -> [String] {
        [Binaries.daemon, "--address", address, "--state-dir", stateDirectory.path, "--managed-config", managedConfig.path,
         "--polkit-address", polkitAddress, "--polkit-timeout", "3"]
    }

    func writeManagedConfig(allowedApplications: [String]) throws {
        let data = try JSONSerialization.data(withJSONObject: ["AllowedApplications": allowedApplications])
        try data.write(to: managedConfig)
    }

    /// Starts the daemon and waits until it owns its name.
    func startDaemon() async throws { try await fixture.startDaemon() }

    /// Starts the daemon with a polkit address that leads nowhere: every
    /// admin action is denied, even for root.
    func startDaemonWithoutPolkit() async throws {
        try await fixture.startDaemon(daemonArguments(on: address, polkitAddress: "unix:path=/nonexistent/polkit"))
    }

    /// SIGKILL, as a crash would.
    func killDaemon() async throws { try await fixture.killDaemon() }

    /// SIGTERM, as a clean stop.
    func stopDaemon() { fixture.stopDaemon() }

    func daemonLog() -> String { fixture.log() }

    /// An administrative connection (this process is root or the daemon's user).
    func admin() throws -> GuidedAccessAdmin { try GuidedAccessAdmin(bus: .address(address)) }

    /// Runs the CLI against this bus.
    func cli(_ arguments: [String], stdin: String? = nil, asNobody: Bool = false) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        let argv = [Binaries.cli] + arguments + ["--address", address]
        return try await ProcessRunner.run(asNobody ? ProcessRunner.asUnprivileged(argv) : argv, stdin: stdin,
                                           timeout: .seconds(30))
    }

    func stop() { fixture.stop() }
}

/// A delegate that records what it is told.
final class RecordingDelegate: GuidedAccessRestrictionDelegate {
    let guidedAccessRestrictionIdentifiers: [String]
    private let received = Locked<[GuidedAccessRestrictionChange]>([])
    let changes: AsyncStream<GuidedAccessRestrictionChange>
    private let sink: AsyncStream<GuidedAccessRestrictionChange>.Continuation

    init(_ identifiers: [String]) {
        guidedAccessRestrictionIdentifiers = identifiers
        (changes, sink) = AsyncStream.makeStream()
    }

    var history: [GuidedAccessRestrictionChange] { received.withLock { $0 } }

    func textForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String {
        "Text for \(restrictionIdentifier)"
    }

    func detailTextForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String? {
        restrictionIdentifier.hasSuffix("nodetail") ? nil : "Detail for \(restrictionIdentifier)"
    }

    func guidedAccessRestriction(withIdentifier restrictionIdentifier: String,
                                 didChange newRestrictionState: GuidedAccessRestrictionState) {
        let change = GuidedAccessRestrictionChange(identifier: restrictionIdentifier, state: newRestrictionState)
        received.withLock { $0.append(change) }
        sink.yield(change)
    }
}
