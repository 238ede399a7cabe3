import DBusKit
import DBusTesting
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

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
