// SPDX-License-Identifier: GPL-2.0-or-later
// The shield over the whole screen, the app included, when the session
// cannot go on as it is (the time is up, or the locked app is gone and
// cannot be launched again): it dims everything, takes every click and says
// why and which keys end the session. Added as chrome, so that X11 input
// reaches it rather than the app's window below. It takes no key: the
// gesture and the end dialog still work. destroy() takes it away.

export class Shield {
    // deps: {St, Clutter, Main, global}.
    constructor(deps) {
        this._deps = deps;
        this._actor = null;
        this._text = null;
    }

    // text: what the shield says, or null for no shield.
    set(text) {
        if (text === this._text)
            return;
        this._text = text;
        this._remove();
        if (text === null)
            return;
        const {St, Clutter, Main, global} = this._deps;
        this._actor = new St.Bin({
            name: 'guided-access-shield', reactive: true, accessible_name: text,
            style: 'background-color: rgba(0, 0, 0, 0.6);',
            x_align: St.Align.MIDDLE, y_align: St.Align.MIDDLE,
        });
        this._actor.set_child(new St.Label({text, style_class: 'info-osd'}));
        this._actor.add_constraint(new Clutter.BindConstraint({
            source: global.stage, coordinate: Clutter.BindCoordinate.ALL,
        }));
        Main.layoutManager.addChrome(this._actor, {visibleInFullscreen: true});
    }

    _remove() {
        if (this._actor === null)
            return;
        this._deps.Main.layoutManager.removeChrome(this._actor);
        this._actor.destroy();
        this._actor = null;
    }

    destroy() {
        this._remove();
        this._text = null;
    }
}
