// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// One D-Bus daemon under test with everything around it: its own directory,
/// a private session bus (with activatable services if asked), a polkit of the
/// kind the test wants on a private system bus, and the daemon itself under a
/// supervisor. The daemon is ready when it owns its bus name: a service
/// exports its objects before it asks for the name, so a client that sees the
/// owner can call it.
///
/// ```swift
/// let fixture = try await DaemonFixture.start(.init(busName: "org.example.Daemon", directory: dir) { f in
///     ["/usr/bin/exampled", "--address", f.address, "--polkit-address", f.polkitAddress]
/// })
/// defer { fixture.stop() }
/// ```
public final class DaemonFixture: Sendable {
    /// The polkit the daemon finds at `polkitAddress`.
    public enum Polkit: Sendable {
        /// The address names a socket that does not exist.
        case absent
        /// A private system bus on which nobody owns org.freedesktop.PolicyKit1.
        case busWithoutPolkit
        /// A real polkitd with these policy files and optional `rules.d` text.
        case real(policyFiles: [URL], rules: String? = nil)
    }

    /// What to start.
    public struct Configuration: Sendable {
        /// The well-known name whose ownership means "ready".
        public var busName: String
        /// The fixture's directory: it must exist; `stop()` removes it.
        public var directory: URL
        public var polkit: Polkit = .absent
        /// `<servicedir>`s of the session bus, for bus-activated helpers.
        public var serviceDirectories: [String] = []
        /// Environment of the session bus, which activated services inherit.
        public var busEnvironment: [String: String] = [:]
        /// Added to the daemon's environment. Bus variables of this process
        /// are never passed on: `DBUS_SESSION_BUS_ADDRESS` is the private
        /// session bus, so GLib and whatever the daemon spawns stay on it.
        public var environment: [String: String] = [:]
        /// Start the daemon in `start`; false leaves it to the test.
        public var startsDaemon = true
        /// The daemon's command line, given the started fixture.
        public var arguments: @Sendable (DaemonFixture) -> [String]

        public init(busName: String, directory: URL, arguments: @escaping @Sendable (DaemonFixture) -> [String]) {
            self.busName = busName
            self.directory = directory
            self.arguments = arguments
        }
    }

    /// Why the fixture could not do what it was asked.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    public let configuration: Configuration
    /// The private session bus the daemon serves on.
    public let bus: PrivateBus
    /// What the daemon is told to use as the system bus for polkit.
    public let polkitAddress: String
    /// The daemon's stdout and stderr, across restarts.
    public let logFile: URL
    private let polkitAuthority: Locked<PolkitTestAuthority?>
    private let systemBusWithoutPolkit: PrivateBus?
    private let daemon = Locked<SupervisedDaemon?>(nil)

    public var address: String { bus.address }
    public var directory: URL { configuration.directory }
    /// The running polkitd, until `stopPolkit()`.
    public var polkit: PolkitTestAuthority? { polkitAuthority.withLock { $0 } }
    /// The daemon's pid while it runs.
    public var daemonPID: pid_t? { daemon.withLock { $0?.pid } }

    private init(_ configuration: Configuration, bus: PrivateBus, polkit: PolkitTestAuthority?,
                 systemBusWithoutPolkit: PrivateBus?, polkitAddress: String) {
        self.configuration = configuration
        self.bus = bus
        polkitAuthority = Locked(polkit)
        self.systemBusWithoutPolkit = systemBusWithoutPolkit
        self.polkitAddress = polkitAddress
        logFile = configuration.directory.appendingPathComponent("daemon.log")
    }

    /// Starts polkit and the buses, runs `prepare` (files the daemon reads),
    /// then the daemon unless the configuration says not to. On failure
    /// everything started so far is stopped and the directory removed.
    public static func start(_ configuration: Configuration,
                             prepare: (DaemonFixture) throws -> Void = { _ in }) async throws -> DaemonFixture {
        var polkit: PolkitTestAuthority?
        var systemBus: PrivateBus?
        var sessionBus: PrivateBus?
        do {
            let polkitAddress: String
            switch configuration.polkit {
            case .absent:
                polkitAddress = "unix:path=\(configuration.directory.path)/no-polkit-here"
            case .busWithoutPolkit:
                systemBus = try PrivateBus.startSystem()
                polkitAddress = systemBus!.address
            case .real(let policyFiles, let rules):
                polkit = try await PolkitTestAuthority.start(policyFiles: policyFiles, rules: rules)
                polkitAddress = polkit!.systemBusAddress
            }
            sessionBus = try PrivateBus.startSession(serviceDirectories: configuration.serviceDirectories,
                                                     environment: configuration.busEnvironment)
            let fixture = DaemonFixture(configuration, bus: sessionBus!, polkit: polkit, systemBusWithoutPolkit: systemBus,
                                        polkitAddress: polkitAddress)
            try prepare(fixture)
            if configuration.startsDaemon { try await fixture.startDaemon() }
            return fixture
        } catch {
            polkit?.stop()
            systemBus?.stop()
            sessionBus?.stop()
            try? FileManager.default.removeItem(at: configuration.directory)
            throw error
        }
    }

    /// Starts the daemon and returns when it owns its bus name.
    public func startDaemon() async throws {
        try await startDaemon(configuration.arguments(self))
    }

    /// Starts the daemon with another command line (e.g. a changed option).
    public func startDaemon(_ argv: [String]) async throws {
        var environment = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE"] {
            environment.removeValue(forKey: key)
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment.merge(configuration.environment) { _, new in new }
        let running = try await SupervisedDaemon.launch(argv, environment: environment, log: logFile,
                                                        pidFile: directory.appendingPathComponent("daemon.pid"))
        daemon.withLock { $0 = running }
        let name = try BusName(validating: configuration.busName)
        let watcher = try Connection(.address(bus.address))
        defer { watcher.close() }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if try await watcher.owner(of: name) != nil { return }
            if !running.isAlive { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure("\(argv.first ?? "the daemon") did not take \(configuration.busName) (alive: \(running.isAlive)); log:\n\(log())")
    }

    /// SIGKILL, as a crash would; returns when the bus has dropped the name.
    public func killDaemon() async throws {
        guard let running = takeDaemon() else { return }
        running.stop(signal: SIGKILL)
        try await waitUntilNameIsFree()
    }

    /// SIGTERM, as a clean stop; returns when the daemon has exited.
    public func stopDaemon() {
        takeDaemon()?.stop(signal: SIGTERM)
    }

    private func takeDaemon() -> SupervisedDaemon? {
        daemon.withLock { current in
            defer { current = nil }
            return current
        }
    }

    /// Returns when nobody owns the daemon's bus name.
    public func waitUntilNameIsFree() async throws {
        let name = try BusName(validating: configuration.busName)
        let watcher = try Connection(.address(bus.address))
        defer { watcher.close() }
        for _ in 0..<400 {
            if try await watcher.owner(of: name) == nil { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw Failure("\(configuration.busName) still has an owner after the daemon died")
    }

    /// Stops polkitd early (releasing the cross-test polkit lock) when a test
    /// no longer needs it.
    public func stopPolkit() {
        let authority = polkitAuthority.withLock { current -> PolkitTestAuthority? in
            defer { current = nil }
            return current
        }
        authority?.stop()
    }

    /// Everything the daemon wrote, across restarts.
    public func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Stops the daemon, polkit and the buses; removes the directory.
    public func stop() {
        stopDaemon()
        stopPolkit()
        systemBusWithoutPolkit?.stop()
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
