// SPDX-License-Identifier: GPL-2.0-or-later
// Which windows a session leaves reachable, and what the app lock
// (ui/AppLock.qml) does with each (whether a window is the app's at all:
// identity.js, from shell/common). Pure logic on what a window says of
// itself, unit tested in shell/kde/tests/unit.js.

// Whether a window is part of the desktop rather than an app's: desktop,
// panels, notifications, on-screen displays. The app lock leaves them (they
// cannot be minimized); the surround shield covers them.
function isShellWindow(window) {
    return window.desktopWindow === true || window.dock === true || window.notification === true ||
        window.criticalNotification === true || window.onScreenDisplay === true || window.splash === true ||
        window.appletPopup === true;
}

// What to do with a window once it is known whether it belongs:
//   'show'      the app's, minimized: shown again
//   'keep'      the app's, on screen, or a shell window: left alone
//   'minimize'  another app's: minimized (and unminimized at the end)
//   'cover'     another app's that cannot be minimized: left to the shield
//   'none'      another app's, already minimized
// window: {minimized, minimizable, desktopWindow, dock, ...}.
function windowAction(belongs, window) {
    if (belongs)
        return window.minimized ? 'show' : 'keep';
    if (isShellWindow(window))
        return 'keep';
    if (window.minimized)
        return 'none';
    return window.minimizable ? 'minimize' : 'cover';
}

// The window to give the focus to, or null to leave it: the active window
// stays when it is the app's (or one of ours, which the caller checks);
// else, also when none is active, the app's topmost window that is on
// screen. None active happens when the active window was minimized: KWin
// 6.7 then activates nothing, and the keys would reach no app until a
// click. `stacking` is bottom to top; belongs(window) is true, false or undefined.
function focusTarget(active, stacking, belongs) {
    if (active !== null && active !== undefined && belongs(active) === true)
        return null;
    for (var i = stacking.length - 1; i >= 0; i--) {
        if (belongs(stacking[i]) === true && !stacking[i].minimized)
            return stacking[i];
    }
    return null;
}

// The app's windows still on screen, as rectangles (the shield's holes),
// and the rectangles of the other windows that are shown (which the shield
// covers even where they lie over the app).
function screenParts(windows, belongs) {
    var app = [];
    var others = [];
    for (var i = 0; i < windows.length; i++) {
        var window = windows[i];
        if (window.minimized || window.desktopWindow === true)
            continue;
        var g = window.frameGeometry;
        var rect = {x: g.x, y: g.y, width: g.width, height: g.height};
        if (belongs(window) === true)
            app.push(rect);
        else
            others.push(rect);
    }
    return {app: app, others: others};
}
