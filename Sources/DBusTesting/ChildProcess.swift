// SPDX-License-Identifier: LGPL-2.1-or-later
// Low-level process spawning shared by ProcessRunner, PrivateBus and
// PolkitTestAuthority. Uses posix_spawn directly (not Foundation.Process) so
// that we control exactly which file descriptors a child gets, can put each
// child in its own process group (to kill it together with its descendants),
// and can reset the signal mask and dispositions the Swift runtime may have
// changed.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A description of a child process to spawn.
struct SpawnRequest {
    /// argv; `argv[0]` is looked up in `PATH` when it contains no slash.
    var argv: [String]
    /// The complete environment of the child (not merged with ours).
    var environment: [String: String]
    /// Child descriptor → descriptor in this process to `dup2` there.
    /// Descriptors not listed (other than 0, 1, 2 when mapped) are closed.
    var descriptors: [Int32: Int32]
    /// Make the child the leader of a new process group (pgid == pid), so
    /// `kill(-pid, …)` reaches it and everything it starts.
    var newProcessGroup = true
}

/// Errors from the spawning layer; surfaced through the public error types.
struct SpawnError: Error, CustomStringConvertible {
    var argv: [String]
    var reason: String
    var description: String { "cannot start \(argv.joined(separator: " ")): \(reason)" }
}

enum ChildProcess {
    /// The current process environment as a dictionary.
    static func currentEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment
    }

    /// Creates a pipe whose both ends are close-on-exec.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        let rc: Int32
        if let pipe2 = GNUFunctions.pipe2 {
            // Atomic: no other thread's fork can inherit the descriptors.
            rc = pipe2(&fds, O_CLOEXEC)
        } else {
            rc = pipe(&fds)
            if rc == 0 {
                _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            }
        }
        guard rc == 0 else { throw SpawnError(argv: [], reason: "pipe: \(errnoString())") }
        return (fds[0], fds[1])
    }

    /// Opens /dev/null (close-on-exec) for reading and writing.
    static func openDevNull() -> Int32 {
        open("/dev/null", O_RDWR | O_CLOEXEC)
    }

    /// Opens (creates/truncates) a log file, close-on-exec.
    static func openLogFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SpawnError(argv: [], reason: "open \(path): \(errnoString())") }
        return fd
    }

    static func errnoString(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// Spawns the child and returns its pid. The caller keeps ownership of the
    /// descriptors it passed in `descriptors` (close them after spawning).
    static func spawn(_ request: SpawnRequest) throws -> pid_t {
        precondition(!request.argv.isEmpty, "argv must not be empty")

        // Move every source descriptor above all target numbers first, so that
        // the dup2 actions can never overwrite a source that is still needed.
        let highestTarget = request.descriptors.keys.max() ?? 2
        var temporaries: [Int32] = []
        defer { for fd in temporaries { close(fd) } }
        var mapping: [(target: Int32, source: Int32)] = []
        for (target, source) in request.descriptors.sorted(by: { $0.key < $1.key }) {
            let moved = fcntl(source, F_DUPFD_CLOEXEC, max(highestTarget + 1, 10))
            guard moved >= 0 else {
                throw SpawnError(argv: request.argv, reason: "fcntl(F_DUPFD_CLOEXEC): \(errnoString())")
            }
            temporaries.append(moved)
            mapping.append((target, moved))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in mapping {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }
        if let addClosefrom = GNUFunctions.addClosefrom {
            // Belt and braces: nothing but the mapped descriptors reaches the
            // child, even descriptors someone else opened without O_CLOEXEC.
            _ = addClosefrom(&actions, highestTarget + 1)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if request.newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
            sigaddset(&defaults, Int32(signal))
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = request.argv.map { strdup($0) } + [nil]
        let envp = request.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, request.argv[0], &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw SpawnError(argv: request.argv, reason: errnoString(rc))
        }
        return pid
    }

    /// Result of a non-blocking or blocking wait.
    enum WaitResult { case running, exited(Int32) }

    /// Converts a raw wait status to a shell-style status: the exit code, or
    /// 128 + signal number when the child was killed by a signal.
    static func shellStatus(_ raw: Int32) -> Int32 {
        let low = raw & 0x7f
        if low == 0 { return (raw >> 8) & 0xff }
        return 128 + low
    }

    /// `waitpid` without blocking. Returns `.exited` also when the child was
    /// already reaped elsewhere (ECHILD), with status -1.
    static func poll(_ pid: pid_t) -> WaitResult {
        var raw: Int32 = 0
        while true {
            let rc = waitpid(pid, &raw, WNOHANG)
            if rc == pid { return .exited(shellStatus(raw)) }
            if rc == 0 { return .running }
            if errno == EINTR { continue }
            return .exited(-1)
        }
    }

    /// Waits up to `grace` seconds for `pid` to exit; returns its status or nil.
    static func wait(_ pid: pid_t, upTo grace: Double) -> Int32? {
        let deadline = monotonicNow() + grace
        while true {
            if case .exited(let status) = poll(pid) { return status }
            if monotonicNow() >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Terminates a process group led by `pid` politely, then forcibly:
    /// SIGCONT (in case it is stopped) + SIGTERM to the group, up to `grace`
    /// seconds for the leader and the rest of the group to go, then SIGKILL.
    /// Reaps the leader. Returns its shell-style status.
    @discardableResult
    static func terminateGroup(_ pid: pid_t, grace: Double = 2.0) -> Int32 {
        kill(-pid, SIGTERM)
        kill(pid, SIGTERM)
        kill(-pid, SIGCONT)
        kill(pid, SIGCONT)
        let deadline = monotonicNow() + grace
        var status = wait(pid, upTo: grace)
        if status == nil {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            status = wait(pid, upTo: 5) ?? -1
        }
        // Let the rest of the group (e.g. bus-activated services) finish too.
        while groupHasLiveMembers(pid) && monotonicNow() < deadline { usleep(10_000) }
        kill(-pid, SIGKILL)
        return status ?? -1
    }

    /// Whether any process of group `pgid` is still running (zombies waiting
    /// for init to reap them do not count).
    static func groupHasLiveMembers(_ pgid: pid_t) -> Bool {
        guard kill(-pgid, 0) == 0 else { return false }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return true }
        for entry in entries where entry.first?.isNumber == true {
            guard let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let closing = text.lastIndex(of: ")") else { continue }
            // After "pid (comm) ": state, ppid, pgrp, ...
            let fields = text[text.index(after: closing)...].split(separator: " ")
            if fields.count > 2, fields[2] == "\(pgid)", fields[0] != "Z" { return true }
        }
        return false
    }

    /// Seconds on a monotonic clock.
    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Field 22 of /proc/PID/stat (start time in clock ticks since boot), the
    /// value polkit's `unix-process` subject calls `start-time`.
    static func startTime(of pid: pid_t) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let closing = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm) " come fields 3, 4, ...; field 22 is index 19.
        let fields = text[text.index(after: closing)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Looks up an executable in PATH and the usual system directories.
    static func findExecutable(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init)
            + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"]
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// glibc extensions Swift's Glibc module does not import (they need
/// _GNU_SOURCE), looked up at run time.
private enum GNUFunctions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    nonisolated(unsafe) private static let handle = dlopen(nil, RTLD_NOW)
    static let pipe2: Pipe2? = symbol("pipe2")
    static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle, let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: T.self)
    }
}
