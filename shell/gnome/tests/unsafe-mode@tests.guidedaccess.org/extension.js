// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only (shell/gnome/tests/run), GNOME Shell 43 and 44: org.gnome.Shell.Eval
// answers only in unsafe mode (43 has no --unsafe-mode option), and the
// cases reach the shell's modules as global._gaShell on every version
// (45+ has no imports.ui: extension.esm.js there).
/* exported init */

class UnsafeMode {
    enable() {
        this._before = global.context.unsafe_mode;
        global.context.unsafe_mode = true;
        global._gaShell = {Main: imports.ui.main, SwitcherPopup: imports.ui.switcherPopup.SwitcherPopup};
    }

    disable() {
        global.context.unsafe_mode = this._before;
        delete global._gaShell;
    }
}

function init() {
    return new UnsafeMode();
}
