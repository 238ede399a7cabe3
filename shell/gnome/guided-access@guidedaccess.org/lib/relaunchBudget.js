// SPDX-License-Identifier: GPL-2.0-or-later
// How often the locked app may be launched again after it went away: at
// most `limit` times in any `periodUs` (3 a minute), so an app that
// crashes at start does not flash on and off forever. Pure logic, unit
// tested in tests/unit.js.

export class RelaunchBudget {
    constructor(limit = 3, periodUs = 60 * 1000 * 1000) {
        this._limit = limit;
        this._periodUs = periodUs;
        this._launches = []; // monotonic µs of recent launches
    }

    // True (and counted) when a launch at `nowUs` is within the budget.
    take(nowUs) {
        this._launches = this._launches.filter(time => nowUs - time < this._periodUs);
        if (this._launches.length >= this._limit)
            return false;
        this._launches.push(nowUs);
        return true;
    }

    // A new session starts with the whole budget.
    reset() {
        this._launches = [];
    }
}
