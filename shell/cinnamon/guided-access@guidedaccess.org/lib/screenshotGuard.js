// SPDX-License-Identifier: GPL-2.0-or-later
// During an assessment that does not allow screen capture, Cinnamon's own
// screenshot service (org.Cinnamon Screenshot, ScreenshotArea,
// ScreenshotWindow, which Cinnamon's screenshot tool and any app call)
// refuses with AccessDenied, saying why. X11 itself lets any client read
// the screen (XGetImage), which no shell can stop: the extension does not
// claim screen-capture, and shell/cinnamon/README.md says so.

import {Overrides} from './overrides.js';

const METHODS = ['Screenshot', 'ScreenshotArea', 'ScreenshotWindow'];

export class ScreenshotGuard {
    // deps: {_, Gio, GLib, Main}
    constructor({_, Gio, GLib, Main}) {
        this._overrides = new Overrides();
        const refuse = () => {
            throw new GLib.Error(Gio.DBusError, Gio.DBusError.ACCESS_DENIED,
                _('Screenshots are not allowed during this assessment.'));
        };
        for (const method of METHODS)
            this._overrides.replace(Main.cinnamonDBusService, method, refuse);
    }

    destroy() {
        this._overrides.destroy();
    }
}
