// SPDX-License-Identifier: GPL-2.0-or-later
// The rows and names the settings window's pages share: a switch row, a
// message row, the "service cannot be reached" group, and accessible names
// for what GTK and libadwaita build without one.

import {format} from './formatting.js';

export function accessibleLabel({Gtk}, widget, text) {
    // A button's own label names it from GTK 4.12 on, before this property.
    widget.reset_relation(Gtk.AccessibleRelation.LABELLED_BY);
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text]);
}

// Names for the parts libadwaita builds without one, which a screen reader
// would read by their type ("GtkImage, button", "GtkSearchEntry",
// "GtkScrollbar"): the preferences window's search entry, each page's
// scroll bars and the password rows' "show" buttons. Found by walking the
// widgets, as these are inside libadwaita's own templates.
export function nameToolkitParts(deps, window) {
    const {Adw, Gtk, _} = deps;
    const visit = (widget, page) => {
        if (widget instanceof Adw.PreferencesPage)
            page = widget.title;
        if (widget instanceof Gtk.SearchEntry) {
            accessibleLabel(deps, widget, _('Search settings'));
        } else if (widget instanceof Gtk.Scrollbar) {
            const vertical = widget.orientation === Gtk.Orientation.VERTICAL;
            const label = page
                ? format(vertical ? _('Scroll the %s page') : _('Scroll the %s page sideways'), page)
                : vertical ? _('Scroll the search results') : _('Scroll the search results sideways');
            accessibleLabel(deps, widget, label);
        } else if (widget instanceof Gtk.Button && !widget.label && isInside(widget, Adw.PasswordEntryRow)) {
            namePeekButton(deps, widget);
        }
        for (let child = widget.get_first_child(); child !== null; child = child.get_next_sibling())
            visit(child, page);
    };
    visit(window, '');
}

function isInside(widget, type) {
    for (let parent = widget.get_parent(); parent !== null; parent = parent.get_parent()) {
        if (parent instanceof type)
            return true;
    }
    return false;
}

// The eye button of a password row says what pressing it does, as its
// icon shows it (libadwaita changes the icon when the passcode is shown;
// some versions on the button, some on the image inside it).
function namePeekButton(deps, button) {
    const {Gtk, _} = deps;
    const icon = () => button.icon_name ?? (button.child instanceof Gtk.Image ? button.child.icon_name : null);
    const update = () => accessibleLabel(deps, button,
        icon() === 'view-conceal-symbolic' ? _('Hide the passcode') : _('Show the passcode'));
    button.connect('notify::icon-name', update);
    button.connect('clicked', update);
    update();
}

// An Adw.ActionRow with a switch. The row's title names the switch: as its
// activatable widget the switch is "labelled by" the title (which is also
// why a second, own label would make a screen reader say it twice).
export function switchRow({Adw, Gtk}, title, subtitle = '') {
    const toggle = new Gtk.Switch({valign: Gtk.Align.CENTER});
    const row = new Adw.ActionRow({title, subtitle, use_markup: false, activatable_widget: toggle});
    row.add_suffix(toggle);
    return {row, toggle};
}

// A row that says what happened last (hidden until something did).
export class MessageRow {
    constructor({Adw, Gtk}) {
        this._icon = new Gtk.Image({icon_name: 'dialog-information-symbolic'});
        this.row = new Adw.ActionRow({use_markup: false, visible: false});
        this.row.add_prefix(this._icon);
    }

    show(text, isError) {
        this._icon.icon_name = isError ? 'dialog-warning-symbolic' : 'emblem-ok-symbolic';
        this.row.title = text;
        this.row.visible = text !== '';
    }
}

// "The service cannot be reached" with Try Again, one per page.
export class ServiceStatus {
    constructor(deps, retry) {
        const {Adw, Gtk, _} = deps;
        this._deps = deps;
        this.group = new Adw.PreferencesGroup({visible: false});
        this._row = new Adw.ActionRow({
            title: _('The Guided Access service cannot be reached'), use_markup: false,
        });
        this._row.add_prefix(new Gtk.Image({icon_name: 'dialog-warning-symbolic'}));
        const button = new Gtk.Button({label: _('Try Again'), valign: Gtk.Align.CENTER});
        button.connect('clicked', retry);
        this._row.add_suffix(button);
        this.group.add(this._row);
    }

    update(bus, connecting) {
        const {_} = this._deps;
        this.group.visible = !connecting && !bus.reachable;
        this._row.subtitle = bus.error !== null
            ? format(_('guided-accessd did not start: %s'), bus.error)
            : _('guided-accessd is not running. Try Again starts it.');
    }
}
