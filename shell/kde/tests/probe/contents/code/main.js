// SPDX-License-Identifier: GPL-2.0-or-later
// Test only (shell/kde/tests/run loads it through org.kde.KWin /Scripting):
// reports what KWin shows to the test's service org.guidedaccess.tests.KWinProbe
// at once when a window comes, goes, is activated, (un)minimized or made
// transparent, or the desktop changes, and every 100 ms where plain scripts
// have a timer. The report is one JSON string:
// {"windows": [...], "internal": [...], "active": caption, "desktop": n}. A plain script, so
// that one file serves KWin 5.27 (clientList, clientAdded, activeClient) and
// 6 (windowList, windowAdded, activeWindow). `windows` has the apps'
// windows; `internal` those of KWin's own (the scripts' overlays and
// dialogs) that say so: only KWin 6 lists them.

var kwin6 = typeof workspace.windowList === 'function';

function windows() {
    return kwin6 ? workspace.windowList() : workspace.clientList();
}

function activeWindow() {
    return kwin6 ? workspace.activeWindow : workspace.activeClient;
}

function desktopNumber() {
    var desktop = workspace.currentDesktop;
    return typeof desktop === 'number' ? desktop : desktop.x11DesktopNumber;
}

function describe(window) {
    var frame = window.frameGeometry || window.geometry;
    return {
        caption: String(window.caption),
        pid: window.pid,
        resourceClass: String(window.resourceClass),
        resourceName: String(window.resourceName),
        minimized: !!window.minimized,
        hidden: !!window.hidden,
        active: activeWindow() === window,
        x: frame ? frame.x : 0, y: frame ? frame.y : 0,
        width: frame ? frame.width : 0, height: frame ? frame.height : 0,
        managed: !!window.managed,
        popup: !!window.popupWindow,
        specialWindow: !!window.specialWindow,
        keepAbove: !!window.keepAbove,
        opacity: window.opacity,
        fullScreen: !!window.fullScreen
    };
}

// The monitors, in global logical pixels (the layouts' cases check that
// what the enforcer shows lies whole on one): KWin 6 lists its outputs;
// 5.27 numbers its screens, and clientArea's ScreenArea (7) is one's
// whole rectangle.
function outputs() {
    var result = [];
    var rect = function (g) { return {x: g.x, y: g.y, width: g.width, height: g.height}; };
    if (kwin6) {
        for (var i = 0; i < workspace.screens.length; i++)
            result.push(rect(workspace.screens[i].geometry));
    } else {
        for (var j = 0; j < workspace.numScreens; j++)
            result.push(rect(workspace.clientArea(7, j, workspace.currentDesktop)));
    }
    return result;
}

function report() {
    var described = [];
    var internal = [];
    try {
        // A QList from KWin: indexable, not iterable with for...of.
        var all = windows();
        for (var i = 0; i < all.length; i++) {
            (all[i].internal === true ? internal : described).push(describe(all[i]));
        }
    } catch (error) {
        print('guidedaccess-test-probe: ' + error);
    }
    var active = activeWindow();
    callDBus('org.guidedaccess.tests.KWinProbe', '/org/guidedaccess/tests/KWinProbe',
        'org.guidedaccess.tests.KWinProbe', 'Report', JSON.stringify({
            windows: described,
            internal: internal,
            active: active ? String(active.caption) : null,
            desktop: desktopNumber(),
            outputs: outputs()
        }));
}

// Each window's changes a report shows (KWin 5.27's plain scripts have no
// timer to catch them otherwise).
function follow(window) {
    [window.opacityChanged, window.minimizedChanged, window.captionChanged, window.frameGeometryChanged,
        window.fullScreenChanged].forEach(function (signal) {
        if (signal)
            signal.connect(report);
    });
}

var added = kwin6 ? workspace.windowAdded : workspace.clientAdded;
added.connect(follow);
var existing = windows();
for (var i = 0; i < existing.length; i++)
    follow(existing[i]);
var signals = kwin6
    ? [workspace.windowAdded, workspace.windowRemoved, workspace.windowActivated, workspace.currentDesktopChanged]
    : [workspace.clientAdded, workspace.clientRemoved, workspace.clientActivated, workspace.clientMinimized,
       workspace.clientUnminimized, workspace.currentDesktopChanged];
// A monitor added or removed.
signals.push(kwin6 ? workspace.screensChanged : workspace.numberScreensChanged);
signals.forEach(function (signal) {
    if (signal)
        signal.connect(report);
});

report();
// And whatever changes without a signal, where there is a timer (KWin 6).
if (typeof QTimer !== 'undefined') {
    var timer = new QTimer();
    timer.interval = 100;
    timer.timeout.connect(report);
    timer.start();
}
