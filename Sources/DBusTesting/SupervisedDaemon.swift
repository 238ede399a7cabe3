// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A daemon under test. It runs under a tiny `sh` supervisor whose stdin is a
/// pipe from this process: if the test process dies, the pipe closes and the
/// supervisor kills the daemon, so nothing outlives a crashed test run.
public final class SupervisedDaemon: @unchecked Sendable {
    let supervisor: Process
    let keepAlive: FileHandle
    /// The daemon's process id (the supervisor's child).
    public let pid: pid_t

    private init(supervisor: Process, keepAlive: FileHandle, pid: pid_t) {
        self.supervisor = supervisor
        self.keepAlive = keepAlive
        self.pid = pid
    }

    /// Runs `argv` with `environment` (its whole environment, not additions),
    /// stdout and stderr appended to `log`; returns once the daemon's pid is known.
    public static func launch(_ argv: [String], environment: [String: String], log: URL, pidFile: URL) async throws -> SupervisedDaemon {
        try? FileManager.default.removeItem(at: pidFile)
        let script = #"""
            "$@" </dev/null >>"$DAEMON_FIXTURE_LOG" 2>&1 &
            child=$!
            echo "$child" >"$DAEMON_FIXTURE_PIDFILE.tmp" && mv "$DAEMON_FIXTURE_PIDFILE.tmp" "$DAEMON_FIXTURE_PIDFILE"
            while read -r _; do :; done
            kill -KILL "$child" 2>/dev/null
            exit 0
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "daemon-fixture-supervisor"] + argv
        var environment = environment
        environment["DAEMON_FIXTURE_LOG"] = log.path
        environment["DAEMON_FIXTURE_PIDFILE"] = pidFile.path
        process.environment = environment
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? pipe.fileHandleForReading.close()

        for _ in 0..<500 {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8),
               let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 {
                return SupervisedDaemon(supervisor: process, keepAlive: pipe.fileHandleForWriting, pid: pid)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        try? pipe.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        throw DaemonFixture.Failure("the daemon supervisor did not report a pid for \(argv.first ?? "")")
    }

    /// Alive and not a zombie.
    public var isAlive: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// Sends `signal`, waits until the daemon is gone (SIGKILL after `grace`),
    /// then ends the supervisor.
    public func stop(signal: Int32, grace: Double = 5) {
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
