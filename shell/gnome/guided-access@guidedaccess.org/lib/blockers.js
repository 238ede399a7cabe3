// SPDX-License-Identifier: GPL-2.0-or-later
// Reactive actors that keep pointer and touch input from reaching what is
// below them. Over the windows: one per disabled region, one over the
// whole stage for 'touch' deny, a dimmed one over each monitor that does
// not show the locked app, and the shield (time is up, or the locked app
// cannot be brought back), whose message sits on the monitor the person
// works on. On Wayland the shell picks the actor under
// the pointer; when that is one of these, no client gets the event. They
// sit just below the modal dialog group, so the end dialog stays usable.
// Below the windows: the desktop backdrop over the background, so that a
// click beside the locked app opens no background menu.

const REGION_STYLE = 'background-color: transparent;';
const OUTLINED_REGION_STYLE = 'background-color: rgba(255, 64, 64, 0.06);' +
    ' border: 2px dashed rgba(255, 64, 64, 0.5);';
const SHIELD_STYLE = 'background-color: rgba(0, 0, 0, 0.92); color: white;' +
    ' font-size: 24pt; font-weight: bold;';
const SHIELD_MESSAGE_STYLE = 'padding: 48px; text-align: center;';
const MONITOR_SHIELD_STYLE = 'background-color: rgba(0, 0, 0, 0.75);';

// The desktop's backgrounds: the window group's Meta.BackgroundGroup, at
// its bottom (the layout manager keeps it there; GNOME 43 names it only in
// a private field of its own).
export function desktopBackgrounds({global, Meta}) {
    return global.window_group.get_children().find(child => child instanceof Meta.BackgroundGroup);
}

export class Blockers {
    constructor(deps) {
        this._deps = deps;
        this._regions = []; // St.Widget per region
        this._regionKey = '';
        this._outlined = false;
        this._touch = null;
        this._shield = null;
        this._shieldText = null;
        this._shieldMessage = null; // the St.Bin that centres the text on a monitor
        this._messageMonitor = null; // {x, y, width, height}
        this._monitorShields = [];
        this._monitorKey = '';
        this._backdrop = null;
        this._backgroundAddedId = 0;
    }

    _add(actor) {
        const {Main} = this._deps;
        this._swallow(actor);
        // Input-region chrome by default through 49; 50 has no X11 input region.
        Main.layoutManager.addChrome(actor);
        Main.layoutManager.uiGroup.set_child_below_sibling(actor, Main.layoutManager.modalDialogGroup);
    }

    // Swallow what arrives here, so that no shell handler below (the
    // background menu, the panel) acts on it either.
    _swallow(actor) {
        for (const signal of ['button-press-event', 'button-release-event', 'touch-event', 'scroll-event'])
            actor.connect(signal, () => this._deps.Clutter.EVENT_STOP);
    }

    _remove(actor) {
        this._deps.Main.layoutManager.removeChrome(actor);
        actor.destroy();
    }

    _fullStage(params) {
        const {St, Clutter, global} = this._deps;
        return new St.Widget({
            reactive: true,
            constraints: new Clutter.BindConstraint({
                source: global.stage, coordinate: Clutter.BindCoordinate.SIZE,
            }),
            ...params,
        });
    }

    // regions: [{x, y, width, height}, ...] in stage coordinates.
    setRegions(regions, outlined) {
        const key = JSON.stringify(regions);
        if (key === this._regionKey && outlined === this._outlined)
            return;
        this._regionKey = key;
        this._outlined = outlined;
        this._regions.forEach(actor => this._remove(actor));
        const {St} = this._deps;
        this._regions = regions.map(({x, y, width, height}) => {
            const actor = new St.Widget({
                name: 'guided-access-disabled-region',
                reactive: true, x, y, width, height,
                style: outlined ? OUTLINED_REGION_STYLE : REGION_STYLE,
            });
            this._add(actor);
            return actor;
        });
    }

    setTouchBlocked(blocked) {
        if (blocked === (this._touch !== null))
            return;
        if (blocked) {
            this._touch = this._fullStage({name: 'guided-access-touch-blocker'});
            this._add(this._touch);
        } else {
            this._remove(this._touch);
            this._touch = null;
        }
    }

    // rects: the {x, y, width, height} of each monitor to dim and shield.
    setMonitorShields(rects) {
        const key = JSON.stringify(rects.map(({x, y, width, height}) => [x, y, width, height]));
        if (key === this._monitorKey)
            return;
        this._monitorKey = key;
        this._monitorShields.forEach(actor => this._remove(actor));
        const {St} = this._deps;
        this._monitorShields = rects.map(({x, y, width, height}) => {
            const actor = new St.Widget({
                name: 'guided-access-monitor-shield', reactive: true, x, y, width, height,
                style: MONITOR_SHIELD_STYLE,
            });
            this._add(actor);
            return actor;
        });
    }

    // text: what the shield says, or null for no shield.
    setShield(text) {
        if (text === this._shieldText)
            return;
        this._shieldText = text;
        if (this._shield !== null) {
            this._remove(this._shield);
            this._shield = this._shieldMessage = null;
        }
        if (text === null)
            return;
        const {St, Clutter} = this._deps;
        this._shield = this._fullStage({name: 'guided-access-shield', style: SHIELD_STYLE});
        const label = new St.Label({text, x_align: Clutter.ActorAlign.CENTER, y_align: Clutter.ActorAlign.CENTER});
        label.clutter_text.line_wrap = true;
        this._shieldMessage = new St.Bin({
            name: 'guided-access-shield-message', style: SHIELD_MESSAGE_STYLE, child: label,
        });
        this._shield.add_child(this._shieldMessage);
        this._shield.label_actor = label;
        this._placeMessage();
        this._add(this._shield);
    }

    // monitor: the {x, y, width, height} the shield's message is centred on
    // (one monitor: never split across two).
    setMessageMonitor(monitor) {
        this._messageMonitor = monitor ?? null;
        this._placeMessage();
    }

    _placeMessage() {
        const monitor = this._messageMonitor;
        if (this._shieldMessage === null || monitor === null)
            return;
        this._shieldMessage.set_position(monitor.x, monitor.y);
        this._shieldMessage.set_size(monitor.width, monitor.height);
    }

    // The backdrop lives in the background group, above its backgrounds:
    // mutter restacks the window group by lowering every window and then
    // the background group to the bottom, which would leave any other
    // actor there above all windows.
    setDesktopBlocked(blocked) {
        if (blocked === (this._backdrop !== null))
            return;
        const backgrounds = desktopBackgrounds(this._deps);
        if (blocked) {
            this._backdrop = this._fullStage({name: 'guided-access-desktop-backdrop'});
            this._swallow(this._backdrop);
            backgrounds.add_child(this._backdrop);
            // A background added later (a new wallpaper, a monitor) goes
            // below it. Clutter names that signal 'actor-added' before GNOME 44.
            const raise = () => backgrounds.set_child_above_sibling(this._backdrop, null);
            try {
                this._backgroundAddedId = backgrounds.connect('child-added', raise);
            } catch (_error) {
                this._backgroundAddedId = backgrounds.connect('actor-added', raise);
            }
        } else {
            backgrounds.disconnect(this._backgroundAddedId);
            this._backgroundAddedId = 0;
            this._backdrop.destroy();
            this._backdrop = null;
        }
    }

    destroy() {
        this.setRegions([], false);
        this.setTouchBlocked(false);
        this.setShield(null);
        this.setMonitorShields([]);
        this.setDesktopBlocked(false);
    }
}
