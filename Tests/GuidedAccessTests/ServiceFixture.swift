import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import Synchronization
import Testing

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

/// A private session bus, a state directory, a managed config, optionally a
/// test polkit, and `guided-accessd` on that bus (restartable, killable).
final class ServiceFixture: Sendable {
    let bus: PrivateBus
    let polkit: PolkitTestAuthority?
    let directory: URL
    let managedConfig: URL
    private let daemon = Mutex<Process?>(nil)

    var address: String { bus.address }
    var stateDirectory: URL { directory.appendingPathComponent("state") }

    private init(bus: PrivateBus, polkit: PolkitTestAuthority?, directory: URL) {
        self.bus = bus
        self.polkit = polkit
        self.directory = directory
        self.managedConfig = directory.appendingPathComponent("managed.json")
    }

    /// Starts everything; `allowedApplications` goes into managed.json.
    /// Without `polkit`, the daemon's polkit address leads nowhere, so every
    /// admin action is denied.
    static func start(polkit usePolkit: Bool, allowedApplications: [String] = [],
                      startDaemon: Bool = true) async throws -> ServiceFixture {
        let polkit = usePolkit ? try await PolkitTestAuthority.start(policyFiles: [Binaries.policyFile]) : nil
        let bus: PrivateBus
        do { bus = try PrivateBus.startSession() } catch { polkit?.stop(); throw error }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-client-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = ServiceFixture(bus: bus, polkit: polkit, directory: directory)
        try fixture.writeManagedConfig(allowedApplications: allowedApplications)
        if startDaemon { try await fixture.startDaemon() }
        return fixture
    }

    func writeManagedConfig(allowedApplications: [String]) throws {
        let data = try JSONSerialization.data(withJSONObject: ["AllowedApplications": allowedApplications])
        try data.write(to: managedConfig)
    }

    /// Starts the daemon and waits until it owns its name.
    func startDaemon(withPolkit: Bool? = nil) async throws {
        let polkitAddress = (withPolkit ?? (polkit != nil)) ? (polkit?.systemBusAddress ?? "unix:path=/nonexistent/polkit")
            : "unix:path=/nonexistent/polkit"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.daemon)
        process.arguments = ["--address", bus.address, "--state-dir", stateDirectory.path,
                             "--managed-config", managedConfig.path, "--polkit-address", polkitAddress,
                             "--polkit-timeout", "3"]
        // Desktop settings stay in the daemon's memory: these tests are about
        // the client, and must never reach the user's real dconf.
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["GSETTINGS_BACKEND"] = "memory"
        process.environment = environment
        let logPath = directory.appendingPathComponent("daemon.log").path
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        guard let log = FileHandle(forWritingAtPath: logPath) else { throw FixtureError("cannot open \(logPath)") }
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        daemon.withLock { $0 = process }
        let watcher = try Connection(.address(bus.address))
        defer { watcher.close() }
        for _ in 0..<200 {
            if try await watcher.owner(of: "org.guidedaccess.GuidedAccess1") != nil { return }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("guided-accessd did not take its name; log:\n\(daemonLog())")
    }

    /// SIGKILL, as a crash would.
    func killDaemon() {
        guard let process = daemon.withLock({ $0 }) else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, as a clean stop.
    func stopDaemon() {
        guard let process = daemon.withLock({ $0 }), process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func daemonLog() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? ""
    }

    /// An administrative connection (this process is root or the daemon's user).
    func admin() throws -> GuidedAccessAdmin { try GuidedAccessAdmin(bus: .address(bus.address)) }

    /// Runs the CLI against this bus.
    func cli(_ arguments: [String], stdin: String? = nil, asNobody: Bool = false) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        let argv = [Binaries.cli] + arguments + ["--address", bus.address]
        return try await ProcessRunner.run(asNobody ? ProcessRunner.asUnprivileged(argv) : argv, stdin: stdin,
                                           timeout: .seconds(30))
    }

    func stop() {
        stopDaemon()
        bus.stop()
        polkit?.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}



/// A delegate that records what it is told.
final class RecordingDelegate: GuidedAccessRestrictionDelegate {
    let guidedAccessRestrictionIdentifiers: [String]
    private let received = Mutex<[GuidedAccessRestrictionChange]>([])
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
