// SPDX-License-Identifier: GPL-2.0-or-later
// printf-style %s and %d for translated strings, without the shell's
// String.prototype.format (installed by gnome-shell, not in the preferences
// process that runs the settings window).

export function format(template, ...values) {
    let next = 0;
    return template.replace(/%[sd%]/g, match => (match === '%%' ? '%' : String(values[next++])));
}
