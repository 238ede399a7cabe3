// SPDX-License-Identifier: GPL-2.0-or-later
// What a published session asks of each part of the lock (sessionLock.js).
// Pure logic, unit tested in tests/unit.js.

// session: see ../common/session.js. options: the extension's settings
// {panelMenus (panel-menus-during-session), regionOutlines
// (show-region-outlines)}.
export function enforcementPlan(session, {panelMenus, regionOutlines}) {
    const allowed = name => session.systemRestrictions[name] !== 'deny';
    return {
        app: session.app,
        presentation: session.presentation,
        lockdown: {
            appSwitching: allowed('app-switching'),
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
