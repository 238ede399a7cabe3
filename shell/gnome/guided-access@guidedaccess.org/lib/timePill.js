// SPDX-License-Identifier: GPL-2.0-or-later
// The time left, at the top right of the monitor the person works on when
// that is not the one with the top bar (whose indicator shows it there):
// with two monitors the locked app may be on the one without a top bar,
// and the other one is shielded. Takes no input.

const MARGIN = 12;

export class TimePill {
    // deps: {St, Clutter, Main}
    constructor(deps) {
        const {St, Clutter, Main} = deps;
        // Placed by show() in its monitor's top right corner: a frame's
        // alignment would not do, Cinnamon's St.Bin centres its child.
        this._box = new St.BoxLayout({
            name: 'guided-access-time-pill', style_class: 'osd-window guided-access-time-pill',
            reactive: false, visible: false,
        });
        this._box.add_child(new St.Icon({icon_name: 'changes-prevent-symbolic', style_class: 'system-status-icon'}));
        this._label = new St.Label({y_align: Clutter.ActorAlign.CENTER});
        this._box.add_child(this._label);
        Main.uiGroup.add_child(this._box);
    }

    // text: the time left, '' for none; spoken: what a screen reader says
    // of it; monitor: where to show it, or null.
    show(text, spoken, monitor) {
        this._label.text = text;
        this._box.accessible_name = spoken;
        this._box.visible = text !== '' && monitor !== null;
        if (!this._box.visible)
            return;
        const [, width] = this._box.get_preferred_width(-1);
        this._box.set_position(monitor.x + monitor.width - Math.ceil(width) - MARGIN, monitor.y + MARGIN);
    }

    destroy() {
        this._box.destroy();
    }
}
