// SPDX-License-Identifier: GPL-2.0-or-later
// Covers over the windows of other apps that the app lock cannot minimize
// and hides instead (another program's override-redirect windows): on X11 a
// hidden window still takes the clicks where it lies, since the X server,
// not the compositor, picks the window under the pointer. A cover is an
// invisible actor over the window, added as chrome so that Cinnamon puts it
// in the X input region (as RegionBlockers), that takes every click there
// and follows the window as it moves or resizes; it goes with the window.
// While they exist muffin composites every window: an opaque
// override-redirect window the size of a monitor is otherwise drawn by the
// X server itself ("unredirected"), over everything and with the input
// there, whatever its actor. destroy() takes every cover away and lets
// muffin unredirect again.

export class OverlayCovers {
    // deps: {St, Main, Meta, global}.
    constructor(deps) {
        this._deps = deps;
        this._covers = new Map(); // Meta.Window → {cover, ids}
        deps.Meta.disable_unredirect_for_display(deps.global.display);
    }

    // Covers `window` (once) for as long as it is there.
    cover(window) {
        if (this._covers.has(window))
            return;
        const {St, Main} = this._deps;
        const cover = new St.Widget({name: 'guided-access-overlay-cover', reactive: true});
        Main.layoutManager.addChrome(cover, {visibleInFullscreen: true});
        const follow = () => {
            const rect = window.get_frame_rect();
            cover.set_position(rect.x, rect.y);
            cover.set_size(rect.width, rect.height);
        };
        follow();
        this._covers.set(window, {cover, ids: [
            window.connect('position-changed', follow),
            window.connect('size-changed', follow),
            window.connect('unmanaged', () => this._uncover(window)),
        ]});
    }

    _uncover(window) {
        const {cover, ids} = this._covers.get(window);
        this._covers.delete(window);
        for (const id of ids)
            window.disconnect(id);
        this._deps.Main.layoutManager.removeChrome(cover);
        cover.destroy();
    }

    destroy() {
        for (const window of [...this._covers.keys()])
            this._uncover(window);
        this._deps.Meta.enable_unredirect_for_display(this._deps.global.display);
    }
}
