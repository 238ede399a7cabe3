// SPDX-License-Identifier: GPL-2.0-or-later
// Runs a callback once the next frame is painted: for what may come a frame
// later (the session's indicator and time left), so that the frame that
// puts a lock on screen carries the lock alone and is painted sooner.

export class NextFrame {
    // deps: {GLib, global}.
    constructor({GLib, global}) {
        this._GLib = GLib;
        this._stage = global.stage;
        this._paintId = 0;
        this._idleId = 0;
    }

    // Runs `callback` after the next frame is painted, in place of one
    // still waiting.
    run(callback) {
        const GLib = this._GLib;
        this.cancel();
        this._paintId = this._stage.connect('after-paint', () => {
            this._stage.disconnect(this._paintId);
            this._paintId = 0;
            // Outside the paint: the callback adds actors.
            this._idleId = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
                this._idleId = 0;
                callback();
                return GLib.SOURCE_REMOVE;
            });
        });
        this._stage.queue_redraw();
    }

    cancel() {
        if (this._paintId)
            this._stage.disconnect(this._paintId);
        if (this._idleId)
            this._GLib.source_remove(this._idleId);
        this._paintId = this._idleId = 0;
    }

    destroy() {
        this.cancel();
    }
}
