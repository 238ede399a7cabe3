// SPDX-License-Identifier: GPL-2.0-or-later
// Settings window entry point for GNOME Shell 45 and later, which load
// preferences as ES modules; installed there as prefs.js (see ../install).
// The window is built by lib/settingsWindow.js, shared with GNOME 43/44
// (prefs.js), which takes the libraries from here.
import Adw from 'gi://Adw';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Gtk from 'gi://Gtk';
import {ExtensionPreferences, gettext as _, ngettext} from
    'resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js';

import {fillSettingsWindow} from './lib/settingsWindow.js';

export default class GuidedAccessPreferences extends ExtensionPreferences {
    fillPreferencesWindow(window) {
        fillSettingsWindow(window, {Adw, Gio, GLib, Gtk, settings: this.getSettings(), _, ngettext});
    }
}
