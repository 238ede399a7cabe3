// SPDX-License-Identifier: GPL-2.0-or-later
// What the settings window shows, decided without GTK or the bus (so plain
// gjs can test it): the display auto-lock choices, the restrictions of
// Restrictions1.List grouped by app, and how a typed shortcut is checked.

import {format} from './formatting.js';
import {AUTO_LOCK} from '../common/contract.js';

// default-auto-lock: seconds; -1 the desktop's own, 0 never.
const AUTO_LOCK_MINUTES = [1, 2, 5, 10, 15, 30, 60];

// [{seconds, label}] for the combo row, `current` included even when it is
// not one of the offered durations (set with gsettings, or by a later
// version), so that showing the row never changes the setting.
export function autoLockChoices(current, {_, ngettext}) {
    const plural = ngettext ?? ((one, many, n) => (n === 1 ? one : many));
    const describe = seconds => {
        if (seconds === AUTO_LOCK.desktop)
            return _('The desktop’s own');
        if (seconds === AUTO_LOCK.never)
            return _('Never');
        if (seconds % 3600 === 0) {
            const hours = seconds / 3600;
            return format(plural('After %d hour', 'After %d hours', hours), hours);
        }
        if (seconds % 60 === 0) {
            const minutes = seconds / 60;
            return format(plural('After %d minute', 'After %d minutes', minutes), minutes);
        }
        return format(plural('After %d second', 'After %d seconds', seconds), seconds);
    };
    const values = [AUTO_LOCK.desktop, AUTO_LOCK.never, ...AUTO_LOCK_MINUTES.map(minutes => minutes * 60)];
    if (!values.includes(current))
        values.push(current);
    return values.sort((a, b) => a - b).map(seconds => ({seconds, label: describe(seconds)}));
}

// Restrictions1.List rows (identifier, text, detail, state, app, registered)
// as [{app, restrictions: [{identifier, text, detail, allowed, registered}]}],
// apps and their restrictions in a stable order (by app id, then identifier).
export function restrictionsByApp(rows) {
    const apps = new Map();
    for (const [identifier, text, detail, state, app, registered] of rows) {
        if (!apps.has(app))
            apps.set(app, []);
        apps.get(app).push({identifier, text, detail, allowed: state !== 'deny', registered});
    }
    const byId = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    return [...apps.keys()].sort(byId).map(app => ({
        app,
        restrictions: apps.get(app).sort((a, b) => byId(a.identifier, b.identifier)),
    }));
}

// The shortcut as typed ('<Super><Alt>Escape'): {accelerator} in GTK's
// canonical form, or {error} for a person. `parse` is GTK 4's
// Gtk.accelerator_parse ([ok, keyval, modifiers]) and `name` its
// Gtk.accelerator_name. Pressed three times, a shortcut without a
// modifier (Shift aside) would take that key from every app, so one is
// required.
const SHIFT_MASK = 1; // Gdk.ModifierType.SHIFT_MASK

export function checkShortcut(text, {parse, name, _}) {
    const typed = text.trim();
    if (typed === '')
        return {error: _('Type a shortcut, for example <Super><Alt>Escape.')};
    const [ok, keyval, modifiers] = parse(typed);
    if (!ok || keyval === 0)
        return {error: format(_('“%s” is not a shortcut GTK understands; write it like <Super><Alt>Escape.'),
            typed)};
    if ((modifiers & ~SHIFT_MASK) === 0)
        return {error: _('Add a modifier such as <Super>, <Ctrl> or <Alt>: one key pressed three times would be taken from every app.')};
    return {accelerator: name(keyval, modifiers)};
}
