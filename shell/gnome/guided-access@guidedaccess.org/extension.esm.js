// SPDX-License-Identifier: GPL-2.0-or-later
// Entry point for GNOME Shell 45 and later, which load extensions as ES
// modules; installed there as extension.js (see ../install). The logic in
// lib/ is shared with GNOME 43/44 (extension.js) and takes the GNOME
// libraries from here. enable() makes the Enforcer, disable() destroys it,
// which puts back everything it changed.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import St from 'gi://St';
import Clutter from 'gi://Clutter';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import Atk from 'gi://Atk';
import {Extension, gettext as _, ngettext} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as ModalDialog from 'resource:///org/gnome/shell/ui/modalDialog.js';
import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';

import {Enforcer} from './lib/enforcer.js';

export default class GuidedAccessExtension extends Extension {
    enable() {
        this._enforcer = new Enforcer({
            Gio, GLib, St, Clutter, Meta, Shell, Atk, Main, ModalDialog, PanelMenu, PopupMenu, global,
            settings: this.getSettings(),
            uuid: this.uuid,
            _,
            ngettext,
        });
    }

    disable() {
        this._enforcer.destroy();
        this._enforcer = null;
    }
}
