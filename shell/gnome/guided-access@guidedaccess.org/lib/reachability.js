// SPDX-License-Identifier: GPL-2.0-or-later
// Which windows a session leaves reachable, and what the app lock
// (appLock.js) does with each (whether a window is the app's at all:
// ../common/identity.js). Pure logic on what a window says of itself,
// unit tested in tests/unit.js.

// What to do with a window once it is known whether it belongs:
//   'show'        the app's, minimized: shown again
//   'keep'        the app's, on screen: left alone
//   'minimize'    another app's: minimized
//   'hide-actor'  another app's that cannot be minimized (an override-redirect
//                 X11 window, a dialog without a parent): its actor hidden,
//                 so it is neither drawn nor picked for input
//   'none'        another app's, already minimized
// window: {overrideRedirect, minimized, canMinimize}.
export function windowAction(belongs, window) {
    if (belongs)
        return window.minimized && !window.overrideRedirect ? 'show' : 'keep';
    if (window.overrideRedirect)
        return 'hide-actor';
    if (window.minimized)
        return 'none';
    return window.canMinimize ? 'minimize' : 'hide-actor';
}

// The window to give the focus back to, or null to leave it where it is:
// the focused window stays when it is the app's and on the active
// workspace; else the app's most recently used window (the first of the
// tab list, most recent first, that belongs), if any.
// belongs(window): true, false or undefined; onActiveWorkspace(window).
export function focusTarget(focused, tabList, belongs, onActiveWorkspace) {
    if (focused !== null && belongs(focused) === true && onActiveWorkspace(focused))
        return null;
    return tabList.find(window => belongs(window) === true) ?? null;
}
