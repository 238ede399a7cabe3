// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only (shell/gnome/tests/run): GNOME Shell 43 has no --unsafe-mode
// option, and org.gnome.Shell.Eval answers only in unsafe mode.
/* exported init */

class UnsafeMode {
    enable() {
        this._before = global.context.unsafe_mode;
        global.context.unsafe_mode = true;
    }

    disable() {
        global.context.unsafe_mode = this._before;
    }
}

function init() {
    return new UnsafeMode();
}
