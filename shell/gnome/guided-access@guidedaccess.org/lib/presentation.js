// SPDX-License-Identifier: GPL-2.0-or-later
// The session's Presentation: the locked app's main windows maximized or
// full screen for the session ('as-is' leaves them alone), and each put
// back at destroy() as it was: full screen or not, maximized or not, and
// its place and size.

import {PRESENTATION} from '../common/contract.js';

// Mutter 49 (GNOME 49) renamed get_maximized() to get_maximize_flags() and
// moved the directions of maximize() and unmaximize() to
// set_maximize_flags() and set_unmaximize_flags().
function maximizeFlags(window) {
    return window.get_maximize_flags ? window.get_maximize_flags() : window.get_maximized();
}

function maximize(window, directions) {
    if (window.set_maximize_flags)
        window.set_maximize_flags(directions);
    else
        window.maximize(directions);
}

function unmaximize(window, directions) {
    if (window.set_unmaximize_flags)
        window.set_unmaximize_flags(directions);
    else
        window.unmaximize(directions);
}

export class Presentation {
    // deps: {Meta}
    constructor(deps) {
        this._deps = deps;
        this._mode = PRESENTATION.asIs;
        this._saved = new Map(); // Meta.Window → {fullscreen, maximized, rect, unmanagedId}
    }

    // The mode to apply to the windows shown from now on.
    setMode(mode) {
        this._mode = mode;
        for (const window of this._saved.keys())
            this._apply(window);
    }

    // A window of the locked app is on screen (AppLock's appWindow).
    show(window) {
        const {Meta} = this._deps;
        if (this._mode === PRESENTATION.asIs || window.get_window_type() !== Meta.WindowType.NORMAL ||
            window.get_transient_for() !== null)
            return;
        if (!this._saved.has(window)) {
            this._saved.set(window, {
                fullscreen: window.is_fullscreen(),
                maximized: maximizeFlags(window),
                rect: window.get_frame_rect(),
                unmanagedId: window.connect('unmanaged', () => this._saved.delete(window)),
            });
        }
        this._apply(window);
    }

    _apply(window) {
        const {Meta} = this._deps;
        if (this._mode === PRESENTATION.fullscreen && !window.is_fullscreen())
            window.make_fullscreen();
        else if (this._mode === PRESENTATION.maximized && maximizeFlags(window) !== Meta.MaximizeFlags.BOTH)
            maximize(window, Meta.MaximizeFlags.BOTH);
    }

    destroy() {
        const {Meta} = this._deps;
        for (const [window, saved] of this._saved) {
            window.disconnect(saved.unmanagedId);
            if (!saved.fullscreen && window.is_fullscreen())
                window.unmake_fullscreen();
            const extra = maximizeFlags(window) & ~saved.maximized;
            if (extra)
                unmaximize(window, extra);
            if (saved.maximized === 0) {
                const {x, y, width, height} = saved.rect;
                window.move_resize_frame(false, x, y, width, height);
            }
        }
        this._saved.clear();
        this._mode = PRESENTATION.asIs;
    }
}
