// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A private `dbus-daemon` for one test (or one test suite): its own socket in
/// a fresh temporary directory, a permissive policy (anyone may connect, own
/// any name, send and receive anything), and nothing shared with the real
/// session or system bus. A session bus has a desktop session bus's limits
/// (those of `session.conf`), so a test sees what a service on the desktop
/// sees: for one, a sender may have 50,000 replies pending, not 128.
///
/// ```swift
/// let bus = try PrivateBus.startSession()
/// defer { bus.stop() }
/// let r = try await ProcessRunner.run(["busctl", "--address=\(bus.address)", "call",
///     "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"],
///     timeout: .seconds(5))
/// ```
///
/// The daemon runs in its own process group together with everything it
/// bus-activates. `stop()` (also called from `deinit`) sends SIGTERM to that
/// group, SIGKILL after a grace period, and deletes the temporary directory.
/// If the test process dies without stopping the bus, a watcher process
/// started on first use does the same (see `ExitCleanup.swift`).
public final class PrivateBus: Sendable {
    /// Which kind of bus the daemon says it is (`<type>` in its configuration).
    public enum Kind: String, Sendable {
        /// Like the per-user session bus; supports `<servicedir>` activation.
        case session
        /// Like the system bus; used to host a private polkitd.
        case system
    }

    /// Why a bus could not be started.
    public struct StartupError: Error, CustomStringConvertible {
        /// Human-readable explanation, including the daemon's own output if any.
        public let description: String
    }

    /// Session or system.
    public let kind: Kind
    /// The D-Bus address clients connect to, e.g. `unix:path=/tmp/dbus-testing.ab12cd/bus,guid=…`.
    public let address: String
    /// Process id of the `dbus-daemon` (also its process group id).
    public let pid: pid_t
    /// The temporary directory holding the socket, configuration and log;
    /// mode 0755 so that other users (`nobody`, `polkitd`) can reach the socket.
    public let directory: URL
    /// Path of the listening unix socket.
    public let socketPath: String
    /// Where the daemon's stdout and stderr go.
    public let logFileURL: URL

    private struct State {
        var stopped = false
        var exitStatus: Int32? = nil
        var cleanupTokens: [ExitCleanup.Token] = []
    }
    private let state: Locked<State>

    /// Environment variables pointing clients at this bus:
    /// `DBUS_SESSION_BUS_ADDRESS` (session) or `DBUS_SYSTEM_BUS_ADDRESS` (system).
    /// Pass to `ProcessRunner.run(_:environment:)`.
    public var clientEnvironment: [String: String] {
        switch kind {
        case .session: return ["DBUS_SESSION_BUS_ADDRESS": address]
        case .system: return ["DBUS_SYSTEM_BUS_ADDRESS": address]
        }
    }

    /// Starts a private session bus.
    ///
    /// - Parameters:
    ///   - serviceDirectories: directories with `*.service` files for session
    ///     activation (`<servicedir>`); empty means no activation.
    ///   - environment: variables added to the daemon's environment, which
    ///     bus-activated services inherit (e.g. a state directory override).
    ///     The daemon itself sets `DBUS_SESSION_BUS_ADDRESS` and
    ///     `DBUS_STARTER_ADDRESS` for activated services.
    ///   - inheritsEnvironment: false gives the daemon `environment` alone,
    ///     not added to this process's, so activated services see only what
    ///     a desktop session would give them.
    ///   - asUnprivileged: run the daemon, and so everything it activates, as
    ///     `nobody` (``ProcessRunner/asUnprivileged(_:)``; needs root); its
    ///     directory then belongs to `nobody`, who creates the socket there.
    ///   - startupTimeout: how long to wait for the daemon to print its address.
    public static func startSession(
        serviceDirectories: [String] = [],
        environment: [String: String] = [:],
        inheritsEnvironment: Bool = true,
        asUnprivileged: Bool = false,
        startupTimeout: Duration = .seconds(5)
    ) throws -> PrivateBus {
        try start(kind: .session, serviceDirectories: serviceDirectories, environment: environment,
                  inheritsEnvironment: inheritsEnvironment, asUnprivileged: asUnprivileged, startupTimeout: startupTimeout)
    }

    /// Starts a private bus of type `system`, with the same permissive policy,
    /// so that a test polkitd can own `org.freedesktop.PolicyKit1` on it and
    /// anyone can call it. Processes find it through `DBUS_SYSTEM_BUS_ADDRESS`
    /// (see `clientEnvironment`).
    public static func startSystem(
        environment: [String: String] = [:],
        startupTimeout: Duration = .seconds(5)
    ) throws -> PrivateBus {
        try start(kind: .system, serviceDirectories: [], environment: environment,
                  inheritsEnvironment: true, asUnprivileged: false, startupTimeout: startupTimeout)
    }

    /// The configuration file text for a private bus.
    static func configuration(kind: Kind, socketPath: String, serviceDirectories: [String]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;")
                .replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let services = serviceDirectories.map { "  <servicedir>\(escaped($0))</servicedir>\n" }.joined()
        let limits = kind == .session ? desktopSessionLimits.map { "  <limit name=\"\($0.0)\">\($0.1)</limit>\n" }.joined() : ""
        return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>\(kind.rawValue)</type>
          <listen>unix:path=\(escaped(socketPath))</listen>
          <auth>EXTERNAL</auth>
        \(services)\(limits)  <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow receive_sender="*"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }

    /// The limits Debian's `/usr/share/dbus-1/session.conf` sets, where they
    /// differ from dbus-daemon's built-in ones; the system bus keeps those.
    static let desktopSessionLimits: [(String, Int)] = [
        ("max_incoming_bytes", 1_000_000_000), ("max_outgoing_bytes", 1_000_000_000),
        ("max_message_size", 1_000_000_000), ("max_incoming_unix_fds", 250_000_000), ("max_outgoing_unix_fds", 250_000_000),
        ("service_start_timeout", 120_000), ("auth_timeout", 240_000), ("pending_fd_timeout", 150_000),
        ("max_completed_connections", 100_000), ("max_incomplete_connections", 10_000),
        ("max_connections_per_user", 100_000), ("max_pending_service_starts", 10_000),
        ("max_names_per_connection", 50_000), ("max_match_rules_per_connection", 50_000),
        ("max_replies_per_connection", 50_000),
    ]

    private static func start(
        kind: Kind,
        serviceDirectories: [String],
        environment: [String: String],
        inheritsEnvironment: Bool,
        asUnprivileged: Bool,
        startupTimeout: Duration
    ) throws -> PrivateBus {
        guard let daemon = ChildProcess.findExecutable("dbus-daemon") else {
            throw StartupError(description: "dbus-daemon is not installed (looked in PATH, /usr/bin, /bin)")
        }

        // unix socket paths must fit in sockaddr_un (108 bytes).
        var base = FileManager.default.temporaryDirectory.path
        if base.utf8.count > 60 { base = "/tmp" }
        var template = Array("\(base)/dbus-testing.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StartupError(description: "cannot create a temporary directory in \(base): \(ChildProcess.errnoString())")
        }
        let directory = String(cString: made)
        chmod(directory, 0o755)
        if asUnprivileged {
            chown(directory, ProcessRunner.unprivilegedID, ProcessRunner.unprivilegedID)
        }
        let cleanupDirectory = ExitCleanup.shared.register(.path(directory))
        var succeeded = false
        defer {
            if !succeeded {
                try? FileManager.default.removeItem(atPath: directory)
                ExitCleanup.shared.unregister(cleanupDirectory)
            }
        }

        let socketPath = directory + "/bus"
        let configPath = directory + "/\(kind.rawValue).conf"
        let logPath = directory + "/dbus-daemon.log"
        do {
            try configuration(kind: kind, socketPath: socketPath, serviceDirectories: serviceDirectories)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
        } catch {
            throw StartupError(description: "cannot write bus configuration \(configPath): \(error)")
        }

        var daemonEnvironment = inheritsEnvironment ? ChildProcess.currentEnvironment() : [:]
        // Never let anything inherit a way to the real buses by accident.
        daemonEnvironment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        daemonEnvironment.removeValue(forKey: "DBUS_SYSTEM_BUS_ADDRESS")
        daemonEnvironment.removeValue(forKey: "DBUS_STARTER_ADDRESS")
        daemonEnvironment.removeValue(forKey: "DBUS_STARTER_BUS_TYPE")
        for (key, value) in environment { daemonEnvironment[key] = value }

        let addressPipe: (read: Int32, write: Int32)
        let logFD: Int32
        do {
            addressPipe = try ChildProcess.makePipe()
            logFD = try ChildProcess.openLogFile(logPath)
        } catch {
            throw StartupError(description: "\(error)")
        }
        let devNull = ChildProcess.openDevNull()
        defer {
            close(addressPipe.read)
            close(logFD)
            if devNull >= 0 { close(devNull) }
        }
        let command = [daemon, "--config-file=\(configPath)", "--nofork", "--print-address=3"]
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(SpawnRequest(
                argv: asUnprivileged ? ProcessRunner.asUnprivileged(command) : command,
                environment: daemonEnvironment,
                descriptors: [0: devNull, 1: logFD, 2: logFD, 3: addressPipe.write]
            ))
        } catch {
            close(addressPipe.write)
            throw StartupError(description: "\(error)")
        }
        close(addressPipe.write)
        let startTime = ChildProcess.startTime(of: pid) ?? 0
        let cleanupDaemon = ExitCleanup.shared.register(.processGroup(pid: pid, startTime: startTime))

        func fail(_ why: String) -> StartupError {
            ChildProcess.terminateGroup(pid, grace: 1)
            ExitCleanup.shared.unregister(cleanupDaemon)
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return StartupError(description: "private \(kind.rawValue) bus (\(daemon)) \(why)"
                + (log.isEmpty ? "" : "\n--- dbus-daemon output ---\n\(log)"))
        }

        // Read the address line from the pipe.
        let seconds = Double(startupTimeout.components.seconds) + Double(startupTimeout.components.attoseconds) / 1e18
        let deadline = ChildProcess.monotonicNow() + seconds
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let remaining = deadline - ChildProcess.monotonicNow()
            if remaining <= 0 {
                throw fail("did not print its address within \(startupTimeout)")
            }
            var entry = pollfd(fd: addressPipe.read, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, 0.1) * 1000) + 1)
            if ready < 0 && errno != EINTR { throw fail("address pipe poll failed: \(ChildProcess.errnoString())") }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(addressPipe.read, $0.baseAddress, $0.count) }
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]); continue }
            if count < 0 && errno == EINTR { continue }
            // EOF: the daemon exited (or closed the pipe) without an address.
            if case .exited(let status) = ChildProcess.poll(pid) {
                throw fail("exited with status \(status) before printing its address")
            }
            throw fail("closed its address pipe without printing an address")
        }
        let address = String(decoding: bytes, as: UTF8.self)
            .split(separator: "\n").first.map(String.init)?
            .trimmingCharacters(in: .whitespaces) ?? ""
        guard !address.isEmpty else { throw fail("printed an empty address") }
        // dbus-daemon creates the socket world-connectable already; make sure.
        chmod(socketPath, 0o777)

        succeeded = true
        return PrivateBus(
            kind: kind, address: address, pid: pid, directory: URL(fileURLWithPath: directory),
            socketPath: socketPath, logFileURL: URL(fileURLWithPath: logPath),
            cleanupTokens: [cleanupDaemon, cleanupDirectory]
        )
    }

    private init(kind: Kind, address: String, pid: pid_t, directory: URL, socketPath: String,
                 logFileURL: URL, cleanupTokens: [ExitCleanup.Token]) {
        self.kind = kind
        self.address = address
        self.pid = pid
        self.directory = directory
        self.socketPath = socketPath
        self.logFileURL = logFileURL
        self.state = Locked(State(stopped: false, exitStatus: nil, cleanupTokens: cleanupTokens))
    }

    /// True until `stop()` is called or the daemon exits on its own.
    public var isRunning: Bool {
        state.withLock { state in
            guard !state.stopped, state.exitStatus == nil else { return false }
            if case .exited(let status) = ChildProcess.poll(pid) {
                state.exitStatus = status
                return false
            }
            return true
        }
    }

    /// What the daemon wrote to stdout/stderr so far (for failure messages).
    public func log() -> String {
        (try? String(contentsOf: logFileURL, encoding: .utf8)) ?? ""
    }

    /// Stops the daemon and every process in its group (bus-activated
    /// services): SIGTERM, then SIGKILL after `grace` seconds; then deletes
    /// the temporary directory. Idempotent; blocks for at most about `grace`
    /// seconds. Called automatically from `deinit`.
    public func stop(grace: Double = 2.0) {
        let tokens: [ExitCleanup.Token]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.cleanupTokens
        }
        guard let tokens else { return }
        ChildProcess.terminateGroup(pid, grace: grace)
        try? FileManager.default.removeItem(at: directory)
        for token in tokens { ExitCleanup.shared.unregister(token) }
    }

    deinit {
        stop()
    }
}
