// SPDX-License-Identifier: GPL-2.0-or-later
// Asks the daemon for the app ids of each window's process (GetAppIds) as
// the window appears, with a session or without one: a Start then finds
// every window's app known and locks it in the same main-loop turn,
// instead of minimizing a window that appeared since the last session a
// round trip later. The answers are the ServiceClient's cache, the one
// AppLock reads.
//
// Shared by the Cinnamon extension (../../cinnamon/install copies it).

import {allWindows} from './appLock.js';

export class AppIdsAhead {
    // deps: {global}; service: the ServiceClient.
    constructor(deps, service) {
        this._global = deps.global;
        this._service = service;
        this._createdId = deps.global.display.connect('window-created', (_display, window) => this._ask(window));
    }

    // Asks for every window there is: when the daemon (again) has an owner.
    askAll() {
        for (const window of allWindows(this._global))
            this._ask(window);
    }

    _ask(window) {
        // Without an owner nothing is asked (and nothing cached): the next
        // owner's appearance asks for all.
        if (this._service.hasOwner && this._service.daemon.connected)
            this._service.appIds(window.get_pid());
    }

    destroy() {
        this._global.display.disconnect(this._createdId);
    }
}
