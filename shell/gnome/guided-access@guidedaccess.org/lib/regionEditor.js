// SPDX-License-Identifier: GPL-2.0-or-later
// The start sheet's preview, where a person marks the parts of the app to
// switch off: a drag on it (pointer or touch) draws a region; a region is
// moved by dragging it, resized from its corners and removed with its close
// button. With the keyboard, a focused region moves with the arrow keys,
// grows and shrinks with Shift+arrows and goes with Delete. The regions are
// kept in view coordinates; regions() gives them in stage pixels.

import {bigEnough, carried, dragRect, moved, resized, toStage, toView} from './regionGeometry.js';

// The regions' outline: the one colour of the sheet that is not the theme's.
const REGION_STYLE = 'background-color: rgba(255, 64, 64, 0.18); border: 2px solid rgba(255, 64, 64, 0.9);';
const FOCUSED_STYLE = 'background-color: rgba(255, 64, 64, 0.3); border: 4px solid rgb(255, 64, 64);';
const HANDLE_STYLE = 'background-color: rgb(255, 64, 64); border-radius: 7px;';
const HANDLE = 14;
const KEY_STEP = 8;
const CORNERS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'];

export class RegionEditor {
    // view: see regionGeometry.fitView; changed() is called after every
    // edit; focusAway() when the focused region is removed (where focus
    // goes next).
    constructor(deps, view, {changed, focusAway}) {
        const {St} = deps;
        this._deps = deps;
        this._view = view;
        this._changed = changed;
        this._focusAway = focusAway;
        this._regions = []; // {actor, rect, close, handles}
        this._backdrop = []; // actors below the regions
        this._drag = null;
        this.actor = new St.Widget({
            name: 'guided-access-preview', reactive: true, clip_to_allocation: true,
            width: view.width, height: view.height,
        });
        this.actor.connect('button-press-event', (_a, event) => this._begin(event, {mode: 'draw'}));
        this.actor.connect('touch-event', (_a, event) => this._touch(event, {mode: 'draw'}));
        this.actor.connect('motion-event', (_a, event) => this._update(event));
        this.actor.connect('button-release-event', (_a, event) => this._end(event));
        this.actor.connect('destroy', () => this._endGrab());
    }

    get view() {
        return this._view;
    }

    // Actors drawn below the regions (the preview of the app).
    setBackdrop(actors) {
        for (const actor of this._backdrop)
            actor.destroy();
        this._backdrop = actors;
        actors.forEach((actor, index) => this.actor.insert_child_at_index(actor, index));
    }

    // Regions in stage pixels, in the order drawn.
    regions() {
        return this._regions.map(region => toStage(this._view, region.rect));
    }

    setRegions(stageRects) {
        for (const region of [...this._regions])
            this._remove(region, false);
        for (const rect of stageRects)
            this._add(toView(this._view, rect));
    }

    // The window moved in the preview from `from` to `to` (view
    // rectangles: another presentation chosen); each region goes with it,
    // so it stays on the part of the app it was drawn on. One left with
    // nothing inside the preview goes.
    carry(from, to) {
        for (const region of [...this._regions]) {
            const rect = carried(this._view, region.rect, from, to);
            if (rect === null) {
                this._remove(region, false);
            } else {
                region.rect = rect;
                this._place(region);
            }
        }
    }

    // A region in the middle of the preview, focused, for the keyboard.
    addCentred() {
        const {width, height} = this._view;
        const region = this._add({x: width * 3 / 8, y: height * 3 / 8, width: width / 4, height: height / 4});
        region.actor.grab_key_focus();
        this._changed();
    }

    _add(rect) {
        const {St, Atk, Clutter} = this._deps;
        const actor = new St.Widget({
            reactive: true, can_focus: true, track_hover: true, style: REGION_STYLE,
            accessible_role: Atk.Role.PANEL,
        });
        const region = {actor, rect, handles: {}};
        const _ = this._deps._;
        // Centred by a constraint, as it is laid out: measuring it here, while
        // the sheet is not on the stage yet, has no style to measure with.
        region.close = new St.Button({
            style_class: 'icon-button', can_focus: true, y: HANDLE,
            child: new St.Icon({icon_name: 'window-close-symbolic'}),
            accessible_name: _('Remove this region'),
            constraints: new Clutter.AlignConstraint({source: actor, align_axis: Clutter.AlignAxis.X_AXIS, factor: 0.5}),
        });
        region.close.connect('clicked', () => this._remove(region, true));
        actor.add_child(region.close);
        for (const corner of CORNERS) {
            const handle = new St.Widget({reactive: true, style: HANDLE_STYLE, width: HANDLE, height: HANDLE});
            handle.connect('button-press-event', (_a, event) => this._begin(event, {mode: 'resize', region, corner}));
            handle.connect('touch-event', (_a, event) => this._touch(event, {mode: 'resize', region, corner}));
            actor.add_child(handle);
            region.handles[corner] = handle;
        }
        actor.connect('button-press-event', (_a, event) => this._begin(event, {mode: 'move', region}));
        actor.connect('touch-event', (_a, event) => this._touch(event, {mode: 'move', region}));
        actor.connect('key-press-event', (_a, event) => this._key(region, event));
        actor.connect('key-focus-in', () => (actor.style = FOCUSED_STYLE));
        actor.connect('key-focus-out', () => (actor.style = REGION_STYLE));
        this.actor.add_child(actor);
        this._regions.push(region);
        this._place(region);
        return region;
    }

    _remove(region, byPerson) {
        const hadFocus = region.actor.has_key_focus() || region.close.has_key_focus();
        this._regions = this._regions.filter(r => r !== region);
        region.actor.destroy();
        this._regions.forEach(r => this._describe(r));
        if (byPerson) {
            this._changed();
            if (hadFocus)
                this._focusAway();
        }
    }

    // Puts the actor and its handles where `rect` says (the close button
    // keeps itself centred).
    _place(region) {
        const {x, y, width, height} = region.rect;
        region.actor.set_position(Math.round(x), Math.round(y));
        region.actor.set_size(Math.round(width), Math.round(height));
        const right = Math.round(width) - HANDLE;
        const bottom = Math.round(height) - HANDLE;
        region.handles['top-left'].set_position(0, 0);
        region.handles['top-right'].set_position(right, 0);
        region.handles['bottom-left'].set_position(0, bottom);
        region.handles['bottom-right'].set_position(right, bottom);
        this._describe(region);
    }

    // What a screen reader says: which region, where and how large, in the
    // pixels the lock will use.
    _describe(region) {
        const _ = this._deps._;
        const stage = toStage(this._view, region.rect);
        const number = this._regions.indexOf(region) + 1;
        region.actor.accessible_name = _('Switched-off region %d: %d × %d at %d, %d')
            .format(number, stage.width, stage.height, stage.x, stage.y);
    }

    _point(event) {
        const [stageX, stageY] = event.get_coords();
        const [, x, y] = this.actor.transform_stage_point(stageX, stageY);
        return [x, y];
    }

    _touch(event, drag) {
        const {Clutter} = this._deps;
        switch (event.type()) {
        case Clutter.EventType.TOUCH_BEGIN:
            return this._begin(event, {...drag, touch: true});
        case Clutter.EventType.TOUCH_UPDATE:
            return this._update(event);
        case Clutter.EventType.TOUCH_END:
        case Clutter.EventType.TOUCH_CANCEL:
            return this._end(event);
        default:
            return Clutter.EVENT_PROPAGATE;
        }
    }

    _begin(event, drag) {
        const {Clutter} = this._deps;
        if (this._drag !== null)
            return Clutter.EVENT_STOP;
        if (!drag.touch && event.get_button() !== Clutter.BUTTON_PRIMARY)
            return Clutter.EVENT_PROPAGATE;
        const [x, y] = this._point(event);
        this._drag = {touch: false, ...drag, startX: x, startY: y};
        if (drag.mode === 'draw')
            this._drag.region = this._add({x, y, width: 0, height: 0});
        this._drag.startRect = {...this._drag.region.rect};
        // Motion and release reach the preview even when the pointer leaves it.
        this._grab = this._deps.global.stage.grab(this.actor);
        return Clutter.EVENT_STOP;
    }

    _update(event) {
        const {Clutter} = this._deps;
        const drag = this._drag;
        if (drag === null || !this._sameInput(event))
            return Clutter.EVENT_PROPAGATE;
        const [x, y] = this._point(event);
        const dx = x - drag.startX, dy = y - drag.startY;
        const view = this._view;
        if (drag.mode === 'draw')
            drag.region.rect = dragRect(view, drag.startX, drag.startY, x, y);
        else if (drag.mode === 'move')
            drag.region.rect = moved(view, drag.startRect, dx, dy);
        else
            drag.region.rect = resized(view, drag.startRect, drag.corner, dx, dy);
        this._place(drag.region);
        return Clutter.EVENT_STOP;
    }

    _end(event) {
        const {Clutter} = this._deps;
        const drag = this._drag;
        if (drag === null || !this._sameInput(event))
            return Clutter.EVENT_PROPAGATE;
        this._update(event);
        this._drag = null;
        this._endGrab();
        // A tap or click without a drag draws nothing.
        if (drag.mode === 'draw' && !bigEnough(drag.region.rect))
            this._remove(drag.region, false);
        else
            drag.region.actor.grab_key_focus();
        this._changed();
        return Clutter.EVENT_STOP;
    }

    // Whether `event` continues the drag: pointer events a pointer drag,
    // touch events a touch drag (one drag at a time; sequences are not
    // compared, as each event gives a new wrapper of its sequence).
    _sameInput(event) {
        const touch = (event.get_event_sequence?.() ?? null) !== null;
        return touch === this._drag.touch;
    }

    _endGrab() {
        this._grab?.dismiss();
        this._grab = null;
    }

    _key(region, event) {
        const {Clutter} = this._deps;
        const symbol = event.get_key_symbol();
        if (symbol === Clutter.KEY_Delete || symbol === Clutter.KEY_BackSpace) {
            this._remove(region, true);
            return Clutter.EVENT_STOP;
        }
        const steps = {
            [Clutter.KEY_Left]: [-KEY_STEP, 0], [Clutter.KEY_Right]: [KEY_STEP, 0],
            [Clutter.KEY_Up]: [0, -KEY_STEP], [Clutter.KEY_Down]: [0, KEY_STEP],
        };
        const step = steps[symbol];
        if (step === undefined)
            return Clutter.EVENT_PROPAGATE;
        const shift = (event.get_state() & Clutter.ModifierType.SHIFT_MASK) !== 0;
        region.rect = shift
            ? resized(this._view, region.rect, 'bottom-right', ...step)
            : moved(this._view, region.rect, ...step);
        this._place(region);
        this._changed();
        return Clutter.EVENT_STOP;
    }

    destroy() {
        this._endGrab();
        this.actor.destroy();
        this._regions = [];
    }
}
