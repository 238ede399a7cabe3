// SPDX-License-Identifier: GPL-2.0-or-later
// The time left, at the top right of the monitor the person works on when
// that is not the one with the top bar (whose indicator shows it there):
// with two monitors the locked app may be on the one without a top bar,
// and the other one is shielded. Takes no input.

const MARGIN = 12;

export class TimePill {
    // deps: {St, Clutter, Main}
    constructor(deps) {
        this._deps = deps;
        const {St, Clutter, Main} = deps;
        // A frame over the whole monitor that places the pill in its top right corner.
        this._frame = new St.Bin({
            name: 'guided-access-time-pill-frame', reactive: false, visible: false, style: `padding: ${MARGIN}px;`,
        });
        const box = new St.BoxLayout({
            name: 'guided-access-time-pill', style_class: 'osd-window guided-access-time-pill',
            // Expanded, or St.Bin centres it whatever its alignment (GNOME 48).
            x_expand: true, y_expand: true, x_align: Clutter.ActorAlign.END, y_align: Clutter.ActorAlign.START,
        });
        box.add_child(new St.Icon({icon_name: 'changes-prevent-symbolic', style_class: 'system-status-icon'}));
        this._label = new St.Label({y_align: Clutter.ActorAlign.CENTER});
        box.add_child(this._label);
        this._box = box;
        this._frame.set_child(box);
        Main.uiGroup.add_child(this._frame);
    }

    // text: the time left, '' for none; spoken: what a screen reader says
    // of it; monitor: where to show it, or null.
    show(text, spoken, monitor) {
        this._label.text = text;
        this._box.accessible_name = spoken;
        this._frame.visible = text !== '' && monitor !== null;
        if (monitor !== null) {
            this._frame.set_position(monitor.x, monitor.y);
            this._frame.set_size(monitor.width, monitor.height);
        }
    }

    destroy() {
        this._frame.destroy();
    }
}
