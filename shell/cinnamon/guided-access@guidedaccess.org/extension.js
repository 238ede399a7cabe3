// SPDX-License-Identifier: GPL-2.0-or-later
// Entry point for Cinnamon, which loads an extension as a script with
// init(), enable() and disable() (`imports.*`). The logic lives in lib/ as
// ES modules, most of them the GNOME Shell extension's own (../install says
// which); they take Cinnamon's libraries from here. cjs loads them with a
// dynamic import(), which is asynchronous, so enable() may finish its work
// a moment later; disable() before that is honoured. enable() makes the
// Enforcer, disable() destroys it, which puts back everything it changed.
// Cinnamon reads this file with a parser of its own that takes neither
// `??=` nor `?.`: lib/ is loaded by cjs itself and uses them.
/* exported init, enable, disable */

const {Gio, GLib, St, Clutter, Meta, Atk, Cinnamon} = imports.gi;
const Main = imports.ui.main;
const ModalDialog = imports.ui.modalDialog;
const PopupMenu = imports.ui.popupMenu;
const RunDialog = imports.ui.runDialog;

let extension = null;

class GuidedAccessExtension {
    constructor(meta) {
        this._dir = meta.path;
        this._uuid = meta.uuid;
        this._enforcer = null;
        this._wanted = false;
        this._module = null;
    }

    enable() {
        this._wanted = true;
        if (this._module === null)
            this._module = import(`file://${this._dir}/lib/cinnamonEnforcer.js`);
        this._module.then(({Enforcer}) => {
            if (!this._wanted || this._enforcer !== null)
                return;
            const domain = imports.gettext.domain('guided-access');
            this._enforcer = new Enforcer({
                Gio, GLib, St, Clutter, Meta, Atk, Main, ModalDialog, PopupMenu, RunDialog, global,
                // Cinnamon's WindowTracker and AppSystem are GNOME Shell's
                // under another name: the shared app keeper takes them so.
                Shell: Cinnamon,
                uuid: this._uuid,
                _: domain.gettext,
            });
        }).catch(error => global.logError(`Guided Access: cannot load lib/cinnamonEnforcer.js: ${error}`));
    }

    disable() {
        this._wanted = false;
        if (this._enforcer !== null)
            this._enforcer.destroy();
        this._enforcer = null;
    }
}

function init(meta) {
    extension = new GuidedAccessExtension(meta);
}

function enable() {
    extension.enable();
}

function disable() {
    extension.disable();
}
