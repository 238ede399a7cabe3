// SPDX-License-Identifier: GPL-2.0-or-later
// The start sheet's column of options, built from the shell's own widgets
// and style classes: switch rows (a row button with PopupMenu's switch),
// choices (radio buttons), steppers for numbers, and headings, in a
// scrolled column that follows the keyboard focus. Every control can be
// focused and used with the keyboard, and tells assistive technology its
// name, its role and whether it is checked.

export class OptionControls {
    constructor(deps, width, height) {
        const {St} = deps;
        this._deps = deps;
        this._box = new St.BoxLayout({vertical: true, style: 'spacing: 6px; padding-right: 12px;', x_expand: true});
        this.actor = new St.ScrollView({
            style_class: 'vfade', width, height,
            hscrollbar_policy: St.PolicyType.NEVER, vscrollbar_policy: St.PolicyType.AUTOMATIC,
        });
        // GNOME 46 dropped add_actor(); before it, set_child() skips the scrolling.
        if (typeof this.actor.add_actor === 'function')
            this.actor.add_actor(this._box);
        else
            this.actor.set_child(this._box);
        this._nameScrollBars();
    }

    // The scroll bars' handles are buttons with no name, which a screen
    // reader lists as "button" and nothing more; each says what it scrolls.
    // The bars are found among the view's children (GNOME 46 no longer
    // gives them as properties).
    _nameScrollBars() {
        const {_, St} = this._deps;
        const inside = actor => [actor, ...actor.get_children().flatMap(inside)];
        for (const bar of this.actor.get_children().filter(child => child instanceof St.ScrollBar)) {
            const name = bar.vertical ? _('Scroll the options') : _('Scroll the options sideways');
            for (const handle of inside(bar).filter(actor => actor instanceof St.Button))
                handle.accessible_name = name;
        }
    }

    heading(text) {
        const {St} = this._deps;
        this._box.add_child(new St.Label({text, style_class: 'dialog-list-title', style: 'padding-top: 12px;'}));
    }

    // A row that is a switch: the whole row toggles it. `toggled(on)`.
    switchRow(title, description, on, toggled) {
        const {row, set} = switchRow(this._deps, title, description);
        let state = Boolean(on);
        set(state);
        row.connect('clicked', () => {
            state = !state;
            set(state);
            toggled(state);
        });
        return this._add(row);
    }

    // A set of radio buttons, one per [value, label]; `chosen(value)`.
    choiceRow(title, choices, current, chosen) {
        const {St, Atk} = this._deps;
        const box = new St.BoxLayout({style: 'spacing: 6px;', accessible_role: Atk.Role.PANEL, accessible_name: title});
        const buttons = choices.map(([value, label]) => {
            const button = new St.Button({
                label, style_class: 'button', can_focus: true, x_expand: true, style: 'padding: 3px 8px;',
                accessible_role: Atk.Role.RADIO_BUTTON, accessible_name: label,
            });
            button.connect('clicked', () => {
                buttons.forEach(([other, otherValue]) => setChecked(this._deps, other, otherValue === value));
                chosen(value);
            });
            box.add_child(button);
            this._follow(button);
            return [button, value];
        });
        buttons.forEach(([button, value]) => setChecked(this._deps, button, value === current));
        this._box.add_child(box);
        return box;
    }

    // A number from min to max in steps of `step`: − and + buttons, and the
    // value itself focusable as a spin button (Up/Down, +/−). `changed(value)`.
    stepper(title, value, min, max, step, changed) {
        const {_, St, Atk, Clutter} = this._deps;
        const box = new St.BoxLayout({style: 'spacing: 6px;'});
        box.add_child(new St.Label({text: title, y_align: Clutter.ActorAlign.CENTER, style: 'min-width: 5em;'}));
        const field = new St.Button({
            style_class: 'button', can_focus: true, accessible_role: Atk.Role.SPIN_BUTTON,
            style: 'min-width: 3em;',
        });
        const show = () => {
            field.label = String(value);
            field.accessible_name = `${title}: ${value}`;
        };
        const bump = direction => {
            const next = Math.min(max, Math.max(min, value + direction * step));
            if (next === value)
                return;
            value = next;
            show();
            changed(value);
        };
        const icon = (name, label, direction) => {
            const button = new St.Button({
                style_class: 'icon-button', can_focus: true, accessible_name: label,
                child: new St.Icon({icon_name: name}),
            });
            button.connect('clicked', () => bump(direction));
            this._follow(button);
            return button;
        };
        box.add_child(icon('list-remove-symbolic', _('Fewer %s').format(title), -1));
        box.add_child(field);
        box.add_child(icon('list-add-symbolic', _('More %s').format(title), 1));
        field.connect('key-press-event', (_actor, event) => {
            const symbol = event.get_key_symbol();
            const direction = {
                [Clutter.KEY_Up]: 1, [Clutter.KEY_plus]: 1, [Clutter.KEY_KP_Add]: 1,
                [Clutter.KEY_Down]: -1, [Clutter.KEY_minus]: -1, [Clutter.KEY_KP_Subtract]: -1,
            }[symbol];
            if (direction === undefined)
                return Clutter.EVENT_PROPAGATE;
            bump(direction);
            return Clutter.EVENT_STOP;
        });
        this._follow(field);
        show();
        return box;
    }

    // Rows shown and hidden together.
    group(children) {
        const {St} = this._deps;
        const box = new St.BoxLayout({vertical: true, style: 'spacing: 6px; padding-left: 12px;'});
        children.forEach(child => box.add_child(child));
        this._box.add_child(box);
        return box;
    }

    _add(actor) {
        this._box.add_child(actor);
        this._follow(actor);
        return actor;
    }

    // Scrolls the column so that a control that gets the keyboard focus is
    // seen whole and clear of the faded edges (the theme's vfade), with a
    // little room beyond: scrolling only just far enough left it half
    // faded at the edge.
    _follow(actor) {
        actor.connect('key-focus-in', () => {
            // GNOME 46 moved the adjustment from the scroll bar to the view.
            const adjustment = this.actor.vadjustment ?? this.actor.vscroll.adjustment;
            const [, y] = actor.get_transformed_position();
            const [, top] = this._box.get_transformed_position();
            const [value, lower, upper, , , page] = adjustment.get_values();
            const [from, to] = followRange(y - top, actor.height, page, this._fade() + FOCUS_ROOM);
            if (from < value)
                adjustment.set_value(Math.max(lower, from));
            else if (to > value)
                adjustment.set_value(Math.min(upper - page, to));
        });
    }

    // How far the theme fades the column's edges (0 without a fade).
    _fade() {
        const node = this.actor.get_theme_node?.();
        return node ? node.get_length('-st-vfade-offset') : 0;
    }
}

// A row that is a switch, made of the shell's own widgets: a row button
// with a menu item's look and PopupMenu's switch, named and checked for
// assistive technology as a check box. Returns {row (an St.Button: its
// `clicked` is the person's toggle), set(on) (shows a state)}; the row
// never changes its state by itself.
export function switchRow(deps, title, description) {
    const {St, Atk, Clutter, PopupMenu} = deps;
    // A menu item's look: the shell's .button has a fixed height, which
    // clips the description line (GNOME 48: "Typing reaches the app"
    // cut at the bottom).
    const row = new St.Button({
        style_class: 'popup-menu-item guided-access-row', can_focus: true, x_expand: true,
        accessible_role: Atk.Role.CHECK_BOX, accessible_name: title,
    });
    const box = new St.BoxLayout({style: 'spacing: 12px;', x_expand: true});
    const texts = new St.BoxLayout({vertical: true, x_expand: true});
    texts.add_child(new St.Label({text: title, style_class: 'dialog-list-item-title'}));
    if (description)
        texts.add_child(new St.Label({text: description, style_class: 'dialog-list-item-description'}));
    box.add_child(texts);
    // The shell's own switch, which draws itself on every version (a
    // bare .toggle-switch has no size from GNOME 47 on).
    const toggle = new PopupMenu.Switch(false);
    toggle.y_align = Clutter.ActorAlign.CENTER;
    // The row is the check box a screen reader reads (named, checked);
    // the switch inside it only draws that, and would be a second,
    // nameless check box.
    toggle.accessible_role = Atk.Role.REDUNDANT_OBJECT;
    box.add_child(toggle);
    row.set_child(box);
    const set = value => {
        toggle.state = Boolean(value);
        setChecked(deps, row, Boolean(value), false);
    };
    return {row, set};
}

// Room kept between a focused control and the faded edge, in pixels.
const FOCUS_ROOM = 12;

// Where to scroll so that a control at `offset` of `height` in the column
// is seen whole with `margin` above and below, on a page of `page` pixels:
// [top, bottom], the scroll value being at most top and at least bottom. A
// margin that does not fit shrinks to what does, so a control taller than
// the page is still seen from its top.
export function followRange(offset, height, page, margin) {
    const room = Math.max(0, Math.min(margin, (page - height) / 2));
    return [offset - room, offset + height + room - page];
}

// Shows `checked` on a widget: its :checked style (the switch's look, a
// radio button's), and the state assistive technology reads.
function setChecked({Atk}, widget, checked, styled = true) {
    if (styled) {
        if (checked)
            widget.add_style_pseudo_class('checked');
        else
            widget.remove_style_pseudo_class('checked');
    }
    if (checked)
        widget.add_accessible_state(Atk.StateType.CHECKED);
    else
        widget.remove_accessible_state(Atk.StateType.CHECKED);
}
