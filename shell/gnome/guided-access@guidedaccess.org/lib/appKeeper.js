// SPDX-License-Identifier: GPL-2.0-or-later
// Keeps the locked app on screen: when it goes away during a session
// (closed, quit, crashed), it is launched again, at most 3 times a minute
// (RelaunchBudget). Past that, or when it cannot be launched, the app is
// `unreachable` and the enforcer shows the shield that only the end
// gesture passes, until a window of the app shows up again.
//
// How it is launched, first that applies: the app the shell tracks for its
// windows (Shell.App, from its desktop file); the desktop file named after
// the session's app id (a Flatpak id is one); the command line its process
// was started with (an app known by its executable path); a desktop file
// whose program is that executable (its path resolved as the daemon
// resolves it). The last one also serves a session that was running
// before any window of the app was seen (the extension enabled, or the
// shell started, during a session: managed Single App Mode after a
// reboot), which AppLock reports as the app gone at once.

import {RelaunchBudget} from './relaunchBudget.js';

// A launch that shows no window within this time counts as failed.
const LAUNCH_TIMEOUT_S = 10;

export class AppKeeper {
    // deps: {Gio, GLib, Shell}; changed(): `unreachable` changed.
    constructor(deps, changed) {
        this._deps = deps;
        this._changed = changed;
        this._budget = new RelaunchBudget();
        this._app = null;
        this._shellApp = null;
        this._argv = null;
        this._unreachable = false;
        this._timeoutSource = 0;
    }

    get unreachable() {
        return this._unreachable;
    }

    // A new session locked to `app` (null: none).
    follow(app) {
        if (app === this._app)
            return;
        this._app = app;
        this._shellApp = this._argv = null;
        this._budget.reset();
        this._stopWaiting();
        this._setUnreachable(false);
    }

    // A window of the app is on screen: remember how to launch it again.
    appWindow(window) {
        const {Shell} = this._deps;
        this._stopWaiting();
        this._setUnreachable(false);
        const shellApp = Shell.WindowTracker.get_default().get_window_app(window);
        if (shellApp !== null && !shellApp.is_window_backed())
            this._shellApp = shellApp;
        this._argv = this._commandLine(window.get_pid()) ?? this._argv;
    }

    // The app has had no window for a moment.
    appGone() {
        if (this._app === null || this._timeoutSource)
            return;
        const {GLib} = this._deps;
        if (!this._budget.take(GLib.get_monotonic_time())) {
            log(`Guided Access: ${this._app} went away again; not launched more than 3 times a minute`);
            this._setUnreachable(true);
            return;
        }
        if (!this._launch()) {
            this._setUnreachable(true);
            return;
        }
        this._timeoutSource = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, LAUNCH_TIMEOUT_S, () => {
            this._timeoutSource = 0;
            this.appGone();
            return GLib.SOURCE_REMOVE;
        });
    }

    _launch() {
        const {Gio, Shell} = this._deps;
        // The shell's apps come from the desktop files (and gjs 1.86 warns
        // about Gio.DesktopAppInfo, moved to GioUnix).
        const apps = Shell.AppSystem.get_default();
        try {
            if (this._shellApp !== null) {
                this._shellApp.open_new_window(-1);
                return true;
            }
            const named = apps.lookup_app(`${this._app}.desktop`);
            if (named !== null) {
                named.open_new_window(-1);
                return true;
            }
            if (this._argv !== null) {
                Gio.Subprocess.new(this._argv, Gio.SubprocessFlags.NONE);
                return true;
            }
            const byProgram = this._appInfoRunning(this._app);
            const app = byProgram === null ? null : apps.lookup_app(byProgram.get_id());
            if (app !== null) {
                app.open_new_window(-1);
                return true;
            }
            log(`Guided Access: cannot launch ${this._app} again: no desktop file and no command line known`);
        } catch (error) {
            log(`Guided Access: cannot launch ${this._app} again: ${error.message}`);
        }
        return false;
    }

    // The installed app whose desktop file runs the executable `path` (an
    // app id that is an absolute path), or null.
    _appInfoRunning(path) {
        const {Gio, GLib} = this._deps;
        if (!path.startsWith('/'))
            return null;
        return Gio.AppInfo.get_all().find(info => {
            // GLib gives Exec's first word as written, quotes included.
            let program = null;
            try {
                program = GLib.shell_parse_argv(info.get_executable?.() ?? '')[1][0] ?? null;
            } catch (_error) {
                return false;
            }
            if (!program)
                return false;
            const found = program.startsWith('/') ? program : GLib.find_program_in_path(program);
            return found !== null && resolvedPath(GLib, found) === path;
        }) ?? null;
    }

    // argv of process `pid`, from /proc/PID/cmdline, or null.
    _commandLine(pid) {
        const {GLib} = this._deps;
        try {
            const [, bytes] = GLib.file_get_contents(`/proc/${pid}/cmdline`);
            const argv = new TextDecoder().decode(bytes).split('\0').filter((arg, i, all) =>
                i < all.length - 1 || arg !== '');
            return argv.length > 0 && argv[0] !== '' ? argv : null;
        } catch (_error) {
            return null;
        }
    }

    _setUnreachable(unreachable) {
        if (unreachable === this._unreachable)
            return;
        this._unreachable = unreachable;
        this._changed();
    }

    _stopWaiting() {
        if (this._timeoutSource) {
            this._deps.GLib.source_remove(this._timeoutSource);
            this._timeoutSource = 0;
        }
    }

    destroy() {
        this.follow(null);
    }
}

// `path` with its symbolic links resolved, component by component (as
// realpath(3) does, which the daemon uses for an app id that is a path).
export function resolvedPath(GLib, path) {
    let resolved = '/';
    const parts = GLib.canonicalize_filename(path, '/').split('/').filter(part => part !== '');
    for (let links = 0; parts.length > 0;) {
        const next = GLib.build_filenamev([resolved, parts.shift()]);
        let target = null;
        try {
            target = GLib.file_test(next, GLib.FileTest.IS_SYMLINK) ? GLib.file_read_link(next) : null;
        } catch (_error) {
            target = null;
        }
        if (target === null || ++links > 40) {
            resolved = next;
            continue;
        }
        const absolute = GLib.canonicalize_filename(target, resolved);
        parts.unshift(...absolute.split('/').filter(part => part !== ''));
        resolved = '/';
    }
    return resolved;
}
