// SPDX-License-Identifier: GPL-2.0-or-later
// Runs a callback once the next frame is done: for what may come a frame
// later (the session's indicator and time left), so that the frame that
// puts a lock on screen carries the lock alone and is painted sooner.
//
// It asks for that frame with schedule_update(), which damages nothing:
// queue_redraw() on the stage would have the whole stage painted again
// (with fifty other windows open, the lock's frame then took 122 ms to
// paint on GNOME 43's software renderer, and 23 ms without it). A frame
// comes even when nothing changed, and after-update ends every frame,
// painted or not.

export class NextFrame {
    // deps: {GLib, global}.
    constructor({GLib, global}) {
        this._GLib = GLib;
        this._stage = global.stage;
        this._frameId = 0;
        this._idleId = 0;
    }

    // Runs `callback` after the next frame, in place of one still waiting.
    run(callback) {
        const GLib = this._GLib;
        this.cancel();
        this._frameId = this._stage.connect('after-update', () => {
            this._stage.disconnect(this._frameId);
            this._frameId = 0;
            // Outside the frame: the callback adds actors.
            this._idleId = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
                this._idleId = 0;
                callback();
                return GLib.SOURCE_REMOVE;
            });
        });
        this._stage.schedule_update();
    }

    cancel() {
        if (this._frameId)
            this._stage.disconnect(this._frameId);
        if (this._idleId)
            this._GLib.source_remove(this._idleId);
        this._frameId = this._idleId = 0;
    }

    destroy() {
        this.cancel();
    }
}
