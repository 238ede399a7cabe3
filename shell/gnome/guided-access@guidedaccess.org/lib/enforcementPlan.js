// SPDX-License-Identifier: GPL-2.0-or-later
// What a published session asks of each part of the lock (sessionLock.js).
// Pure logic, unit tested in tests/unit.js.

import {reachableApps} from '../common/session.js';

// session: see ../common/session.js. options: the extension's settings
// {panelMenus (panel-menus-during-session), regionOutlines
// (show-region-outlines)}.
export function enforcementPlan(session, {panelMenus, regionOutlines}) {
    const allowed = name => session.systemRestrictions[name] !== 'deny';
    // App and AlsoAllowed: the apps whose windows the person may reach.
    const apps = reachableApps(session);
    return {
        app: session.app,
        apps,
        presentation: session.presentation,
        lockdown: {
            appSwitching: allowed('app-switching'),
            // Alt+Tab and the window switchers, among the reachable apps'
            // windows only: when there is more than one app to switch to.
            switchApps: allowed('app-switching') && apps.length > 1,
            notifications: allowed('notifications'),
            volumeButtons: allowed('volume-buttons'),
        },
        // The top bar's menus kept besides the session's own indicator.
        panelKeep: [
            ...panelMenus && allowed('notifications') ? ['dateMenu'] : [],
            ...panelMenus && allowed('power-menu') ? ['quickSettings', 'aggregateMenu'] : [],
        ],
        regions: session.regions,
        regionOutlines,
        touchBlocked: !allowed('touch'),
        keyboardsBlocked: !allowed('keyboards'),
    };
}
