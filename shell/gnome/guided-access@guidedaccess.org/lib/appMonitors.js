// SPDX-License-Identifier: GPL-2.0-or-later
// Which monitors the locked app is on, followed through the session: the
// working monitor (where the end dialog, the time left and the shield's
// message go) and the monitors to shield. Told by mutter when a window
// enters or leaves a monitor, when the focus moves and when monitors are
// added, removed or rearranged; ../common/monitors.js decides.

import {allWindows} from './appLock.js';
import {shieldedMonitors, workingMonitor} from '../common/monitors.js';

export class AppMonitors {
    // deps: {Main, global}; belongs(window): whether it is the locked app's;
    // changed(): called when the working or the shielded monitors changed,
    // from the first update() on.
    constructor(deps, belongs, changed) {
        this._deps = deps;
        this._belongs = belongs;
        this._changed = changed;
        this._working = -1;
        this._shielded = [];
        this._key = '';
        const {Main, global: {display}} = deps;
        this._signals = [
            [Main.layoutManager, Main.layoutManager.connect('monitors-changed', () => this.update())],
            [display, display.connect('window-entered-monitor', () => this.update())],
            [display, display.connect('window-left-monitor', () => this.update())],
            [display, display.connect('notify::focus-window', () => this.update())],
        ];
    }

    // The working monitor's {x, y, width, height}.
    get working() {
        return this._deps.Main.layoutManager.monitors[this._working];
    }

    get workingIndex() {
        return this._working;
    }

    // The {x, y, width, height} of each monitor to shield.
    get shielded() {
        return this._shielded.map(index => this._deps.Main.layoutManager.monitors[index]);
    }

    // Looks again (also when a window became known as the app's).
    update() {
        const {Main, global} = this._deps;
        const shown = allWindows(global).filter(window => !window.minimized && this._belongs(window));
        const appMonitors = [...new Set(shown.map(window => window.get_monitor()))]
            .filter(index => index >= 0).sort((a, b) => a - b);
        const focus = global.display.focus_window;
        const focused = focus !== null && shown.includes(focus) ? focus.get_monitor() : -1;
        const monitors = Main.layoutManager.monitors;
        this._working = workingMonitor(appMonitors, focused, Main.layoutManager.primaryIndex);
        this._shielded = shieldedMonitors(monitors.length, appMonitors, this._working);
        // Monitors keep their index when rearranged: their rects are part of the key.
        const key = JSON.stringify([this._working, this._shielded,
            monitors.map(({x, y, width, height}) => [x, y, width, height])]);
        if (key === this._key)
            return;
        this._key = key;
        this._changed();
    }

    destroy() {
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
    }
}
