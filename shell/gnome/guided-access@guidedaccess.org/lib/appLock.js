// SPDX-License-Identifier: GPL-2.0-or-later
// App lock: while a session is enforced, only windows whose process has one
// of the session's reachable app ids (its App and AlsoAllowed, as
// ../common/session.js's reachableApps gives them; a process's ids are the
// daemon's, GetAppIds) are reachable.
//
// - Other apps' windows are minimized, kept minimized and never keep the
//   focus; new ones are minimized as they appear. Those that cannot be
//   minimized (override-redirect X11 windows, dialogs without a parent)
//   have their actors hidden: not drawn, and never picked for input.
// - The reachable apps' windows stay on screen: one that is minimized (its
//   own minimize button) is shown again, and when the active workspace
//   changes the focus goes back to them, which brings their workspace back.
// - The locked app's presence is reported (App's, not AlsoAllowed's: the
//   app kept running is App): appWindow(window) for each of its windows,
//   appGone() when it has had none for a moment; and each window whose
//   actor it hid: windowHidden(window), if given (on X11 a hidden window
//   still takes the clicks where it lies: the Cinnamon extension covers it).
// destroy() un-minimizes exactly the windows the lock minimized and shows
// the actors it hid. Which window is reachable, and what is done with it,
// is decided by reachability.js.

import {appPresence, belongsToApp} from '../common/identity.js';
import {focusTarget, windowAction} from './reachability.js';

// Every window the window manager has: Cinnamon's muffin has no
// list_all_windows, and its window actors are the same windows.
export function allWindows(global) {
    return global.display.list_all_windows?.() ?? global.get_window_actors().map(actor => actor.meta_window);
}

// How long the app may have no window before it counts as gone: it may be
// replacing one window with another, or its new window's ids are being asked.
const GONE_AFTER_MS = 300;

export class AppLock {
    // deps: {GLib, Meta, Main, global}; service: a ServiceClient; presence:
    // {appWindow(window), appGone(), windowHidden(window) (optional)}.
    constructor(deps, service, presence) {
        this._deps = deps;
        this._service = service;
        this._presence = presence;
        this._app = null; // App
        this._apps = []; // App and AlsoAllowed: the reachable ones
        this._signals = []; // [object, id] of display and workspace manager
        this._windowSignals = new Map(); // Meta.Window → [signal ids]
        this._minimizedByLock = new Set(); // in the order they were minimized
        this._minimizing = null; // the window being minimized by the lock
        this._hiddenActors = new Map(); // Meta.WindowActor → its signal ids
        this._refocusSource = 0;
        this._goneSource = 0;
        // Bumped by every lock()/destroy(), so that a GetAppIds answer that
        // arrives after the session changed is ignored.
        this._generation = 0;
    }

    get locked() {
        return this._app !== null;
    }

    // Locks to `app` and the other reachable `apps` (app first), or
    // re-checks every window when they changed.
    lock(app, apps = [app]) {
        if (this._app === app && apps.join('\n') === this._apps.join('\n'))
            return;
        this._app = app;
        this._apps = [...apps];
        this._generation++;
        if (this._signals.length === 0)
            this._connect();
        const windows = allWindows(this._deps.global);
        this._service.pruneAppIds(new Set(windows.map(window => window.get_pid())));
        for (const window of windows) {
            this._track(window);
            this._decide(window);
        }
        this._checkPresence();
    }


    _connect() {
        const {display, workspace_manager: workspaces} = this._deps.global;
        this._signals = [
            [display, display.connect('window-created', (_display, window) => {
                this._track(window);
                this._decide(window);
            })],
            [display, display.connect('notify::focus-window', () => this._focusChanged())],
            [workspaces, workspaces.connect('active-workspace-changed', () => this._scheduleRefocus())],
        ];
    }

    destroy() {
        if (this._app === null)
            return;
        this._app = null;
        this._apps = [];
        this._generation++;
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
        for (const [window, ids] of this._windowSignals) {
            for (const id of ids)
                window.disconnect(id);
        }
        this._windowSignals.clear();
        for (const source of [this._refocusSource, this._goneSource]) {
            if (source)
                this._deps.GLib.source_remove(source);
        }
        this._refocusSource = this._goneSource = 0;
        for (const window of this._minimizedByLock) {
            if (window.minimized)
                window.unminimize();
        }
        this._minimizedByLock.clear();
        for (const [actor, ids] of this._hiddenActors) {
            for (const id of ids)
                actor.disconnect(id);
            actor.show();
        }
        this._hiddenActors.clear();
    }

    _track(window) {
        if (this._windowSignals.has(window))
            return;
        this._windowSignals.set(window, [
            window.connect('notify::minimized', () => {
                if (window !== this._minimizing) // the lock's own needs no second look
                    this._decide(window);
            }),
            window.connect('unmanaged', () => {
                for (const id of this._windowSignals.get(window) ?? [])
                    window.disconnect(id);
                this._windowSignals.delete(window);
                this._minimizedByLock.delete(window);
                this._checkPresence();
            }),
        ]);
    }

    // Whether the window is known to be one of the reachable apps'.
    isAppWindow(window) {
        return this._belongs(window) === true;
    }

    // Whether the window belongs to the session (to a reachable app): true,
    // false, or undefined while its process's ids are not known yet.
    _belongs(window) {
        return belongsToApp(this._service.cachedAppIds(window.get_pid()), this._apps);
    }

    // Whether it is the locked app's own (App's), the same way.
    _isMain(window) {
        return belongsToApp(this._service.cachedAppIds(window.get_pid()), this._app);
    }

    _decide(window) {
        const known = this._belongs(window);
        if (known !== undefined) {
            this._settle(window, known);
            return;
        }
        const generation = this._generation;
        this._service.appIds(window.get_pid()).then(ids => {
            if (generation === this._generation && this._windowSignals.has(window))
                this._settle(window, belongsToApp(ids, this._apps) === true);
        });
    }

    _settle(window, belongs) {
        const overrideRedirect = window.is_override_redirect();
        const action = windowAction(belongs, {
            overrideRedirect, minimized: window.minimized, canMinimize: window.can_minimize(),
        });
        if (action === 'show') {
            window.unminimize();
        } else if (action === 'minimize') {
            this._skipEffect(window);
            this._minimizing = window;
            window.minimize();
            this._minimizing = null;
            this._minimizedByLock.add(window);
        } else if (action === 'hide-actor') {
            this._hideActor(window);
        }
        if (belongs) {
            if (this._isMain(window) === true)
                this._presence.appWindow(window);
            return;
        }
        const focused = this._deps.global.display.focus_window;
        if (!overrideRedirect && (focused === window || focused === null))
            this._scheduleRefocus();
    }

    // The lock takes a window off the screen at once, in the next frame: the
    // shell's minimize animation would leave it there for its length, and
    // fifty animations started together hold that frame back (Cinnamon's
    // window manager has no such call).
    _skipEffect(window) {
        const actor = window.get_compositor_private();
        if (actor !== null)
            this._deps.Main.wm.skipNextEffect?.(actor);
    }

    // Hides a window that cannot be minimized and keeps it hidden (mutter
    // shows a window's actor again when it maps or changes state).
    _hideActor(window) {
        const actor = window.get_compositor_private();
        if (actor === null || this._hiddenActors.has(actor))
            return;
        this._hiddenActors.set(actor, [
            actor.connect('notify::visible', () => {
                if (actor.visible)
                    actor.hide();
            }),
            actor.connect('destroy', () => this._hiddenActors.delete(actor)),
        ]);
        actor.hide();
        this._presence.windowHidden?.(window);
    }

    // Gives the focus back to the reachable apps' most recent window (the
    // overview the shell opened at its start was closed).
    refocus() {
        if (this._app !== null)
            this._scheduleRefocus();
    }

    _focusChanged() {
        const window = this._deps.global.display.focus_window;
        if (window === null)
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
        const {GLib, Meta, Main, global} = this._deps;
        this._refocusSource = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._refocusSource = 0;
            const workspace = global.workspace_manager.get_active_workspace();
            const target = focusTarget(global.display.focus_window,
                global.display.get_tab_list(Meta.TabList.NORMAL_ALL, null),
                window => this._belongs(window), window => window.located_on_workspace(workspace));
            if (target !== null)
                Main.activateWindow(target);
            return GLib.SOURCE_REMOVE;
        });
    }

    // After a window went (or at lock time), tells appGone() once the app
    // has had no window for GONE_AFTER_MS; waits longer while some
    // window's ids are still being asked.
    _checkPresence() {
        const {GLib} = this._deps;
        if (this._goneSource)
            GLib.source_remove(this._goneSource);
        this._goneSource = GLib.timeout_add(GLib.PRIORITY_DEFAULT, GONE_AFTER_MS, () => {
            this._goneSource = 0;
            const presence = appPresence([...this._windowSignals.keys()].map(window => this._isMain(window)));
            if (presence === 'unknown')
                this._checkPresence();
            else if (presence === 'gone')
                this._presence.appGone();
            return GLib.SOURCE_REMOVE;
        });
    }
}
