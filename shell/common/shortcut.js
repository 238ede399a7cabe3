// SPDX-License-Identifier: GPL-2.0-or-later
// How a person reads a shortcut written as GTK writes accelerators
// ('<Super><Alt>Escape' → 'Super+Alt+Escape'): the messages that say which
// keys end a session name them as configured. Written once for every
// enforcer (see session.js for how this file reaches each shell and what it
// may use). Pure logic, unit tested once in shell/tests/common.js.

var MODIFIER_NAMES = {
    primary: 'Ctrl', control: 'Ctrl', ctrl: 'Ctrl', shift: 'Shift', alt: 'Alt', super: 'Super', meta: 'Meta',
    hyper: 'Hyper',
};

// The keys of `accelerator` joined with '+', modifiers first as written; a
// single letter is shown in capitals, as on the key.
export function shortcutLabel(accelerator) {
    var modifiers = [];
    var key = String(accelerator).replace(/<(\w+)>/g, function (_whole, name) {
        var known = MODIFIER_NAMES[name.toLowerCase()];
        modifiers.push(known === undefined ? name : known);
        return '';
    });
    return modifiers.concat([key.length === 1 ? key.toUpperCase() : key]).join('+');
}
