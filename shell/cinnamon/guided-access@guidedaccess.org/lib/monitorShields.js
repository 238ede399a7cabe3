// SPDX-License-Identifier: GPL-2.0-or-later
// With two monitors or more, each monitor that shows no window of the
// locked app dimmed and shielded: an actor over the whole monitor that takes
// every click there (chrome, so that X11 input reaches it rather than the
// desktop or a window below). Which monitors is AppMonitors' answer (the
// GNOME extension's, with ../common/monitors.js). destroy() takes them away.

const SHIELD_STYLE = 'background-color: rgba(0, 0, 0, 0.75);';

export class MonitorShields {
    // deps: {St, Main}.
    constructor(deps) {
        this._deps = deps;
        this._shields = [];
        this._key = '[]';
    }

    // rects: the {x, y, width, height} of each monitor to shield.
    set(rects) {
        const key = JSON.stringify(rects.map(({x, y, width, height}) => [x, y, width, height]));
        if (key === this._key)
            return;
        this._key = key;
        this._removeAll();
        const {St, Main} = this._deps;
        this._shields = rects.map(({x, y, width, height}) => {
            const shield = new St.Widget({
                name: 'guided-access-monitor-shield', reactive: true, x, y, width, height, style: SHIELD_STYLE,
            });
            Main.layoutManager.addChrome(shield, {visibleInFullscreen: true});
            return shield;
        });
    }

    _removeAll() {
        for (const shield of this._shields) {
            this._deps.Main.layoutManager.removeChrome(shield);
            shield.destroy();
        }
        this._shields = [];
    }

    destroy() {
        this._removeAll();
        this._key = '[]';
    }
}
