// SPDX-License-Identifier: GPL-2.0-or-later
// The session's disabled regions: over each, an invisible actor that takes
// every click, wheel and touch there. Added as chrome, so that Cinnamon puts
// it in the X input region: on X11 input goes to the window below unless
// the compositor claims the place. destroy() takes them away.

export class RegionBlockers {
    // deps: {St, Main}; regions: [{x, y, width, height}] in stage coordinates.
    constructor({St, Main}, regions) {
        this._main = Main;
        this._blockers = regions.map(region => {
            const blocker = new St.Widget({
                name: 'guided-access-disabled-region', reactive: true,
                x: region.x, y: region.y, width: region.width, height: region.height,
            });
            Main.layoutManager.addChrome(blocker, {visibleInFullscreen: true});
            return blocker;
        });
    }

    destroy() {
        for (const blocker of this._blockers) {
            this._main.layoutManager.removeChrome(blocker);
            blocker.destroy();
        }
        this._blockers = [];
    }
}
