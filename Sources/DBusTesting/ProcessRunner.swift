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

/// Runs command-line tools from tests: `busctl`, `gdbus`, `dbus-send`,
/// `python3`, the program under test, ...
///
/// Each child runs in its own process group with a clean signal mask and no
/// inherited descriptors besides stdin/stdout/stderr. Output is read
/// concurrently on a dedicated thread, so large output cannot deadlock, and
/// the whole process group is killed on timeout or task cancellation.
public enum ProcessRunner {
    /// Why `run` did not produce a result.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public enum Reason: Sendable {
            /// The program could not be started (not found, not executable, ...).
            case launchFailed(String)
            /// The program did not finish in time and was killed.
            case timedOut(Duration)
            /// The calling task was cancelled; the program was killed.
            case cancelled
            /// `runSucceeding` only: the program exited with a non-zero status.
            case nonZeroExit(Int32)
        }

        /// The command line that failed.
        public let argv: [String]
        /// What went wrong.
        public let reason: Reason
        /// Standard output collected before the failure.
        public let stdout: String
        /// Standard error collected before the failure.
        public let stderr: String

        public var description: String {
            let command = argv.joined(separator: " ")
            var text: String
            switch reason {
            case .launchFailed(let why): text = "cannot start `\(command)`: \(why)"
            case .timedOut(let limit): text = "`\(command)` timed out after \(limit) and was killed"
            case .cancelled: text = "`\(command)` was cancelled and killed"
            case .nonZeroExit(let status): text = "`\(command)` exited with status \(status)"
            }
            if !stdout.isEmpty { text += "\n--- stdout ---\n" + stdout }
            if !stderr.isEmpty { text += "\n--- stderr ---\n" + stderr }
            return text
        }
    }

    /// The uid and gid `asUnprivileged` switches to (`nobody`/`nogroup`).
    public static let unprivilegedID: UInt32 = 65534

    /// Runs `argv` to completion and returns its exit status and output.
    ///
    /// - Parameters:
    ///   - argv: the command; `argv[0]` is looked up in `PATH` when it has no slash.
    ///   - environment: variables added to (or overriding) this process's environment,
    ///     e.g. `bus.clientEnvironment`.
    ///   - stdin: text written to the child's standard input; `nil` gives it /dev/null.
    ///   - timeout: the process group is killed (SIGKILL) when it runs longer.
    /// - Returns: `status` is the exit code, or 128 + signal number when the child
    ///   was killed by a signal (shell convention).
    /// - Throws: `ProcessRunner.Failure` when the program cannot start, times out,
    ///   or the task is cancelled. A non-zero exit status is *not* an error here.
    public static func run(
        _ argv: [String],
        environment: [String: String] = [:],
        stdin: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        precondition(!argv.isEmpty, "ProcessRunner.run needs a command")
        var childEnvironment = ChildProcess.currentEnvironment()
        for (key, value) in environment { childEnvironment[key] = value }

        let outPipe = try ChildProcess.makePipe()
        let errPipe: (read: Int32, write: Int32)
        do { errPipe = try ChildProcess.makePipe() } catch {
            close(outPipe.read); close(outPipe.write); throw error
        }
        var inPipe: (read: Int32, write: Int32)? = nil
        let devNull = ChildProcess.openDevNull()
        defer { if devNull >= 0 { close(devNull) } }
        if stdin != nil {
            do { inPipe = try ChildProcess.makePipe() } catch {
                close(outPipe.read); close(outPipe.write); close(errPipe.read); close(errPipe.write); throw error
            }
        }

        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(SpawnRequest(
                argv: argv,
                environment: childEnvironment,
                descriptors: [0: inPipe?.read ?? devNull, 1: outPipe.write, 2: errPipe.write]
            ))
        } catch {
            for fd in [outPipe.read, outPipe.write, errPipe.read, errPipe.write, inPipe?.read ?? -1, inPipe?.write ?? -1] where fd >= 0 {
                close(fd)
            }
            throw Failure(argv: argv, reason: .launchFailed((error as? SpawnError)?.reason ?? "\(error)"),
                          stdout: "", stderr: "")
        }
        close(outPipe.write)
        close(errPipe.write)
        if let inPipe { close(inPipe.read) }

        let job = RunningChild(
            pid: pid, stdoutFD: outPipe.read, stderrFD: errPipe.read,
            stdinFD: inPipe?.write ?? -1, stdinData: Array((stdin ?? "").utf8),
            timeoutSeconds: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        )
        let outcome: RunningChild.Outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: job.superviseUntilDone()) }
                thread.name = "ProcessRunner \(argv.first ?? "")"
                thread.start()
            }
        } onCancel: {
            job.cancel()
        }

        let stdoutText = String(decoding: outcome.stdout, as: UTF8.self)
        let stderrText = String(decoding: outcome.stderr, as: UTF8.self)
        switch outcome.ending {
        case .exited(let status):
            return (status, stdoutText, stderrText)
        case .timedOut:
            throw Failure(argv: argv, reason: .timedOut(timeout), stdout: stdoutText, stderr: stderrText)
        case .cancelled:
            throw Failure(argv: argv, reason: .cancelled, stdout: stdoutText, stderr: stderrText)
        }
    }

    /// Like `run`, but throws `Failure` with reason `.nonZeroExit` (including
    /// the output) unless the command exits with status 0; returns its stdout.
    @discardableResult
    public static func runSucceeding(
        _ argv: [String],
        environment: [String: String] = [:],
        stdin: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> String {
        let result = try await run(argv, environment: environment, stdin: stdin, timeout: timeout)
        guard result.status == 0 else {
            throw Failure(argv: argv, reason: .nonZeroExit(result.status), stdout: result.stdout, stderr: result.stderr)
        }
        return result.stdout
    }

    /// Prefixes `argv` so that it runs as `nobody` (uid/gid 65534, no
    /// supplementary groups) via `setpriv --reuid=65534 --regid=65534 --clear-groups`.
    /// For denied-client tests. Needs root (see `canRunUnprivileged`). The
    /// environment is kept as is (HOME may still point at /root). The program
    /// and the private bus socket must be reachable by `nobody`; `PrivateBus`
    /// makes its socket directory world-accessible for this.
    public static func asUnprivileged(_ argv: [String]) -> [String] {
        let setpriv = ChildProcess.findExecutable("setpriv") ?? "setpriv"
        return [setpriv, "--reuid=\(unprivilegedID)", "--regid=\(unprivilegedID)", "--clear-groups", "--"] + argv
    }

    /// True when `asUnprivileged` can work: running as root and `setpriv` is installed.
    public static var canRunUnprivileged: Bool {
        geteuid() == 0 && ChildProcess.findExecutable("setpriv") != nil
    }

    /// The full path of an executable found in `PATH` or the usual system
    /// directories, or nil. Handy for skipping tests whose tools are missing.
    public static func findExecutable(named name: String) -> String? {
        ChildProcess.findExecutable(name)
    }
}

/// One child being supervised on a dedicated thread: pumps stdin, drains
/// stdout/stderr, reaps the child, enforces the deadline and cancellation.
private final class RunningChild: @unchecked Sendable {
    enum Ending { case exited(Int32), timedOut, cancelled }
    struct Outcome: Sendable {
        var ending: Ending
        var stdout: [UInt8]
        var stderr: [UInt8]
    }

    private let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private let stdinFD: Int32
    private let stdinData: [UInt8]
    private let timeoutSeconds: Double
    private let cancelled = Locked(false)

    init(pid: pid_t, stdoutFD: Int32, stderrFD: Int32, stdinFD: Int32, stdinData: [UInt8], timeoutSeconds: Double) {
        self.pid = pid
        self.stdoutFD = stdoutFD
        self.stderrFD = stderrFD
        self.stdinFD = stdinFD
        self.stdinData = stdinData
        self.timeoutSeconds = timeoutSeconds
    }

    func cancel() { cancelled.withLock { $0 = true } }

    /// Runs on its own thread until the child is done; closes all descriptors.
    func superviseUntilDone() -> Outcome {
        // A write to a stdin pipe whose reader has gone must give EPIPE, not
        // kill the whole test process; SIGPIPE is thread-directed, so blocking
        // it on this thread is enough.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

        var out: [UInt8] = []
        var err: [UInt8] = []
        var outOpen = true
        var errOpen = true
        var inFD = stdinFD
        var inOffset = 0
        for fd in [stdoutFD, stderrFD, stdinFD] where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        if inFD >= 0 && stdinData.isEmpty { close(inFD); inFD = -1 }

        let deadline = ChildProcess.monotonicNow() + timeoutSeconds
        var status: Int32? = nil
        var exitedAt = 0.0
        var ending: Ending? = nil
        var buffer = [UInt8](repeating: 0, count: 65536)

        func drain(_ fd: Int32, into bytes: inout [UInt8], open: inout Bool) {
            while open {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 { bytes.append(contentsOf: buffer[0..<count]); continue }
                if count == 0 { open = false; close(fd); return }
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                open = false; close(fd); return
            }
        }

        while true {
            if status == nil, case .exited(let code) = ChildProcess.poll(pid) {
                status = code
                exitedAt = ChildProcess.monotonicNow()
            }
            if let status {
                if !outOpen && !errOpen { ending = .exited(status); break }
                // A descendant may hold the pipes open after the child exited;
                // do not wait for it forever.
                if ChildProcess.monotonicNow() - exitedAt > 1.0 { ending = .exited(status); break }
            }
            let isCancelled = cancelled.withLock { $0 }
            if isCancelled || ChildProcess.monotonicNow() >= deadline {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                if status == nil { _ = ChildProcess.wait(pid, upTo: 5) }
                drain(stdoutFD, into: &out, open: &outOpen)
                drain(stderrFD, into: &err, open: &errOpen)
                ending = isCancelled ? .cancelled : .timedOut
                break
            }

            var fds: [pollfd] = []
            if outOpen { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
            if errOpen { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
            if inFD >= 0 { fds.append(pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)) }
            // With every pipe closed only the exit is left to see: check again
            // soon rather than sleep 50 ms on no descriptors.
            let slice = fds.isEmpty ? 1.0 : 50.0
            let remainingMS = Int32(max(0, min(slice, (deadline - ChildProcess.monotonicNow()) * 1000)))
            _ = poll(&fds, nfds_t(fds.count), remainingMS)

            for entry in fds where entry.revents != 0 {
                if entry.fd == stdoutFD { drain(stdoutFD, into: &out, open: &outOpen) }
                else if entry.fd == stderrFD { drain(stderrFD, into: &err, open: &errOpen) }
                else if entry.fd == inFD {
                    if entry.revents & Int16(POLLERR | POLLHUP) != 0 { close(inFD); inFD = -1; continue }
                    let written = stdinData.withUnsafeBytes { bytes in
                        write(inFD, bytes.baseAddress! + inOffset, min(65536, bytes.count - inOffset))
                    }
                    if written > 0 { inOffset += written }
                    else if written < 0 && errno != EAGAIN && errno != EINTR { close(inFD); inFD = -1; continue }
                    if inOffset >= stdinData.count { close(inFD); inFD = -1 }
                }
            }
        }
        if outOpen { close(stdoutFD) }
        if errOpen { close(stderrFD) }
        if inFD >= 0 { close(inFD) }
        return Outcome(ending: ending ?? .exited(status ?? -1), stdout: out, stderr: err)
    }
}
