// SPDX-License-Identifier: GPL-2.0-or-later
// Cinnamon's ways away from the locked app, closed while a session runs
// and put back exactly when it ends (each change recorded in Overrides):
//
//   the panels       hidden and locked with Cinnamon's own Panel.disable()
//                    (its menu, window list, tray and the user applet's
//                    log-out go with them); only those it disabled are
//                    enabled again
//   hot corners      their action never runs (corners made again when the
//                    person changes the layout are covered too)
//   Expo and Scale   never shown, whatever opens them
//   Alt+Tab and the  the window switcher and the workspace switcher do
//   workspace keys   nothing
//   Alt+F2           the run dialog does not open
//   Cinnamon's own   every hotkey of Cinnamon's keybinding manager but the
//   hotkeys          gesture (the menu's Super, Looking Glass, the media
//                    keys with Print, the terminal, log-out and restart)
//                    removed, and added back with the same keys and action
//
// The daemon also empties Cinnamon's own Alt+Tab keys in its settings when
// a session denies app-switching; this works whatever the settings say.

import {Overrides} from './overrides.js';

export class ShellLockdown {
    // deps: {Main, RunDialog, global}; keep: the names of the hotkeys that
    // stay (the gesture's).
    constructor({Main, RunDialog}, keep) {
        this._overrides = new Overrides();
        const nothing = () => {};
        this._lockPanels(Main.panelManager);
        this._lockHotCorners(Main.layoutManager.hotCornerManager);
        for (const view of [Main.expo, Main.overview]) {
            for (const method of ['show', 'toggle'])
                this._overrides.replace(view, method, nothing);
        }
        for (const method of ['_startAppSwitcher', '_showWorkspaceSwitcher'])
            this._overrides.replace(Main.wm, method, nothing);
        this._overrides.replace(RunDialog.RunDialog.prototype, 'open', nothing);
        this._removeHotKeys(Main.keybindingManager, keep);
    }

    destroy() {
        this._overrides.destroy();
    }

    _lockPanels(panelManager) {
        // A sparse list: a removed panel's place stays empty.
        for (const panel of panelManager.getPanels().filter(Boolean)) {
            if (panel._disabled)
                continue;
            panel.disable();
            this._overrides.defer(() => panel.enable());
        }
    }

    _lockHotCorners(manager) {
        const off = () => {
            for (const corner of Object.values(manager.corners)) {
                if (corner !== undefined && !Object.prototype.hasOwnProperty.call(corner, 'shouldRunAction'))
                    this._overrides.replace(corner, 'shouldRunAction', () => false);
            }
        };
        const update = manager.update;
        this._overrides.replace(manager, 'update', (...args) => {
            const result = update.apply(manager, args);
            off();
            return result;
        });
        off();
    }

    _removeHotKeys(keybindings, keep) {
        const removed = [...keybindings.bindings.values()].filter(entry => !keep.includes(entry.name));
        for (const {name} of removed)
            keybindings.removeHotKey(name);
        this._overrides.defer(() => {
            for (const {name, bindings, callback} of removed)
                keybindings.addHotKeyArray(name, bindings, callback);
        });
    }
}
