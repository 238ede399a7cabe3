// SPDX-License-Identifier: GPL-2.0-or-later
// Entry point for GNOME Shell 43 and 44, which load extensions as legacy
// scripts (`function init()`, `imports.*`). The logic lives in lib/ as ES
// modules shared with GNOME 45+ (extension.esm.js); they take the GNOME
// libraries from here. gjs loads them with a dynamic import(), which is
// asynchronous, so enable() may finish its work a moment later; disable()
// before that is honoured. enable() makes the Enforcer, disable() destroys
// it, which puts back everything it changed.
/* exported init */

const {Gio, GLib, St, Clutter, Meta, Shell, Atk} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;
const ModalDialog = imports.ui.modalDialog;
const PanelMenu = imports.ui.panelMenu;
const PopupMenu = imports.ui.popupMenu;

class GuidedAccessExtension {
    constructor(metadata) {
        this._metadata = metadata;
        this._enforcer = null;
        this._wanted = false;
        this._module = null;
    }

    enable() {
        this._wanted = true;
        this._module ??= import(`${this._metadata.dir.get_uri()}/lib/enforcer.js`);
        this._module.then(({Enforcer}) => {
            if (!this._wanted || this._enforcer !== null)
                return;
            const domain = imports.gettext.domain('guided-access');
            this._enforcer = new Enforcer({
                Gio, GLib, St, Clutter, Meta, Shell, Atk, Main, ModalDialog, PanelMenu, PopupMenu, global,
                settings: ExtensionUtils.getSettings(),
                uuid: this._metadata.uuid,
                _: domain.gettext,
                ngettext: domain.ngettext,
            });
        }).catch(error => logError(error, 'Guided Access: cannot load lib/enforcer.js'));
    }

    disable() {
        this._wanted = false;
        this._enforcer?.destroy();
        this._enforcer = null;
    }
}

function init(metadata) {
    ExtensionUtils.initTranslations();
    return new GuidedAccessExtension(metadata);
}
