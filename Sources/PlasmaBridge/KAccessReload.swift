// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import Locking

/// kaccess, KDE's accessibility daemon, reads kaccessrc only when it is run
/// again (it follows no change signal): run, it hands over to the running
/// instance, which reads the file and acts on it (starts Orca for the
/// screen reader; on X11, and for Xwayland's programs, the keyboard and
/// mouse aids). System Settings' accessibility page does the same after it
/// writes kaccessrc. Nothing when kaccess is not installed.
enum KAccessReload {
    /// Runs `kaccess` from `PATH` without waiting for it; a thread of its
    /// own reaps it. The problem, for the log, when it could not be started.
    static func run(path: String?) -> String? {
        guard let executable = find("kaccess", in: path) else { return nil }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon's threads block signals it handles itself; kaccess gets the defaults.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigemptyset(&all)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&all, Int32(signal)) }
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
        defer { for argument in argv { free(argument) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { return "cannot run \(executable) to have kaccess read kaccessrc again: \(String(cString: strerror(status)))" }
        let child = pid
        DetachedThread.start { _ = waitpid(child, nil, 0) }
        return nil
    }

    /// The first executable `name` in the colon-separated `path`.
    static func find(_ name: String, in path: String?) -> String? {
        for directory in (path ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
