// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window (the extension's preferences, `gnome-extensions prefs
// guided-access@guidedaccess.org`), shared by the GNOME 43/44 entry
// (prefs.js) and the 45+ one (prefs.esm.js), which pass the libraries in:
//
//   General  the passcode (PasscodeSet, SetPasscode), time-limit alerts
//            (time-limit-sound, time-limit-speech), defaults (default-auto-lock,
//            end-shortcut, show-region-outlines, panel-menus-during-session)
//   Apps     each app's custom restrictions (Restrictions1: List, SetState,
//            Reset), the managed AllowedApplications (read only)
//
// Built from Adw rows like gnome-shell-extensions' auto-move-windows: each
// control is a row or in one, so Tab, Space and Enter work it and a title
// names it for assistive technology (a switch is its row's activatable
// widget, labelled by the title; a button is named by its label, Reset by
// an accessible label of its own). What needs the daemon is greyed out,
// with a message and "Try Again", while the daemon cannot be reached.
//
// The pages' groups are in settingsGeneral.js and settingsApps.js, the
// rows and accessible names they share in settingsRows.js.

import {SettingsBus} from './settingsBus.js';
import {AllowedAppsGroup, AppsGroup} from './settingsApps.js';
import {DefaultsGroup, PasscodeGroup, TimeLimitGroup} from './settingsGeneral.js';
import {ServiceStatus, nameToolkitParts} from './settingsRows.js';

// deps: {Adw, Gtk, Gio, GLib, settings (the extension's Gio.Settings),
// _ and ngettext (gettext in the domain guided-access)}.
export function fillSettingsWindow(window, deps) {
    const view = new SettingsWindow(window, deps);
    window.connect('close-request', () => {
        view.destroy();
        return false;
    });
    return view;
}

class SettingsWindow {
    constructor(window, deps) {
        const {Adw, _} = deps;
        this._connecting = true;
        this._bus = new SettingsBus(deps, {
            changed: () => this._sync(),
            restrictionsChanged: rows => this._apps.update(rows),
        });
        const retry = () => this._connect();

        const general = new Adw.PreferencesPage({title: _('General'), icon_name: 'preferences-system-symbolic'});
        this._statuses = [new ServiceStatus(deps, retry), new ServiceStatus(deps, retry)];
        this._passcode = new PasscodeGroup(deps, this._bus);
        this._defaults = new DefaultsGroup(deps);
        for (const group of [this._statuses[0].group, this._passcode.group, new TimeLimitGroup(deps).group,
            this._defaults.group])
            general.add(group);

        const apps = new Adw.PreferencesPage({title: _('Apps'), icon_name: 'view-app-grid-symbolic'});
        this._apps = new AppsGroup(deps, this._bus);
        this._allowed = new AllowedAppsGroup(deps, this._bus);
        for (const group of [this._statuses[1].group, this._apps.group, this._allowed.group])
            apps.add(group);

        window.add(general);
        window.add(apps);
        nameToolkitParts(deps, window);
        window.set_default_size(640, 760);
        this._connect();
    }

    async _connect() {
        this._connecting = true;
        this._sync();
        await this._bus.connect();
        this._connecting = false;
        this._sync();
    }

    _sync() {
        for (const status of this._statuses)
            status.update(this._bus, this._connecting);
        this._passcode.update();
        this._apps.sync();
        this._allowed.sync();
    }

    destroy() {
        this._bus.destroy();
        this._defaults.destroy();
    }
}
