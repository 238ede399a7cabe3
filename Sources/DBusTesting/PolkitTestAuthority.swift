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

/// A real `polkitd` on a private system bus, with test actions and rules.
///
/// ```swift
/// @Test(.enabled(if: PolkitTestAuthority.isAvailable, "needs root, polkitd and dbus-daemon"))
/// func deniedForNobody() async throws {
///     let polkit = try await PolkitTestAuthority.start(policyFiles: [policyURL], rules: """
///         polkit.addRule(function(action, subject) {
///             if (action.id.indexOf("org.example.") == 0 && subject.user == "nobody")
///                 return polkit.Result.NO;
///         });
///         """)
///     defer { polkit.stop() }
///     // start the service with polkit.clientEnvironment (DBUS_SYSTEM_BUS_ADDRESS) ...
/// }
/// ```
///
/// Facts about polkitd 122 (Debian 12) this relies on:
/// * polkitd has no option to choose its bus or its directories. It reads
///   actions from `/usr/share/polkit-1/actions` and rules from
///   `/etc/polkit-1/rules.d` and `/usr/share/polkit-1/rules.d`, and connects to
///   the system bus named by `DBUS_SYSTEM_BUS_ADDRESS`. So test files must be
///   installed into the real directories (hence root) under unique names, and
///   are removed again by `stop()` (or by the exit watcher if the test process
///   dies).
/// * It starts as root, then switches to the `polkitd` user ("Successfully
///   changed to user polkitd"); the rules directories belong to that user,
///   files we write there with mode 0644 are readable. The private bus
///   directory is 0755 so the `polkitd` user can reach the socket.
/// * Every polkitd watches those directories and reloads on change, so all
///   polkitds running at the same time see all test rules. `start()` therefore
///   takes an exclusive lock (flock on `/run/lock/dbus-testing-polkit.lock`,
///   across processes too) that `stop()` releases: one test authority at a time.
/// * Subjects without a logind session get the `allow_any` default.
/// * uid 0 is always authorized, before rules are consulted: rules cannot deny
///   root. Denial tests need a non-root subject (e.g. `nobody`, 65534).
/// * A caller may only ask about subjects with its own uid unless it is root
///   ("Only trusted callers (e.g. uid 0 or an action owner) can use
///   CheckAuthorization() for subjects belonging to other identities").
public final class PolkitTestAuthority: Sendable {
    /// Why the authority could not be started.
    public struct StartupError: Error, CustomStringConvertible {
        /// Human-readable explanation, including polkitd's output if any.
        public let description: String
    }

    /// Where polkitd is installed on Debian/Ubuntu.
    public static let polkitdPath = "/usr/lib/polkit-1/polkitd"
    /// The directory polkitd reads `.policy` (action) files from.
    public static let actionsDirectory = "/usr/share/polkit-1/actions"
    /// The directory test rules are installed into (read before `/usr/share/polkit-1/rules.d`).
    public static let rulesDirectory = "/etc/polkit-1/rules.d"
    /// The lock serializing test authorities (one polkitd at a time).
    static let lockPath = FileManager.default.fileExists(atPath: "/run/lock")
        ? "/run/lock/dbus-testing-polkit.lock" : "/tmp/dbus-testing-polkit.lock"

    /// Why a polkit test cannot run here, or nil when it can. Use as the
    /// comment of a skipped test.
    public static var skipReason: String? {
        if geteuid() != 0 { return "polkit tests need root (they install files into \(actionsDirectory) and \(rulesDirectory))" }
        if access(polkitdPath, X_OK) != 0 { return "polkitd is not installed at \(polkitdPath)" }
        if ChildProcess.findExecutable("dbus-daemon") == nil { return "dbus-daemon is not installed" }
        if ChildProcess.findExecutable("dbus-send") == nil { return "dbus-send is not installed" }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: actionsDirectory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            return "\(actionsDirectory) does not exist"
        }
        return nil
    }

    /// True when running as root and polkitd, dbus-daemon and dbus-send exist.
    public static var isAvailable: Bool { skipReason == nil }

    /// The private system bus polkitd is connected to.
    public let systemBus: PrivateBus
    /// Address of the private system bus; give it to the service under test as
    /// `DBUS_SYSTEM_BUS_ADDRESS` (see `clientEnvironment`).
    public var systemBusAddress: String { systemBus.address }
    /// `["DBUS_SYSTEM_BUS_ADDRESS": systemBusAddress]`.
    public var clientEnvironment: [String: String] { systemBus.clientEnvironment }
    /// Process id of polkitd (runs as user `polkitd` after start-up).
    public let polkitdPID: pid_t
    /// The `.policy` and `.rules` files this authority installed (removed by `stop()`).
    public let installedFiles: [URL]
    /// Where polkitd's stdout/stderr go (inside the bus directory).
    public let logFileURL: URL

    private struct State {
        var stopped = false
        var lockFD: Int32
        var cleanupTokens: [ExitCleanup.Token]
    }
    private let state: Locked<State>
    private static let counter = Locked(0)

    /// Starts a private system bus and polkitd on it.
    ///
    /// - Parameters:
    ///   - policyFiles: `.policy` files to install into `/usr/share/polkit-1/actions/`
    ///     as `dbus-testing-<pid>-<n>-<index>-<name>.policy`.
    ///   - rules: JavaScript for `/etc/polkit-1/rules.d/49-dbus-testing-<pid>-<n>.rules`
    ///     (runs before the distribution's `50-default.rules`), or nil.
    ///   - timeout: how long to wait for `org.freedesktop.PolicyKit1` to get an
    ///     owner (it normally takes well under a second).
    ///   - lockTimeout: how long to wait for another test authority to stop.
    ///   - waiting: called once when another test authority runs, before
    ///     waiting for it (a person at a terminal is told why nothing happens).
    public static func start(
        policyFiles: [URL] = [],
        rules: String? = nil,
        timeout: Duration = .seconds(10),
        lockTimeout: Duration = .seconds(120),
        waiting: @Sendable () -> Void = {}
    ) async throws -> PolkitTestAuthority {
        if let reason = skipReason { throw StartupError(description: reason) }

        let lockFD = try await acquireLock(timeout: lockTimeout, waiting: waiting)
        var tokens: [ExitCleanup.Token] = []
        var installed: [URL] = []
        var bus: PrivateBus? = nil
        var polkitd: pid_t = 0
        func undo() {
            if polkitd > 0 { ChildProcess.terminateGroup(polkitd, grace: 1) }
            for url in installed { try? FileManager.default.removeItem(at: url) }
            bus?.stop()
            for token in tokens { ExitCleanup.shared.unregister(token) }
            close(lockFD)
        }

        do {
            let systemBus = try PrivateBus.startSystem()
            bus = systemBus

            let number = counter.withLock { value -> Int in value += 1; return value }
            let prefix = "dbus-testing-\(getpid())-\(number)"
            for (index, source) in policyFiles.enumerated() {
                var name = source.lastPathComponent
                if !name.hasSuffix(".policy") { name += ".policy" }
                let target = URL(fileURLWithPath: actionsDirectory)
                    .appendingPathComponent("\(prefix)-\(index)-\(name)")
                let data: Data
                do { data = try Data(contentsOf: source) } catch {
                    throw StartupError(description: "cannot read policy file \(source.path): \(error)")
                }
                tokens.append(ExitCleanup.shared.register(.path(target.path)))
                try install(data, at: target)
                installed.append(target)
            }
            if let rules {
                let target = URL(fileURLWithPath: rulesDirectory)
                    .appendingPathComponent("49-\(prefix).rules")
                tokens.append(ExitCleanup.shared.register(.path(target.path)))
                try install(Data(rules.utf8), at: target)
                installed.append(target)
            }

            let logPath = systemBus.directory.appendingPathComponent("polkitd.log").path
            var environment = ChildProcess.currentEnvironment()
            environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus.address
            let logFD = try ChildProcess.openLogFile(logPath)
            let devNull = ChildProcess.openDevNull()
            defer { close(logFD); if devNull >= 0 { close(devNull) } }
            // No --no-debug: that sends output to /dev/null; we keep it in the log.
            polkitd = try ChildProcess.spawn(SpawnRequest(
                argv: [polkitdPath],
                environment: environment,
                descriptors: [0: devNull, 1: logFD, 2: logFD]
            ))
            tokens.append(ExitCleanup.shared.register(
                .processGroup(pid: polkitd, startTime: ChildProcess.startTime(of: polkitd) ?? 0)))

            try await waitForPolkit(bus: systemBus, polkitd: polkitd, logPath: logPath, timeout: timeout)
            return PolkitTestAuthority(
                systemBus: systemBus, polkitdPID: polkitd, installedFiles: installed,
                logFileURL: URL(fileURLWithPath: logPath), lockFD: lockFD, cleanupTokens: tokens)
        } catch {
            undo()
            if error is StartupError { throw error }
            throw StartupError(description: "cannot start the polkit test authority: \(error)")
        }
    }

    private init(systemBus: PrivateBus, polkitdPID: pid_t, installedFiles: [URL], logFileURL: URL,
                 lockFD: Int32, cleanupTokens: [ExitCleanup.Token]) {
        self.systemBus = systemBus
        self.polkitdPID = polkitdPID
        self.installedFiles = installedFiles
        self.logFileURL = logFileURL
        self.state = Locked(State(lockFD: lockFD, cleanupTokens: cleanupTokens))
    }

    /// Writes a file with mode 0644 (polkitd reads it as user `polkitd`),
    /// through a temporary name so polkitd's directory watch never sees half a file.
    private static func install(_ data: Data, at target: URL) throws {
        if FileManager.default.fileExists(atPath: target.path) {
            throw StartupError(description: "refusing to overwrite existing \(target.path)")
        }
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).tmp")
        do {
            try data.write(to: temporary)
            chmod(temporary.path, 0o644)
            guard rename(temporary.path, target.path) == 0 else {
                throw StartupError(description: "rename to \(target.path): \(ChildProcess.errnoString())")
            }
        } catch let error as StartupError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw StartupError(description: "cannot install \(target.path): \(error)")
        }
    }

    private static func acquireLock(timeout: Duration, waiting: () -> Void) async throws -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StartupError(description: "cannot open \(lockPath): \(ChildProcess.errnoString())")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var told = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if !told {
                waiting()
                told = true
            }
            if clock.now >= deadline {
                close(fd)
                throw StartupError(description: "another PolkitTestAuthority kept \(lockPath) locked for \(timeout)")
            }
            do { try await Task.sleep(for: .milliseconds(50)) } catch { close(fd); throw error }
        }
        return fd
    }

    private static func waitForPolkit(bus: PrivateBus, polkitd: pid_t, logPath: String, timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let log = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        while true {
            if case .exited(let status) = ChildProcess.poll(polkitd) {
                throw StartupError(description: "polkitd exited with status \(status) during start-up\n--- polkitd output ---\n\(log())")
            }
            let answer = try? await ProcessRunner.run(
                ["dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                 "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.PolicyKit1"],
                timeout: .seconds(2))
            if let answer, answer.status == 0, answer.stdout.contains("boolean true") { return }
            if clock.now >= deadline {
                throw StartupError(description: "org.freedesktop.PolicyKit1 got no owner on the private system bus within \(timeout)\n--- polkitd output ---\n\(log())")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Freezes polkitd (SIGSTOP) so that authorization calls hang, to test how
    /// the service behaves with an unresponsive polkit.
    public func pause() { kill(polkitdPID, SIGSTOP) }

    /// Lets a paused polkitd run again (SIGCONT).
    public func resume() { kill(polkitdPID, SIGCONT) }

    /// What polkitd wrote so far (rule loading, `polkit.log()` output, errors).
    public func log() -> String {
        (try? String(contentsOf: logFileURL, encoding: .utf8)) ?? ""
    }

    /// Stops polkitd (even when paused), removes exactly the files this
    /// authority installed, stops the private system bus and releases the
    /// lock. Idempotent; also called from `deinit`.
    public func stop() {
        let taken: State? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state
        }
        guard let taken else { return }
        ChildProcess.terminateGroup(polkitdPID, grace: 2)
        for url in installedFiles { try? FileManager.default.removeItem(at: url) }
        systemBus.stop()
        for token in taken.cleanupTokens { ExitCleanup.shared.unregister(token) }
        close(taken.lockFD)
    }

    deinit {
        stop()
    }

    // MARK: - Helpers for tests

    /// The `start-time` of a process as polkit's `unix-process` subject wants it
    /// (field 22 of `/proc/PID/stat`), or nil if there is no such process.
    public static func processStartTime(_ pid: pid_t) -> UInt64? {
        ChildProcess.startTime(of: pid)
    }

    /// The answer of `CheckAuthorization`.
    public struct Answer: Sendable, Equatable {
        /// `is_authorized`.
        public var isAuthorized: Bool
        /// `is_challenge`: authorization is possible after authenticating.
        public var isChallenge: Bool

        /// Creates an answer, e.g. to compare with `checkAuthorization`'s result.
        public init(isAuthorized: Bool, isChallenge: Bool) {
            self.isAuthorized = isAuthorized
            self.isChallenge = isChallenge
        }
    }

    /// Asks polkit, via `busctl`, whether the process `pid` running as `uid`
    /// may do `actionID` (subject kind `unix-process` with pid, start-time, uid;
    /// no details; flags 0, or 1 = AllowUserInteraction).
    /// Throws `ProcessRunner.Failure` if busctl fails (e.g. unknown action).
    public func checkAuthorization(
        actionID: String, pid: pid_t, uid: UInt32, allowUserInteraction: Bool = false,
        timeout: Duration = .seconds(10)
    ) async throws -> Answer {
        guard let startTime = Self.processStartTime(pid) else {
            throw StartupError(description: "no process \(pid) to ask polkit about")
        }
        let output = try await ProcessRunner.runSucceeding(
            ["busctl", "--address=\(systemBusAddress)", "call",
             "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
             "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization",
             "(sa{sv})sa{ss}us", "unix-process", "3",
             "pid", "u", "\(pid)", "start-time", "t", "\(startTime)", "uid", "i", "\(uid)",
             actionID, "0", allowUserInteraction ? "1" : "0", ""],
            timeout: timeout)
        // e.g. `(bba{ss}) true false 0`
        let words = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count >= 3, words[0] == "(bba{ss})" else {
            throw StartupError(description: "unexpected CheckAuthorization reply: \(output)")
        }
        return Answer(isAuthorized: words[1] == "true", isChallenge: words[2] == "true")
    }

    /// Text of a `.policy` file declaring `actions`, for throwaway test actions.
    /// Each default is one of `no`, `yes`, `auth_self`, `auth_admin`,
    /// `auth_self_keep`, `auth_admin_keep`.
    public static func policyXML(actions: [TestAction]) -> String {
        let body = actions.map { action in
            """
              <action id="\(action.id)">
                <description>\(action.id)</description>
                <message>Test action \(action.id)</message>
                <defaults>
                  <allow_any>\(action.allowAny)</allow_any>
                  <allow_inactive>\(action.allowInactive)</allow_inactive>
                  <allow_active>\(action.allowActive)</allow_active>
                </defaults>
              </action>

            """
        }.joined()
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE policyconfig PUBLIC "-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/PolicyKit/1/policyconfig.dtd">
        <policyconfig>
        \(body)</policyconfig>

        """
    }

    /// A throwaway polkit action for `policyXML(actions:)`.
    public struct TestAction: Sendable {
        /// The action id, e.g. `org.example.test.allowed`.
        public var id: String
        /// Default for subjects without a session (what tests on a private bus get).
        public var allowAny: String
        /// Default for subjects in an inactive session.
        public var allowInactive: String
        /// Default for subjects in the active session.
        public var allowActive: String

        /// Creates an action; `allowInactive`/`allowActive` default to `allowAny`.
        public init(id: String, allowAny: String, allowInactive: String? = nil, allowActive: String? = nil) {
            self.id = id
            self.allowAny = allowAny
            self.allowInactive = allowInactive ?? allowAny
            self.allowActive = allowActive ?? allowAny
        }
    }
}
