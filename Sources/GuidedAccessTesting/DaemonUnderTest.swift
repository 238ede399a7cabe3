// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GuidedAccessContract
#if canImport(Glibc)
import Glibc
#endif

/// `guided-accessd` under test, started the one way every test, benchmark
/// and stress case starts it: DBusTesting's ``DaemonFixture`` (private buses,
/// polkit, the supervised daemon, ready when it owns its name) with what this
/// daemon reads — `DIRECTORY/state` and `DIRECTORY/managed.json` — and its
/// ``DaemonCommandLine``.
///
/// ```swift
/// var options = DaemonUnderTest.Options()
/// options.polkit = .real()
/// let daemon = try await DaemonUnderTest.start(options)
/// defer { daemon.stop() }
/// ```
public final class DaemonUnderTest: Sendable {
    /// The polkit the daemon finds at its `--polkit-address`.
    public enum Polkit: Sendable {
        /// The address names a socket that does not exist: every admin action is denied.
        case absent
        /// A private system bus on which nobody owns org.freedesktop.PolicyKit1.
        case busWithoutPolkit
        /// A real polkitd with the project's policy and optional `rules.d` text.
        case real(rules: String? = nil)
    }

    /// What a test may change about the daemon it runs.
    public struct Options: Sendable {
        public var polkit: Polkit = .absent
        /// `--polkit-timeout`, seconds; nil: the daemon's default.
        public var polkitTimeout: Double?
        /// `--passcode-cost`; nil: the shipped cost.
        public var passcodeCost: Int?
        /// Run the daemon as nobody (65534), with a state directory nobody owns.
        public var asNobody = false
        /// `managed.json`'s text; nil: an empty policy (`{}`): the daemon
        /// is always named one, and refuses to start when it is missing.
        public var managedConfig: String?
        /// Added to the daemon's environment; desktop settings stay in its memory unless this says otherwise.
        public var environment = DaemonCommandLine.environment
        /// `<servicedir>`s of the session bus, for bus-activated helpers (dconf).
        public var serviceDirectories: [String] = []
        /// Environment of the session bus, which activated helpers inherit.
        public var busEnvironment: [String: String] = [:]
        /// Start the daemon in `start`; false leaves it to the caller.
        public var startsDaemon = true
        public var executable = Project.daemon

        public init() {}
    }

    public let options: Options
    public let fixture: DaemonFixture

    public var directory: URL { fixture.directory }
    /// The private session bus the daemon serves on.
    public var bus: PrivateBus { fixture.bus }
    public var address: String { fixture.address }
    public var polkitAddress: String { fixture.polkitAddress }
    /// The running polkitd, until `stopPolkit()`.
    public var polkit: PolkitTestAuthority? { fixture.polkit }
    public var daemonPID: pid_t? { fixture.daemonPID }
    public var stateDirectory: URL { Self.stateDirectory(in: directory) }
    public var managedConfig: URL { Self.managedConfig(in: directory) }

    private init(options: Options, fixture: DaemonFixture) {
        self.options = options
        self.fixture = fixture
    }

    /// A fresh directory `/tmp/PREFIX-…` (mode 0755, so nobody can reach a
    /// state directory inside), for `start(_:in:)`.
    public static func makeDirectory(prefix: String) throws -> URL {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(13))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return directory
    }

    /// Starts polkit and the buses, writes the state directory and
    /// managed.json into `directory` (a new one when nil; `stop()` removes
    /// it), then the daemon unless the options say not to.
    public static func start(_ options: Options = Options(), in directory: URL? = nil) async throws -> DaemonUnderTest {
        let directory = try directory ?? makeDirectory(prefix: "ga-test")
        var configuration = DaemonFixture.Configuration(busName: GuidedAccessBus.name, directory: directory) { fixture in
            commandLine(options, in: fixture.directory, address: fixture.address, polkitAddress: fixture.polkitAddress).argv
        }
        configuration.polkit = switch options.polkit {
        case .absent: .absent
        case .busWithoutPolkit: .busWithoutPolkit
        case .real(let rules): .real(policyFiles: [Project.policyFile], rules: rules)
        }
        configuration.serviceDirectories = options.serviceDirectories
        configuration.busEnvironment = options.busEnvironment
        // The user's configuration (kwinrc, which the daemon may edit to
        // turn the KWin script back on) in the test's directory, never the
        // user's own.
        configuration.environment = options.environment.merging(
            ["XDG_CONFIG_HOME": directory.appendingPathComponent("config").path]) { given, _ in given }
        configuration.startsDaemon = options.startsDaemon
        let fixture = try await DaemonFixture.start(configuration) { fixture in
            try prepare(fixture.directory, options)
        }
        return DaemonUnderTest(options: options, fixture: fixture)
    }

    private static func prepare(_ directory: URL, _ options: Options) throws {
        let state = stateDirectory(in: directory)
        if !FileManager.default.fileExists(atPath: state.path) {
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        if options.asNobody, chown(state.path, ProcessRunner.unprivilegedID, ProcessRunner.unprivilegedID) != 0 {
            throw DaemonFixture.Failure("cannot chown \(state.path) to nobody")
        }
        let managed = managedConfig(in: directory)
        if options.managedConfig != nil || !FileManager.default.fileExists(atPath: managed.path) {
            try writeManagedConfig(options.managedConfig ?? "{}", to: managed)
        }
    }

    private static func stateDirectory(in directory: URL) -> URL { directory.appendingPathComponent("state") }
    private static func managedConfig(in directory: URL) -> URL { directory.appendingPathComponent("managed.json") }

    private static func commandLine(_ options: Options, in directory: URL, address: String,
                                    polkitAddress: String) -> DaemonCommandLine {
        var commandLine = DaemonCommandLine(executable: options.executable)
        commandLine.address = address
        commandLine.stateDirectory = stateDirectory(in: directory).path
        commandLine.managedConfig = managedConfig(in: directory).path
        commandLine.polkitAddress = polkitAddress
        commandLine.polkitTimeout = options.polkitTimeout
        commandLine.passcodeCost = options.passcodeCost
        commandLine.asNobody = options.asNobody
        return commandLine
    }

    /// The daemon's command line on `address` (e.g. a second bus) asking
    /// polkit on `polkitAddress`, with this one's state and managed.json.
    public func commandLine(address: String? = nil, polkitAddress: String? = nil) -> DaemonCommandLine {
        Self.commandLine(options, in: directory, address: address ?? self.address,
                         polkitAddress: polkitAddress ?? self.polkitAddress)
    }

    /// Replaces managed.json (mode 0644: a daemon run as nobody reads it).
    public func writeManagedConfig(_ text: String) throws {
        try Self.writeManagedConfig(text, to: managedConfig)
    }

    private static func writeManagedConfig(_ text: String, to file: URL) throws {
        try text.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o644)
    }

    /// Starts the daemon and returns when it owns its name.
    public func startDaemon() async throws { try await fixture.startDaemon() }
    /// Starts the daemon with another command line (e.g. polkit elsewhere).
    public func startDaemon(_ commandLine: DaemonCommandLine) async throws { try await fixture.startDaemon(commandLine.argv) }
    /// SIGKILL, as a crash would; returns when the bus has dropped the name.
    public func killDaemon() async throws { try await fixture.killDaemon() }
    /// SIGTERM, as a clean stop; returns when the daemon has exited.
    public func stopDaemon() { fixture.stopDaemon() }
    /// Returns when nobody owns the daemon's name.
    public func waitUntilNameIsFree() async throws { try await fixture.waitUntilNameIsFree() }
    /// Stops polkitd early (releasing the cross-test polkit lock) when a test
    /// no longer needs it, e.g. before waiting for a time limit.
    public func stopPolkit() { fixture.stopPolkit() }
    /// Everything the daemon wrote, across restarts.
    public func log() -> String { fixture.log() }
    /// Stops the daemon, polkit and the buses; removes the directory.
    public func stop() { fixture.stop() }
}
