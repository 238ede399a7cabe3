// App lock: while a session is enforced, only windows whose process has the
// session's app id (as the daemon says, GetAppIds) are reachable. Other
// windows are minimized, kept minimized and never keep the focus; new ones
// are minimized as they appear. Unlocking un-minimizes exactly the windows
// the lock minimized.

export class AppLock {
    // deps: {GLib, Meta, Main}; service: a ServiceClient.
    constructor(deps, service) {
        this._deps = deps;
        this._service = service;
        this._app = null;
        this._displaySignals = [];
        this._windowSignals = new Map(); // Meta.Window → [signal ids]
        this._minimizedByLock = new Set(); // in the order they were minimized
        this._refocusSource = 0;
        // Bumped by every lock()/unlock(), so that a GetAppIds answer that
        // arrives after the session changed is ignored.
        this._generation = 0;
    }

    get locked() {
        return this._app !== null;
    }

    // Locks to `app`, or re-checks every window for a new app.
    lock(app) {
        if (this._app === app)
            return;
        this._app = app;
        this._generation++;
        if (this._displaySignals.length === 0) {
            const display = global.display;
            this._displaySignals = [
                display.connect('window-created', (_display, window) => {
                    this._track(window);
                    this._decide(window);
                }),
                display.connect('notify::focus-window', () => this._focusChanged()),
            ];
        }
        const windows = global.display.list_all_windows();
        this._service.pruneAppIds(new Set(windows.map(window => window.get_pid())));
        for (const window of windows) {
            this._track(window);
            this._decide(window);
        }
    }

    unlock() {
        if (this._app === null)
            return;
        this._app = null;
        this._generation++;
        for (const id of this._displaySignals)
            global.display.disconnect(id);
        this._displaySignals = [];
        for (const [window, ids] of this._windowSignals) {
            for (const id of ids)
                window.disconnect(id);
        }
        this._windowSignals.clear();
        if (this._refocusSource) {
            this._deps.GLib.source_remove(this._refocusSource);
            this._refocusSource = 0;
        }
        for (const window of this._minimizedByLock) {
            if (window.minimized)
                window.unminimize();
        }
        this._minimizedByLock.clear();
    }

    // Windows that take part in the lock: everything a person can focus.
    _isManaged(window) {
        return !window.is_override_redirect();
    }

    _track(window) {
        if (this._windowSignals.has(window) || !this._isManaged(window))
            return;
        this._windowSignals.set(window, [
            window.connect('notify::minimized', () => {
                if (!window.minimized)
                    this._decide(window);
            }),
            window.connect('unmanaged', () => {
                for (const id of this._windowSignals.get(window) ?? [])
                    window.disconnect(id);
                this._windowSignals.delete(window);
                this._minimizedByLock.delete(window);
            }),
        ]);
    }

    // Whether the window belongs to the session: true, false, or undefined
    // while its process's ids are not known yet.
    _belongs(window) {
        const ids = this._service.cachedAppIds(window.get_pid());
        return ids === undefined ? undefined : ids.includes(this._app);
    }

    _decide(window) {
        if (!this._isManaged(window))
            return;
        const known = this._belongs(window);
        if (known !== undefined) {
            if (!known)
                this._hide(window);
            return;
        }
        const generation = this._generation;
        this._service.appIds(window.get_pid()).then(ids => {
            if (generation !== this._generation || !this._windowSignals.has(window))
                return;
            if (!ids.includes(this._app))
                this._hide(window);
        });
    }

    _hide(window) {
        if (!window.minimized) {
            if (!window.can_minimize()) {
                // Attached dialogs go with their parent; a window that
                // cannot be minimized at all at least loses the focus.
                const parent = window.get_transient_for();
                if (parent !== null)
                    this._hide(parent);
            } else {
                window.minimize();
                this._minimizedByLock.add(window);
            }
        }
        if (global.display.focus_window === window || global.display.focus_window === null)
            this._scheduleRefocus();
    }

    _focusChanged() {
        const window = global.display.focus_window;
        if (window === null || !this._isManaged(window))
            return;
        // Unknown windows are decided by _decide; until then, and for
        // foreign ones, the focus goes back to the app.
        if (this._belongs(window) !== true) {
            this._decide(window);
            this._scheduleRefocus();
        }
    }

    // Gives the focus back to the session's most recently used window. Done
    // from an idle callback: activating a window from inside a focus change
    // notification re-enters mutter's focus handling.
    _scheduleRefocus() {
        if (this._refocusSource)
            return;
        const {GLib, Meta, Main} = this._deps;
        this._refocusSource = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._refocusSource = 0;
            const current = global.display.focus_window;
            if (current !== null && this._belongs(current) === true)
                return GLib.SOURCE_REMOVE;
            const mine = global.display.get_tab_list(Meta.TabList.NORMAL_ALL, null)
                .find(window => this._belongs(window) === true);
            if (mine !== undefined)
                Main.activateWindow(mine);
            return GLib.SOURCE_REMOVE;
        });
    }
}
