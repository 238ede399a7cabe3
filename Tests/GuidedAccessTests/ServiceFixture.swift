// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import GuidedAccessContract
import GuidedAccessTesting
import Testing
import Locking

/// The built programs the client tests run beside the daemon (``Project``).
enum Binaries {
    static var shop: String { Project.executable("guided-access-shop") }

    /// This process's executable: its app id as the daemon sees it.
    static let selfExecutable: String = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0]
}

/// Why a test is skipped: the comments of `.enabled(if: Requirements.…)`.
extension Comment {
    static var daemonReason: Comment { Comment(rawValue: Requirements.daemonReason) }
    static var polkitReason: Comment { Comment(rawValue: Requirements.polkitReason) }
}

/// `guided-accessd` for client and CLI tests (``DaemonUnderTest``: private
/// buses, polkit, the supervised daemon, its state directory and
/// managed.json). Desktop settings stay in the daemon's memory: these tests
/// are about the client.
final class ServiceFixture: Sendable {
    let daemon: DaemonUnderTest

    var address: String { daemon.address }
    var polkit: PolkitTestAuthority? { daemon.polkit }
    var stateDirectory: URL { daemon.stateDirectory }
    var managedConfig: URL { daemon.managedConfig }

    private init(_ daemon: DaemonUnderTest) { self.daemon = daemon }

    /// Starts everything; `allowedApplications` and the other `managed`
    /// keys go into managed.json. Without `polkit`, the daemon's polkit
    /// address leads nowhere, so every admin action is denied.
    static func start(polkit usePolkit: Bool, allowedApplications: [String] = [],
                      managed: [String: Any] = [:]) async throws -> ServiceFixture {
        var options = DaemonUnderTest.Options()
        options.polkit = usePolkit ? .real() : .absent
        options.polkitTimeout = 3
        options.managedConfig = try managedConfig(allowedApplications: allowedApplications, managed)
        return ServiceFixture(try await DaemonUnderTest.start(options, in: DaemonUnderTest.makeDirectory(prefix: "ga-client-test")))
    }

    /// A second daemon on a bus of its own that shares this one's state
    /// directory, managed.json and polkit; the caller stops it.
    func startSecondDaemon() async throws -> DaemonFixture {
        var configuration = DaemonFixture.Configuration(busName: GuidedAccessBus.name,
                                                        directory: try DaemonUnderTest.makeDirectory(prefix: "ga-client-test")) {
            [daemon] second in daemon.commandLine(address: second.address).argv
        }
        configuration.environment = daemon.options.environment
        return try await DaemonFixture.start(configuration)
    }

    private static func managedConfig(allowedApplications: [String], _ managed: [String: Any] = [:]) throws -> String {
        let keys = managed.merging(["AllowedApplications": allowedApplications]) { _, allowed in allowed }
        return String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self)
    }

    func writeManagedConfig(allowedApplications: [String]) throws {
        try daemon.writeManagedConfig(Self.managedConfig(allowedApplications: allowedApplications))
    }

    /// managed.json as `keys`, moved into place; the running daemon follows it.
    func writeManagedConfig(_ keys: [String: Any]) throws {
        try daemon.writeManagedConfig(String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self))
    }

    /// Starts the daemon and waits until it owns its name.
    func startDaemon() async throws { try await daemon.startDaemon() }

    /// Starts the daemon with a polkit address that leads nowhere: every
    /// admin action is denied, even for root.
    func startDaemonWithoutPolkit() async throws {
        try await daemon.startDaemon(daemon.commandLine(polkitAddress: "unix:path=/nonexistent/polkit"))
    }

    /// SIGKILL, as a crash would.
    func killDaemon() async throws { try await daemon.killDaemon() }

    /// SIGTERM, as a clean stop.
    func stopDaemon() { daemon.stopDaemon() }

    func daemonLog() -> String { daemon.log() }

    /// An administrative connection (this process is root or the daemon's user).
    func admin() throws -> GuidedAccessAdmin { try GuidedAccessAdmin(bus: .address(address)) }

    /// Runs the CLI against this bus.
    func cli(_ arguments: [String], stdin: String? = nil, asNobody: Bool = false, environment: [String: String] = [:])
        async throws -> (status: Int32, stdout: String, stderr: String) {
        let argv = [Project.cli] + arguments + ["--address", address]
        return try await ProcessRunner.run(asNobody ? ProcessRunner.asUnprivileged(argv) : argv, environment: environment,
                                           stdin: stdin, timeout: .seconds(30))
    }

    func stop() { daemon.stop() }
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
