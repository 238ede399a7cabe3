// SPDX-License-Identifier: GPL-2.0-or-later
// The shell's window switchers during a session list only the windows the
// person may reach (the session's App and AlsoAllowed): Alt+Tab's apps,
// Alt+Esc, the window switcher and Alt+` all take their windows from
// global.display.get_tab_list() (altTab.js's getWindows, on GNOME 43 to
// 50), which is shadowed by one that leaves the others out. Whether a
// switcher may open at all is keybindingPolicy.js's. destroy() puts the
// display's own method back.

import {Overrides} from './overrides.js';

export class SwitcherFilter {
    // deps: {global}; reachable(window): whether the person may reach it
    // (AppLock.isAppWindow: known to be a reachable app's).
    constructor(deps, reachable) {
        const {display} = deps.global;
        this._overrides = new Overrides();
        const own = display.get_tab_list;
        this._overrides.replace(display, 'get_tab_list', (...args) =>
            own.apply(display, args).filter(window => reachable(window)));
    }

    destroy() {
        this._overrides?.destroy();
        this._overrides = null;
    }
}
