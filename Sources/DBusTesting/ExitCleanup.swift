// SPDX-License-Identifier: LGPL-2.1-or-later
// Process-exit safety net: makes sure daemons and installed files do not
// outlive the test process, even when it crashes, fails a precondition, is
// killed with SIGKILL, or simply never calls stop()/deinit (leaked objects,
// statics).
//
// How: the first time something is registered we spawn one small watcher
// (`/bin/sh`) whose stdin is the read end of a pipe. The write end stays open
// in this process only (close-on-exec, and every child we spawn gets
// descriptors above 2 closed), so the watcher sees EOF exactly when this
// process is gone, however it ended. It then reads a manifest file and
//   * for each "kill PID STARTTIME": if /proc/PID/stat still shows that start
//     time (no pid reuse), sends SIGCONT+SIGTERM to the process group, and
//     SIGKILL one second later;
//   * for each "remove PATH": rm -rf PATH (temp dirs, installed polkit files).
// Entries are removed from the manifest when stop() cleans up normally.
// The watcher ignores SIGINT/SIGHUP/SIGTERM and runs in its own process group,
// so Ctrl-C on `swift test` reaches the tests but not the watcher.

import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

final class ExitCleanup: @unchecked Sendable {
    static let shared = ExitCleanup()

    /// What the watcher must undo if this process dies first.
    enum Entry {
        /// A process group led by `pid`, identified also by its start time.
        case processGroup(pid: pid_t, startTime: UInt64)
        /// A file or directory to delete.
        case path(String)

        var line: String {
            switch self {
            case .processGroup(let pid, let startTime): return "kill \(pid) \(startTime)"
            case .path(let path): return "remove \(path)"
            }
        }
    }

    /// A registration; pass to `unregister` once cleaned up normally.
    struct Token: Hashable, Sendable { fileprivate let value: Int }

    private struct State {
        var directory: String?
        var writeEnd: Int32 = -1
        var watcherPID: pid_t = 0
        var entries: [Int: String] = [:]
        var order: [Int] = []
        var next = 0
        var failed = false
    }

    private let state = Locked(State())

    private static let script = #"""
    trap '' INT HUP TERM QUIT PIPE
    dir=$1
    while read -r _; do :; done
    m="$dir/manifest"
    if [ -f "$m" ]; then
      pids=""
      while IFS= read -r line; do
        case "$line" in
          "kill "*)
            rest=${line#kill }
            p=${rest%% *}
            want=${rest#* }
            st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f20)
            if [ -n "$st" ] && [ "$st" = "$want" ]; then
              kill -TERM -"$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null
              kill -CONT -"$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null
              pids="$pids $p"
            fi ;;
        esac
      done < "$m"
      if [ -n "$pids" ]; then
        sleep 1
        for p in $pids; do kill -KILL -"$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
      fi
      while IFS= read -r line; do
        case "$line" in
          "remove "*) rm -rf -- "${line#remove }" ;;
        esac
      done < "$m"
    fi
    rm -rf -- "$dir"
    """#

    /// Records `entry` for cleanup at process exit. Best effort: if the
    /// watcher cannot be started, a warning goes to stderr and normal
    /// stop()/deinit cleanup still works.
    func register(_ entry: Entry) -> Token {
        state.withLock { state in
            startWatcherIfNeeded(&state)
            let key = state.next
            state.next += 1
            state.entries[key] = entry.line
            state.order.append(key)
            writeManifest(state)
            return Token(value: key)
        }
    }

    /// Forgets a registration after the resource was cleaned up normally.
    func unregister(_ token: Token) {
        state.withLock { state in
            guard state.entries.removeValue(forKey: token.value) != nil else { return }
            state.order.removeAll { $0 == token.value }
            writeManifest(state)
        }
    }

    private func writeManifest(_ state: State) {
        guard let directory = state.directory else { return }
        let text = state.order.compactMap { state.entries[$0] }.map { $0 + "\n" }.joined()
        let temporary = directory + "/manifest.tmp"
        do {
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            rename(temporary, directory + "/manifest")
        } catch {
            FileHandle.standardError.write(Data("DBusTesting: cannot write cleanup manifest: \(error)\n".utf8))
        }
    }

    private func startWatcherIfNeeded(_ state: inout State) {
        guard state.directory == nil, !state.failed else { return }
        do {
            let base = FileManager.default.temporaryDirectory.path
            var template = Array("\(base)/dbus-testing-cleanup-\(getpid())-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                throw SpawnError(argv: [], reason: "mkdtemp: \(ChildProcess.errnoString())")
            }
            let directory = String(cString: made)
            let pipe = try ChildProcess.makePipe()
            let devNull = ChildProcess.openDevNull()
            defer {
                close(pipe.read)
                if devNull >= 0 { close(devNull) }
            }
            let pid = try ChildProcess.spawn(SpawnRequest(
                argv: ["/bin/sh", "-c", Self.script, "dbus-testing-cleanup", directory],
                environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"],
                descriptors: [0: pipe.read, 1: devNull, 2: devNull],
                newProcessGroup: true
            ))
            state.directory = directory
            state.writeEnd = pipe.write // kept open (close-on-exec) until we exit
            state.watcherPID = pid
        } catch {
            state.failed = true
            FileHandle.standardError.write(Data(
                "DBusTesting: cannot start the exit-cleanup watcher (\(error)); daemons may leak if the test process crashes\n".utf8))
        }
    }
}
