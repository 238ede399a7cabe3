// SPDX-License-Identifier: GPL-2.0-or-later
// Settings window entry point for GNOME Shell 43 and 44, which load
// preferences as a legacy script (`function init()`, `imports.*`); GNOME 45+
// load prefs.esm.js instead (installed there as prefs.js, see ../install).
// The window is built by lib/settingsWindow.js, an ES module shared with
// 45+, loaded with gjs's dynamic import(): asynchronous, while the shell's
// preferences dialog wants a page at once, so a placeholder page stands in
// until the module has loaded.
/* exported init, fillPreferencesWindow */

const {Adw, Gio, GLib, Gtk} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;

function init() {
    ExtensionUtils.initTranslations();
}

function fillPreferencesWindow(window) {
    const domain = imports.gettext.domain('guided-access');
    const _ = domain.gettext;
    const placeholder = new Adw.PreferencesPage({title: _('Guided Access')});
    const group = new Adw.PreferencesGroup();
    const status = new Adw.ActionRow({title: _('Loading…'), use_markup: false});
    group.add(status);
    placeholder.add(group);
    window.add(placeholder);

    const uri = `${ExtensionUtils.getCurrentExtension().dir.get_uri()}/lib/settingsWindow.js`;
    import(uri).then(({fillSettingsWindow}) => {
        const deps = {Adw, Gio, GLib, Gtk, settings: ExtensionUtils.getSettings(), _, ngettext: domain.ngettext};
        window.remove(placeholder);
        fillSettingsWindow(window, deps);
    }).catch(error => {
        logError(error, 'Guided Access: cannot load lib/settingsWindow.js');
        status.title = _('The settings could not be loaded: %s').format(error.message);
    });
}
