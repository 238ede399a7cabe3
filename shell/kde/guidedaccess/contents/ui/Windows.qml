// SPDX-License-Identifier: GPL-2.0-or-later
// KWin's windows and screen as the enforcer sees them, on the running
// KWin's API (KWin5.qml or KWin6.qml), and each window's app ids from the
// daemon's GetAppIds, cached by pid. KWin's own windows (ours, its
// on-screen displays) are left out: their pid is KWin's, or none.
import QtQuick 2.15
import "../code/geometry.js" as Geometry

QtObject {
    id: windows

    property Bus bus
    // KWinApi's item: the running KWin's workspace.
    property QtObject kwin
    readonly property var workspace: kwin.kwinWorkspace
    // The whole desktop, in global logical pixels.
    readonly property var desktopRect: {
        var g = workspace.virtualScreenGeometry;
        return {x: g.x, y: g.y, width: g.width, height: g.height};
    }
    property int kwinPid: 0
    property var ids: ({}) // pid → ids, null when refused (fail closed)
    property var asked: ({}) // pid → ms of the pending or last failed question
    // How long a refused question waits before it is asked again.
    readonly property int refusedWaitMs: 3000

    signal added(var window)
    signal activated(var window)
    signal removed(var window)
    // A window minimized or shown again, by whoever did it (the app, the
    // person, KWin, us).
    signal minimizedChanged(var window)
    // The daemon answered which apps a window's process belongs to, or a
    // refused question may be asked again.
    signal idsAnswered()

    function list() {
        var all = kwin.windowList();
        var result = [];
        for (var i = 0; i < all.length; i++) {
            if (all[i] && !isOurs(all[i]) && all[i].deleted !== true)
                result.push(all[i]);
        }
        return result;
    }

    // The monitor the person works on in a session for `app`: the one that
    // holds the app's active window, else its topmost shown one (so what
    // we show them follows the app to another monitor); the first monitor
    // while it has none; the whole desktop if KWin lists no monitor.
    function appArea(belongs) {
        var mine = list().filter(function (window) {
            return !window.minimized && belongs(window) === true;
        }).sort(function (a, b) { return (b.stackingOrder || 0) - (a.stackingOrder || 0); });
        var current = active();
        var index = mine.indexOf(current);
        if (index > 0)
            mine.unshift(mine.splice(index, 1)[0]);
        return Geometry.workArea(kwin.outputs(), mine.map(function (window) {
            var g = window.frameGeometry;
            return {x: g.x, y: g.y, width: g.width, height: g.height};
        }), desktopRect);
    }

    function active() {
        return kwin.activeWindow();
    }

    function activate(window) {
        kwin.activate(window);
    }

    // KWin's own windows: the dialog, shields, OSDs. (KWin 6 lists them,
    // with no process: pid -1.)
    function isOurs(window) {
        return window.internal === true || !(window.pid > 0) || (kwinPid > 0 && window.pid === kwinPid);
    }

    // The app ids of `window`'s process: undefined while not known (asked
    // now), null when the daemon refused (asked again after a while).
    function idsOf(window) {
        var pid = window.pid;
        if (!(pid > 0))
            return null;
        if (ids[pid] !== undefined && ids[pid] !== null)
            return ids[pid];
        var now = Date.now();
        if (asked[pid] !== undefined && now - asked[pid] < (ids[pid] === null ? refusedWaitMs : 10000))
            return ids[pid];
        asked[pid] = now;
        // DBusCall sends the pid as int32 (it cannot send the contract's u).
        bus.session('GetAppIds', [pid], function (values) {
            ids[pid] = values[0] !== undefined ? Array.prototype.slice.call(values[0]) : null;
            delete asked[pid];
            windows.idsAnswered();
        }, function () {
            if (ids[pid] !== null)
                console.log('Guided Access: GetAppIds(' + pid + ') failed; its windows count as not the app\'s');
            ids[pid] = null;
            asked[pid] = Date.now();
            askAgain.restart();
        });
        return ids[pid];
    }

    // Once a refusal's wait is over, the windows are looked at again, which
    // asks again for those still not known.
    property Timer askAgain: Timer {
        interval: windows.refusedWaitMs + 100
        onTriggered: windows.idsAnswered()
    }

    // Each window's minimizedChanged, followed from its appearance to its
    // removal: [window, handler].
    property var minimizedHandlers: []

    function followMinimized(window) {
        var handler = function () { windows.minimizedChanged(window); };
        window.minimizedChanged.connect(handler);
        minimizedHandlers.push([window, handler]);
    }

    function unfollowMinimized(window) {
        for (var i = 0; i < minimizedHandlers.length; i++) {
            if (minimizedHandlers[i][0] === window) {
                window.minimizedChanged.disconnect(minimizedHandlers[i][1]);
                minimizedHandlers.splice(i, 1);
                return;
            }
        }
    }

    // Forgets the processes that have no window any more (a pid is reused),
    // as each window goes.
    function prune(current) {
        var alive = {};
        for (var i = 0; i < current.length; i++)
            alive[current[i].pid] = true;
        for (var pid in ids) {
            if (!alive[pid]) {
                delete ids[pid];
                delete asked[pid];
            }
        }
    }

    // Activates `window` a moment from now unless a window is active then
    // or it is gone: after KWin has settled the focus (a popup of ours that
    // closes at the same time leaves none active).
    function refocus(window) {
        refocusTimer.window = window;
        refocusTimer.restart();
    }
    property Timer refocusTimer: Timer {
        property var window: null
        interval: 100
        onTriggered: {
            if (window && window.deleted !== true && !windows.active())
                windows.activate(window);
            window = null;
        }
    }

    // Asks for a window's app ids as it appears, session or not: a Start
    // then finds them known and locks every window at once.
    function askAhead(window) {
        if (!isOurs(window))
            idsOf(window);
    }

    property var unfollow: null
    Component.onCompleted: {
        list().forEach(function (window) {
            windows.followMinimized(window);
            windows.askAhead(window);
        });
        unfollow = kwin.follow(function (window) {
            windows.followMinimized(window);
            windows.askAhead(window);
            windows.added(window);
        }, function (window) { windows.activated(window); }, function (window) {
            windows.unfollowMinimized(window);
            windows.removed(window);
            windows.prune(windows.list());
        });
        bus.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
            ['org.kde.KWin'], function (values) { windows.kwinPid = values[0]; });
    }
    Component.onDestruction: {
        unfollow();
        while (minimizedHandlers.length > 0)
            unfollowMinimized(minimizedHandlers[0][0]);
    }
}
