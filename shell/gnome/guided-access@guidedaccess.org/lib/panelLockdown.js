// SPDX-License-Identifier: GPL-2.0-or-later
// The top bar during a session: every menu in it is hidden (the
// Activities button, the app menu, the calendar and message list, quick
// settings with Settings, Lock and Power Off, the accessibility and
// keyboard menus, and any other extension's indicators), except the
// session's own indicator (the time left and a way to end) and, when the
// `panel-menus-during-session` option says so, the calendar (unless
// notifications are denied) and quick settings (unless the power menu is
// denied). The panel itself takes no clicks, so dragging it cannot move
// the locked window. release() and destroy() show exactly what it hid.
//
// The menus close at once; the rest comes a frame later (NextFrame), and
// so does the top bar's return at the end (release()), so that the frame
// that locks or restores the windows does not paint the top bar: any change
// to it (an indicator hidden, the panel made insensitive) repaints it,
// which on a software renderer took that frame's paint from about 1 ms to
// 13. A menu opened in between is closed again then, and the overview and
// the shell's shortcuts are ShellLockdown's, locked at once. The enforcer
// owns it, so that disabling the extension puts the top bar back at once
// (destroy()).

import {NextFrame} from './nextFrame.js';
import {Overrides} from './overrides.js';

export const OWN_INDICATOR_ROLE = 'guided-access';

export class PanelLockdown {
    constructor(deps) {
        this._deps = deps;
        this._overrides = null;
        this._hidden = new Map(); // status area role → its container's visibility before
        this._nextFrame = new NextFrame(deps);
    }

    _hides(role, keep) {
        return role !== OWN_INDICATOR_ROLE && !keep.includes(role);
    }

    // keep: the status area roles to leave visible besides our own.
    apply(keep) {
        for (const [role, indicator] of Object.entries(this._deps.Main.panel.statusArea)) {
            if (this._hides(role, keep))
                indicator.menu?.close();
        }
        this._nextFrame.run(() => this._lockDown(keep));
    }

    _lockDown(keep) {
        const {Main} = this._deps;
        if (this._overrides === null) {
            this._overrides = new Overrides();
            this._overrides.set(Main.panel, 'reactive', false);
        }
        for (const [role, indicator] of Object.entries(Main.panel.statusArea)) {
            const hide = this._hides(role, keep);
            if (hide && !this._hidden.has(role)) {
                indicator.menu?.close();
                this._hidden.set(role, indicator.container.visible);
                indicator.container.hide();
            } else if (!hide && this._hidden.has(role)) {
                this._show(role);
            }
        }
    }

    _show(role) {
        const indicator = this._deps.Main.panel.statusArea[role];
        if (indicator)
            indicator.container.visible = this._hidden.get(role);
        this._hidden.delete(role);
    }

    // The session ended: the top bar as it was, a frame later.
    release() {
        this._nextFrame.run(() => this._restore());
    }

    destroy() {
        this._nextFrame.destroy();
        this._restore();
    }

    _restore() {
        if (this._overrides === null)
            return;
        for (const role of [...this._hidden.keys()])
            this._show(role);
        this._overrides.destroy();
        this._overrides = null;
    }
}
