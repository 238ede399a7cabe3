// Reactive actors over the windows that keep pointer and touch input from
// reaching apps: one per disabled region, one over the whole stage for
// 'touch' deny, and the expiry shield. On Wayland the shell picks the actor
// under the pointer; when that is one of these, no client gets the event.
// They sit just below the modal dialog group, so the end dialog stays usable.

const REGION_STYLE = 'background-color: transparent;';
const OUTLINED_REGION_STYLE = 'background-color: rgba(255, 64, 64, 0.06);' +
    ' border: 2px dashed rgba(255, 64, 64, 0.5);';
const SHIELD_STYLE = 'background-color: rgba(0, 0, 0, 0.92); color: white;' +
    ' font-size: 24pt; font-weight: bold;';

export class Blockers {
    constructor(deps) {
        this._deps = deps;
        this._regions = []; // St.Widget per region
        this._regionKey = '';
        this._outlined = false;
        this._touch = null;
        this._shield = null;
    }

    _add(actor) {
        const {Main} = this._deps;
        // Swallow what arrives here, so that no shell handler below (the
        // background menu, the panel) acts on it either.
        for (const signal of ['button-press-event', 'button-release-event', 'touch-event', 'scroll-event'])
            actor.connect(signal, () => this._deps.Clutter.EVENT_STOP);
        Main.layoutManager.addChrome(actor, {affectsInputRegion: true});
        Main.layoutManager.uiGroup.set_child_below_sibling(actor, Main.layoutManager.modalDialogGroup);
    }

    _remove(actor) {
        this._deps.Main.layoutManager.removeChrome(actor);
        actor.destroy();
    }

    _fullStage(params) {
        const {St, Clutter} = this._deps;
        return new St.Widget({
            reactive: true,
            constraints: new Clutter.BindConstraint({
                source: global.stage, coordinate: Clutter.BindCoordinate.SIZE,
            }),
            ...params,
        });
    }

    // regions: [[x, y, width, height], ...] in stage coordinates.
    setRegions(regions, outlined) {
        const key = JSON.stringify(regions);
        if (key === this._regionKey && outlined === this._outlined)
            return;
        this._regionKey = key;
        this._outlined = outlined;
        this._regions.forEach(actor => this._remove(actor));
        const {St} = this._deps;
        this._regions = regions.map(([x, y, width, height]) => {
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

    setShield(shown, text) {
        if (shown === (this._shield !== null))
            return;
        if (shown) {
            const {St, Clutter} = this._deps;
            this._shield = this._fullStage({
                name: 'guided-access-expiry-shield',
                style: SHIELD_STYLE,
                layout_manager: new Clutter.BinLayout(),
            });
            this._shield.add_child(new St.Label({
                text, x_align: Clutter.ActorAlign.CENTER, y_align: Clutter.ActorAlign.CENTER,
            }));
            this._add(this._shield);
        } else {
            this._remove(this._shield);
            this._shield = null;
        }
    }

    release() {
        this.setRegions([], false);
        this.setTouchBlocked(false);
        this.setShield(false);
    }
}
