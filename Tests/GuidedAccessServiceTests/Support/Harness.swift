import DBusKit
import DBusTesting
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One daemon under test with everything around it.
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
    let bus: PrivateBus
    let directory: URL
    let stateDirectory: URL
    let managedConfig: URL
    let logFile: URL
    let polkitAddress: String
    let desktop: DesktopEnvironment
    private let polkitAuthority: Mutex<PolkitTestAuthority?>
    private let fakeSystemBus: PrivateBus?
    private let daemon = Mutex<DaemonProcess?>(nil)
    /// Client connections handed out by `connect()`, closed by `stop()`.
    let connections = Mutex<[Connection]>([])

    var address: String { bus.address }
    var polkit: PolkitTestAuthority? { polkitAuthority.withLock { $0 } }

    private init(options: Options, bus: PrivateBus, directory: URL, desktop: DesktopEnvironment,
                 polkit: PolkitTestAuthority?, fakeSystemBus: PrivateBus?, polkitAddress: String) {
        self.options = options
        self.desktop = desktop
        self.bus = bus
        self.directory = directory
        stateDirectory = directory.appendingPathComponent("state")
        managedConfig = directory.appendingPathComponent("managed.json")
        logFile = directory.appendingPathComponent("daemon.log")
        polkitAuthority = Mutex(polkit)
        self.fakeSystemBus = fakeSystemBus
        self.polkitAddress = polkitAddress
    }

    /// Starts the buses, writes managed.json, and (unless told not to) the daemon.
    static func start(_ options: Options) async throws -> Harness {
        var polkit: PolkitTestAuthority?
        var fakeSystemBus: PrivateBus?
        var sessionBus: PrivateBus?
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("ga-svc-test-\(UUID().uuidString.prefix(13))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
            let polkitAddress: String
            switch options.polkit {
            case .absent:
                polkitAddress = "unix:path=\(directory.path)/no-polkit-here"
            case .busWithoutPolkit:
                let bus = try PrivateBus.startSystem()
                fakeSystemBus = bus
                polkitAddress = bus.address
            case .real(let rules):
                let authority = try await PolkitTestAuthority.start(policyFiles: [Paths.policyFile], rules: rules)
                polkit = authority
                polkitAddress = authority.systemBusAddress
            }
            let desktop = try DesktopEnvironment(in: directory, backend: options.asNobody ? .memory : options.settings,
                                                 dataDirectories: options.schemaDataDirectories)
            let bus = try PrivateBus.startSession(serviceDirectories: [desktop.serviceDirectory.path],
                                                  environment: desktop.variables)
            sessionBus = bus
            let harness = Harness(options: options, bus: bus, directory: directory, desktop: desktop, polkit: polkit,
                                  fakeSystemBus: fakeSystemBus, polkitAddress: polkitAddress)
            try FileManager.default.createDirectory(at: harness.stateDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            if options.asNobody {
                guard chown(harness.stateDirectory.path, ProcessRunner.unprivilegedID, ProcessRunner.unprivilegedID) == 0 else {
                    throw HarnessError("cannot chown \(harness.stateDirectory.path) to nobody")
                }
            }
            try harness.writeManagedConfig(allowedApplications: options.allowedApplications,
                                           lockedFeatures: options.lockedFeatures, limits: options.limits)
            if options.startDaemon { try await harness.startDaemon() }
            return harness
        } catch {
            polkit?.stop()
            fakeSystemBus?.stop()
            sessionBus?.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func writeManagedConfig(allowedApplications: [String], lockedFeatures: [String: Bool] = [:],
                            limits: [String: Int] = [:]) throws {
        let data = try JSONSerialization.data(withJSONObject: ["AllowedApplications": allowedApplications,
                                                               "LockedFeatures": lockedFeatures, "Limits": limits])
        try data.write(to: managedConfig)
        chmod(managedConfig.path, 0o644)
    }

    /// The daemon's command line.
    var daemonArguments: [String] {
        let argv = [Paths.daemon, "--address", bus.address, "--state-dir", stateDirectory.path,
                    "--managed-config", managedConfig.path, "--polkit-address", polkitAddress,
                    "--polkit-timeout", "\(options.polkitTimeout)", "--passcode-iterations", "1000"]
        return options.asNobody ? ProcessRunner.asUnprivileged(argv) : argv
    }

    /// Starts the daemon and waits until it owns its name and said it is ready.
    func startDaemon() async throws {
        let pidFile = directory.appendingPathComponent("daemon.pid")
        try? FileManager.default.removeItem(at: pidFile)
        let script = #"""
            "$@" </dev/null >>"$GA_TEST_LOG" 2>&1 &
            child=$!
            echo "$child" >"$GA_TEST_PIDFILE.tmp" && mv "$GA_TEST_PIDFILE.tmp" "$GA_TEST_PIDFILE"
            while read -r _; do :; done
            kill -KILL "$child" 2>/dev/null
            exit 0
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "guided-accessd-test-supervisor"] + daemonArguments
        var environment = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
                    "GUIDED_ACCESS_MANAGED_CONFIG"] {
            environment.removeValue(forKey: key)
        }
        // GLib reaches the desktop's settings (dconf) over the session bus: the private one.
        for (key, value) in desktopVariables { environment[key] = value }
        environment["GA_TEST_LOG"] = logFile.path
        environment["GA_TEST_PIDFILE"] = pidFile.path
        process.environment = environment
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let logOffset = (try? FileManager.default.attributesOfItem(atPath: logFile.path)[.size] as? Int) ?? 0
        try process.run()
        try? pipe.fileHandleForReading.close()

        var pid: pid_t = 0
        for _ in 0..<500 {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8),
               let value = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                pid = value
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard pid > 0 else {
            try? pipe.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
            throw HarnessError("the daemon supervisor did not report a pid")
        }
        let running = DaemonProcess(supervisor: process, keepAlive: pipe.fileHandleForWriting, pid: pid)
        daemon.withLock { $0 = running }

        let watcher = try Connection(.address(bus.address))
        defer { watcher.close() }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if try await watcher.owner(of: BusName(validating: GA.busName)) != nil,
               newLog(since: logOffset).contains("ready on") {
                return
            }
            if !running.isAlive { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw HarnessError("guided-accessd did not become ready (alive: \(running.isAlive)); log:\n\(log())")
    }

    private func newLog(since offset: Int) -> String {
        guard let data = try? Data(contentsOf: logFile), data.count >= offset else { return "" }
        return String(decoding: data[offset...], as: UTF8.self)
    }

    /// The daemon's pid (the process that owns the name).
    var daemonPID: pid_t? { daemon.withLock { $0?.pid } }

    /// SIGKILL, as a crash would; waits until the bus dropped its name.
    func killDaemon() async throws {
        guard let running = daemon.withLock({ current -> DaemonProcess? in defer { current = nil }; return current }) else { return }
        running.stop(signal: SIGKILL)
        try await waitUntilNameIsFree()
    }

    /// SIGTERM, as a clean stop.
    func stopDaemon() {
        guard let running = daemon.withLock({ current -> DaemonProcess? in defer { current = nil }; return current }) else { return }
        running.stop(signal: SIGTERM)
    }

    func waitUntilNameIsFree() async throws {
        let watcher = try Connection(.address(bus.address))
        defer { watcher.close() }
        for _ in 0..<400 {
            if try await watcher.owner(of: BusName(validating: GA.busName)) == nil { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw HarnessError("\(GA.busName) still has an owner after the daemon died")
    }

    /// Stops polkitd early (releasing the cross-test polkit lock) when a test
    /// no longer needs it, e.g. before waiting for a time limit.
    func stopPolkit() {
        let authority = polkitAuthority.withLock { current -> PolkitTestAuthority? in defer { current = nil }; return current }
        authority?.stop()
    }

    /// Everything the daemon wrote on stderr.
    func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

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
        stopDaemon()
        stopPolkit()
        fakeSystemBus?.stop()
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
