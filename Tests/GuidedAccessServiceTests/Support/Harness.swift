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
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let interactiveAuthorizationRequired = "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

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

/// The daemon process. It runs under a tiny `sh` supervisor whose stdin is a
/// pipe from this process: if the test process dies, the pipe closes and the
/// supervisor kills the daemon, so nothing outlives a crashed test run.
final class DaemonProcess: @unchecked Sendable {
    let supervisor: Process
    let keepAlive: FileHandle
    let pid: pid_t

    init(supervisor: Process, keepAlive: FileHandle, pid: pid_t) {
        self.supervisor = supervisor
        self.keepAlive = keepAlive
        self.pid = pid
    }

    /// Alive and not a zombie.
    var isAlive: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// Sends `signal`, waits until the daemon is gone (SIGKILL after `grace`),
    /// then ends the supervisor.
    func stop(signal: Int32, grace: Double = 5) {
        kill(pid, signal)
        kill(pid, SIGCONT)
        let deadline = Date().addingTimeInterval(grace)
        while isAlive && Date() < deadline { usleep(10_000) }
        if isAlive {
            kill(pid, SIGKILL)
            while isAlive { usleep(10_000) }
        }
        try? keepAlive.close()
        if supervisor.isRunning { supervisor.terminate() }
        supervisor.waitUntilExit()
    }
}

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
    private let connections = Mutex<[Connection]>([])

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

    // MARK: Clients

    /// A DBusKit client connection to the private bus, closed by `stop()`.
    func connect() throws -> Connection {
        let connection = try Connection(.address(bus.address))
        connections.withLock { $0.append(connection) }
        return connection
    }

    /// `busctl --address=BUS ARGS...`.
    func busctl(_ arguments: [String], asNobody: Bool = false, timeout: Duration = .seconds(20)) async throws -> ToolResult {
        try await run(["busctl", "--address=\(bus.address)"] + arguments, asNobody: asNobody, timeout: timeout)
    }

    /// `busctl call` on the main object (or `path`).
    func busctlCall(_ interface: String, _ member: String, _ signatureAndArguments: [String] = [],
                    path: String = GA.path, asNobody: Bool = false) async throws -> ToolResult {
        try await busctl(["call", GA.busName, path, interface, member] + signatureAndArguments, asNobody: asNobody)
    }

    /// `gdbus call --address BUS --dest NAME --object-path PATH --method IFACE.MEMBER ARGS...`.
    func gdbus(_ interface: String, _ member: String, _ arguments: [String] = [], path: String = GA.path,
               asNobody: Bool = false) async throws -> ToolResult {
        try await run(["gdbus", "call", "--address", bus.address, "--dest", GA.busName, "--object-path", path,
                       "--method", "\(interface).\(member)"] + arguments, asNobody: asNobody)
    }

    /// `dbus-send --print-reply` to the service.
    func dbusSend(_ interface: String, _ member: String, _ arguments: [String] = [], path: String = GA.path,
                  asNobody: Bool = false) async throws -> ToolResult {
        try await run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--reply-timeout=15000", "--dest=\(GA.busName)",
                       path, "\(interface).\(member)"] + arguments, asNobody: asNobody)
    }

    /// Runs `/usr/bin/python3 -c PRELUDE+script args...` with `GA_ADDRESS` set;
    /// the script's last stdout line must be a JSON object, which is returned.
    func python(_ script: String, _ arguments: [String] = [], asNobody: Bool = false,
                timeout: Duration = .seconds(20)) async throws -> PythonResult {
        let result = try await run([Paths.python, "-c", Python.prelude + script] + arguments,
                                   asNobody: asNobody, timeout: timeout, environment: ["GA_ADDRESS": bus.address])
        guard let line = result.stdout.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("python client printed no JSON result: \(result)")
        }
        return PythonResult(values: object, raw: result)
    }

    func run(_ argv: [String], asNobody: Bool = false, timeout: Duration = .seconds(20),
             environment: [String: String] = [:]) async throws -> ToolResult {
        let command = asNobody ? ProcessRunner.asUnprivileged(argv) : argv
        let result = try await ProcessRunner.run(command, environment: environment, timeout: timeout)
        return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

/// The JSON a python client printed.
struct PythonResult: @unchecked Sendable {
    let values: [String: Any]
    let raw: ToolResult
    subscript(key: String) -> Any? { values[key] }
    func string(_ key: String) -> String? { values[key] as? String }
    func bool(_ key: String) -> Bool? { values[key] as? Bool }
}

/// Runs `body` with a fresh harness and stops everything afterwards, also
/// when `body` throws; the daemon log is attached to a thrown error.
func withHarness<T>(_ options: Harness.Options = .init(), _ body: (Harness) async throws -> T) async throws -> T {
    let harness = try await Harness.start(options)
    do {
        let result = try await body(harness)
        harness.stop()
        return result
    } catch {
        let log = harness.log()
        harness.stop()
        throw HarnessError("\(error)\n--- guided-accessd log ---\n\(log)")
    }
}

// MARK: - DBusKit helpers

extension Connection {
    /// Calls a member of the service; returns the reply body.
    func ga(_ interface: String, _ member: String, _ arguments: [DBusValue] = [], path: String = GA.path,
            interactive: Bool = false, timeout: Duration = .seconds(20)) async throws -> [DBusValue] {
        try await call(BusName(validating: GA.busName), ObjectPath(validating: path), InterfaceName(validating: interface),
                       MemberName(validating: member), arguments, allowInteractiveAuthorization: interactive, timeout: timeout)
    }

    /// The D-Bus error name a call fails with, or nil when it succeeds.
    func gaError(_ interface: String, _ member: String, _ arguments: [DBusValue] = [], path: String = GA.path,
                 interactive: Bool = false) async -> String? {
        do {
            _ = try await ga(interface, member, arguments, path: path, interactive: interactive)
            return nil
        } catch let error as DBusError {
            return error.name.rawValue
        } catch {
            return "\(error)"
        }
    }

    /// `org.freedesktop.DBus.Properties.Get`, unwrapped from its variant.
    func property(_ interface: String, _ name: String, path: String = GA.path) async throws -> DBusValue {
        let reply = try await ga("org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)], path: path)
        guard case .variant(let value)? = reply.first else { throw HarnessError("Get \(name) gave \(reply)") }
        return value
    }

    func property<T: DBusType>(_ interface: String, _ name: String, as type: T.Type, path: String = GA.path) async throws -> T {
        try T(dbusValue: try await property(interface, name, path: path))
    }

    func state() async throws -> String { try await property(GA.session, "State", as: String.self) }
    func enabled() async throws -> Bool { try await property(GA.session, "Enabled", as: Bool.self) }

    /// `List()` as rows of (identifier, text, detail, state, app, registered).
    func list() async throws -> [ListRow] {
        let reply = try await ga(GA.restrictions, "List")
        guard case .array(_, let rows)? = reply.first else { throw HarnessError("List gave \(reply)") }
        return try rows.map { row in
            guard case .structure(let fields) = row, fields.count == 6,
                  case .string(let identifier) = fields[0], case .string(let text) = fields[1],
                  case .string(let detail) = fields[2], case .string(let state) = fields[3],
                  case .string(let app) = fields[4], case .bool(let registered) = fields[5] else {
                throw HarnessError("unexpected List row \(row)")
            }
            return ListRow(identifier: identifier, text: text, detail: detail, state: state, app: app, registered: registered)
        }
    }

    /// Subscribes to a signal of the service's main object (or `path`).
    func gaSignals(_ interface: String, _ member: String? = nil, path: String? = GA.path) async throws -> AsyncStream<Message> {
        try await signals(MatchRule(path: try path.map(ObjectPath.init(validating:)), interface: InterfaceName(validating: interface),
                                    member: try member.map(MemberName.init(validating:))))
    }
}

struct ListRow: Hashable, Sendable {
    let identifier, text, detail, state, app: String
    let registered: Bool
}

/// An `a{sv}` value.
func options(_ entries: [String: DBusValue]) -> DBusValue {
    .dictionary(key: "s", value: "v", entries.sorted { $0.key < $1.key }.map {
        DBusValue.DictionaryEntry(key: .string($0.key), value: .variant($0.value))
    })
}

/// An `a{ss}` value.
func stringMap(_ entries: [String: String]) -> DBusValue {
    .dictionary(key: "s", value: "s", entries.sorted { $0.key < $1.key }.map {
        DBusValue.DictionaryEntry(key: .string($0.key), value: .string($0.value))
    })
}

/// An `as` value.
func strings(_ values: [String]) -> DBusValue { .array(element: "s", values.map { .string($0) }) }

/// An `a(sss)` value for Register.
func declarations(_ entries: [(String, String, String)]) -> DBusValue {
    .array(element: "(sss)", entries.map { .structure([.string($0.0), .string($0.1), .string($0.2)]) })
}



/// Collects messages from `stream` for `duration`.
func collect(_ stream: AsyncStream<Message>, for duration: Duration) async -> [Message] {
    let task = Task {
        var received: [Message] = []
        for await message in stream { received.append(message) }
        return received
    }
    try? await Task.sleep(for: duration)
    task.cancel()
    return await task.value
}

// MARK: - Python

enum Python {
    /// Helpers every python client script starts with.
    static let prelude = #"""
        import json, os, sys, time
        import dbus
        ADDRESS = os.environ["GA_ADDRESS"]
        NAME = "org.guidedaccess.GuidedAccess1"
        PATH = "/org/guidedaccess/GuidedAccess1"
        SESSION = "org.guidedaccess.GuidedAccess1"
        FEATURES = "org.guidedaccess.Features1"
        RESTRICTIONS = "org.guidedaccess.Restrictions1"
        RESTRICTION = "org.guidedaccess.Restriction1"
        PROPS = "org.freedesktop.DBus.Properties"

        def connect(mainloop=False):
            if mainloop:
                from dbus.mainloop.glib import DBusGMainLoop
                DBusGMainLoop(set_as_default=True)
            return dbus.bus.BusConnection(ADDRESS)

        def iface(bus, name, path=PATH):
            return dbus.Interface(bus.get_object(NAME, path, introspect=False), name)

        def send_without_waiting(bus, method):
            """Sends Start or RequestSession with empty options; no reply awaited."""
            msg = dbus.lowlevel.MethodCallMessage(NAME, PATH, SESSION, method)
            if method == "Start":
                msg.append("org.example.Kiosk", dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
            else:
                msg.append(True, dbus.Dictionary({}, signature="sv"), signature="ba{sv}")
            bus.send_message(msg)
            bus.flush()

        def attempt(fn, *args, **kwargs):
            """["ok", value] or ["error", error name]."""
            try:
                return ["ok", plain(fn(*args, **kwargs))]
            except dbus.exceptions.DBusException as e:
                return ["error", e.get_dbus_name()]

        def plain(value):
            if isinstance(value, dbus.Boolean): return bool(value)
            if isinstance(value, (dbus.String, dbus.ObjectPath)): return str(value)
            if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)): return int(value)
            if isinstance(value, dict): return {str(k): plain(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)): return [plain(v) for v in value]
            return value

        def done(**result):
            print(json.dumps(result))
            sys.stdout.flush()

        """#
}

// MARK: - Reading tool output

extension ToolResult {
    /// The D-Bus error name reported by gdbus (`GDBus.Error:NAME: ...`),
    /// dbus-send (`Error NAME: ...`) or python; nil when there is none.
    var errorName: String? {
        let text = stderr + "\n" + stdout
        if let range = text.range(of: "GDBus.Error:") {
            return String(text[range.upperBound...].prefix { $0 != ":" && !$0.isWhitespace })
        }
        for line in text.split(separator: "\n") where line.hasPrefix("Error ") {
            return String(line.dropFirst(6).prefix { $0 != ":" && !$0.isWhitespace })
        }
        return nil
    }
}

/// The argument vector for `busctl get-property` of a service property.
func getProperty(_ interface: String, _ name: String, path: String = GA.path) -> [String] {
    ["get-property", GA.busName, path, interface, name]
}
