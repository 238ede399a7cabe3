// SPDX-License-Identifier: GPL-2.0-or-later
// The top bar during a session: every menu in it is hidden (the
// Activities button, the app menu, the calendar and message list, quick
// settings with Settings, Lock and Power Off, the accessibility and
// keyboard menus, and any other extension's indicators), except the
// session's own indicator (the time left and a way to end) and, when the
// `panel-menus-during-session` option says so, the calendar (unless
// notifications are denied) and quick settings (unless the power menu is
// denied). The panel itself takes no clicks, so dragging it cannot move
// the locked window. destroy() shows exactly what it hid.

import {Overrides} from './overrides.js';

export const OWN_INDICATOR_ROLE = 'guided-access';

export class PanelLockdown {
    constructor(deps) {
        this._deps = deps;
        this._overrides = null;
        this._hidden = new Map(); // status area role → its container's visibility before
    }

    // keep: the status area roles to leave visible besides our own.
    apply(keep) {
        const {Main} = this._deps;
        if (this._overrides === null) {
            this._overrides = new Overrides();
            this._overrides.set(Main.panel, 'reactive', false);
        }
        const statusArea = Main.panel.statusArea;
        for (const [role, indicator] of Object.entries(statusArea)) {
            const hide = role !== OWN_INDICATOR_ROLE && !keep.includes(role);
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

    destroy() {
        if (this._overrides === null)
            return;
        for (const role of [...this._hidden.keys()])
            this._show(role);
        this._overrides.destroy();
        this._overrides = null;
    }
}
