// SPDX-License-Identifier: GPL-2.0-or-later
// The end and start shortcut counts only when pressed three times within a
// second (like iOS's triple-click), so a single press by chance does
// nothing. Pure logic, unit tested in tests/unit.js.

export const PRESSES = 3;
export const PRESS_WINDOW_US = 1000000;

export class TriplePress {
    constructor() {
        this._presses = []; // monotonic µs of the recent presses
    }

    // A press at `nowUs`; true when it completes a triple press (which then
    // starts the count again).
    press(nowUs) {
        this._presses = this._presses.filter(time => nowUs - time < PRESS_WINDOW_US);
        this._presses.push(nowUs);
        if (this._presses.length < PRESSES)
            return false;
        this._presses = [];
        return true;
    }
}
