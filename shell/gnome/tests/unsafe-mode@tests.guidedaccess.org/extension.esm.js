// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only (shell/gnome/tests/run), GNOME Shell 45 and later: the twin of
// extension.js, installed as extension.js there. Eval answers only in
// unsafe mode, and the cases reach the shell's modules as global._gaShell.
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {SwitcherPopup} from 'resource:///org/gnome/shell/ui/switcherPopup.js';

export default class UnsafeMode extends Extension {
    enable() {
        this._before = global.context.unsafe_mode;
        global.context.unsafe_mode = true;
        global._gaShell = {Main, SwitcherPopup};
    }

    disable() {
        global.context.unsafe_mode = this._before;
        delete global._gaShell;
    }
}
