// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// `scripts/run-daemon --try`, as a newcomer on a machine without a system
/// bus runs it: the README's walkthrough works for the user it names, admin
/// calls included, and nothing of it is left once it stops.
@Suite("Try mode: scripts/run-daemon --try", .timeLimit(.minutes(10)))
struct TryModeTests {
    static let script = Project.root.appendingPathComponent("scripts/run-daemon").path
    static let banner = "TRY MODE: every Guided Access admin action is allowed for nobody without a password; do not use on a shared machine"

    @Test("Without root it says why it needs root and exits 2, before building anything",
          .enabled(if: geteuid() != 0 || ProcessRunner.canRunUnprivileged, "as root, needs setpriv to run it as nobody"))
    func refusedWithoutRoot() async throws {
        // A copy nobody can read, wherever the checkout is.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-try-noroot-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("scripts/run-daemon").path
        try FileManager.default.copyItem(atPath: Self.script, toPath: copy)
        chmod(directory.path, 0o755)
        chmod(directory.appendingPathComponent("scripts").path, 0o755)
        let argv = ["/bin/bash", copy, "--try"]
        let result = try await ProcessRunner.run(geteuid() == 0 ? ProcessRunner.asUnprivileged(argv) : argv)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("--try needs root"), "\(result.stderr)")
        #expect(!result.stdout.contains("TRY MODE") && !result.stdout.contains("swift build"), "\(result.stdout)")
    }

    @Test("As root for nobody: Register, SetState deny, Start and End interactive succeed; SIGTERM removes policy, rule, buses and polkitd",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func walkthroughThenCleanup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-try-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("run-daemon.log")
        var environment = ProcessInfo.processInfo.environment
        environment["GUIDED_ACCESSD"] = Project.daemon
        environment["GUIDED_ACCESS_SKIP_DEPS"] = "1"
        // As from a terminal: this process blocks SIGTERM in every thread and
        // the supervisor's `&` ignores SIGINT; children inherit both, and bash
        // can neither unblock a signal nor trap one ignored when it started.
        let asFromATerminal = """
            import os, signal, sys
            for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let run = try await SupervisedDaemon.launch(
            [Paths.python, "-c", asFromATerminal, "/bin/bash", Self.script, "--try", "nobody"],
            environment: environment, log: log, pidFile: directory.appendingPathComponent("pid"))
        defer { if run.isAlive { run.stop(signal: SIGKILL) } }  // its watcher cleans up after a SIGKILL too
        let output = try await Self.waitForExports(in: log, while: run)
        let printed = try TryModePrintout(output)
        #expect(output.contains(Self.banner), "\(output)")
        #expect(FileManager.default.fileExists(atPath: printed.rule) && FileManager.default.fileExists(atPath: printed.policy))

        // The README's walkthrough, run as nobody against the printed address.
        let object = [GuidedAccessBus.name, GuidedAccessBus.objectPath]
        func busctl(_ arguments: [String]) async throws -> ToolResult {
            let result = try await ProcessRunner.run(
                ProcessRunner.asUnprivileged(["busctl", "--user"] + arguments),
                environment: ["DBUS_SESSION_BUS_ADDRESS": printed.sessionAddress])
            return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
        }
        func call(_ interface: ServiceInterface, _ member: String, _ arguments: String...) async throws -> ToolResult {
            try await busctl(["call"] + object + [interface.rawValue, member] + arguments)
        }
        func state() async throws -> String {
            try await busctl(["get-property"] + object + [ServiceInterface.session.rawValue, "State"]).output
        }
        let register = try await call(.restrictions, "Register", "a(sss)", "1",
                                      "com.example.app.purchase", "Purchases", "Buying items")
        #expect(register.ok && register.stdout.hasPrefix("ao 1"), "\(register)")
        let deny = try await call(.restrictions, "SetState", "ss", "com.example.app.purchase", "deny")
        #expect(deny.ok, "SetState needs configure-restrictions (auth_admin_keep): \(deny)")
        #expect(try await call(.restrictions, "GetState", "s", "com.example.app.purchase").output == #"s "deny""#)
        let start = try await call(.session, "Start", "sa{sv}", "com.example.app", "1", "time-limit", "t", "600")
        #expect(start.ok, "\(start)")
        #expect(try await state() == #"s "active""#)
        let end = try await busctl(["--allow-interactive-authorization=yes", "call"] + object
                                   + [ServiceInterface.session.rawValue, "End", "a{sv}", "1", "interactive", "b", "true"])
        #expect(end.ok, "End without the passcode needs end-session (auth_admin_keep): \(end)")
        #expect(try await state() == #"s "inactive""#)
        let polkit = try await ProcessRunner.run(
            ["busctl", "--address=\(printed.systemAddress)", "status", "org.freedesktop.PolicyKit1"])
        #expect(polkit.status == 0, "the printed system bus has no polkitd: \(polkit.stderr)")

        run.stop(signal: SIGTERM, grace: 30)
        let after = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(after.contains("guided-accessd exited with status 0"), "\(after)")
        for file in [printed.rule, printed.policy] {
            #expect(!FileManager.default.fileExists(atPath: file), "\(file) left behind")
        }
        for process in [printed.polkitd, printed.daemon] {
            #expect(!Self.isRunning(process), "process \(process) still runs")
        }
        #expect(!FileManager.default.fileExists(atPath: printed.workDirectory), "\(printed.workDirectory) left behind")
    }

    /// Running and not a zombie: a process whose parent is gone may wait for
    /// a slow init to reap it.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// The script's output once it has printed the export lines (it may first
    /// wait for other tests' polkitd: one runs at a time).
    static func waitForExports(in log: URL, while run: SupervisedDaemon) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: .seconds(400))
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("export DBUS_SYSTEM_BUS_ADDRESS=") { return text }
            guard run.isAlive, ContinuousClock.now < deadline else {
                throw HarnessError("scripts/run-daemon --try printed no export lines:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// What `scripts/run-daemon --try` tells the person: the addresses to
/// export, the files it installed, its processes.
struct TryModePrintout {
    let sessionAddress: String
    let systemAddress: String
    let rule: String
    let policy: String
    let polkitd: pid_t
    let daemon: pid_t
    /// The temporary directory holding both bus sockets.
    var workDirectory: String { URL(fileURLWithPath: socketPath(systemAddress)).deletingLastPathComponent().path }

    init(_ output: String) throws {
        func value(after prefix: String, until end: Character) throws -> String {
            guard let line = output.split(separator: "\n").first(where: { $0.contains(prefix) }),
                  let range = line.range(of: prefix) else { throw HarnessError("no line with \(prefix) in:\n\(output)") }
            return String(line[range.upperBound...].prefix { $0 != end })
        }
        sessionAddress = try value(after: "export DBUS_SESSION_BUS_ADDRESS='", until: "'")
        systemAddress = try value(after: "export DBUS_SYSTEM_BUS_ADDRESS='", until: "'")
        rule = try value(after: "polkit rule:   ", until: " ")
        policy = try value(after: "polkit policy: ", until: " ")
        guard let polkitd = pid_t(try value(after: "polkitd pid ", until: " ")),
              let daemon = pid_t(try value(after: "guided-accessd pid ", until: " ")) else {
            throw HarnessError("no pids in:\n\(output)")
        }
        self.polkitd = polkitd
        self.daemon = daemon
    }

    private func socketPath(_ address: String) -> String {
        String(address.dropFirst("unix:path=".count).prefix { $0 != "," })
    }
}
