// SPDX-License-Identifier: GPL-2.0-or-later
// Which monitor a session lives on, with two monitors or more: the logic
// both enforcers need, written once (see session.js for how this file
// reaches each shell and what it may use). Pure logic, unit tested once in
// shell/tests/common.js.

// The monitor the person works on: the one showing the app's focused
// window, else the first one showing any of its windows, else the primary.
// The end dialog, the time left and the shield's message go there.
// appMonitors: the indices of the monitors that show a window of the app;
// focused: the index of the focused window's monitor, or -1.
export function workingMonitor(appMonitors, focused, primary) {
    if (focused >= 0 && appMonitors.indexOf(focused) >= 0)
        return focused;
    return appMonitors.length > 0 ? appMonitors[0] : primary;
}

// The monitors to shield, in index order: every one of the `count` that
// shows no window of the app (when it shows none, every one but the
// working monitor, so the shield's message stays readable there).
export function shieldedMonitors(count, appMonitors, working) {
    var open = appMonitors.length > 0 ? appMonitors : [working];
    var shielded = [];
    for (var index = 0; index < count; index++) {
        if (open.indexOf(index) < 0)
            shielded.push(index);
    }
    return shielded;
}
