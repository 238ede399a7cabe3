// SPDX-License-Identifier: GPL-2.0-or-later
// Names the text inside an entry (St.Entry, St.PasswordEntry): it, not the
// entry, has the keyboard focus, so a screen reader reads its name
// ("password text" and nothing more without one). Clutter actors have
// accessible_name from GNOME 46 on; before, their accessible object is named.

export function nameText(text, name) {
    if ('accessible_name' in text)
        text.accessible_name = name;
    else
        text.get_accessible()?.set_name(name);
}
