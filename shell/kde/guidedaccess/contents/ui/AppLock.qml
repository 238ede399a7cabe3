// SPDX-License-Identifier: GPL-2.0-or-later
// The app lock, for as long as it exists: other apps' windows are minimized
// as they appear and whenever they are activated, the locked app's own
// windows are shown and keep the focus. On destruction it unminimizes
// exactly the windows it minimized (those still there).
import QtQuick 2.15
import "../code/identity.js" as Identity
import "../code/reachability.js" as Reachability

Item {
    id: lock

    property Windows windows
    property string app
    // Whether the app's window gets the focus back when another takes it;
    // not while keys are to reach no app (KeyboardBlock.qml).
    property bool focusApp: true
    property var minimizedByUs: []

    function belongs(window) {
        return Identity.belongsToApp(windows.idsOf(window), app);
    }

    function enforce() {
        var list = windows.list();
        windows.prune(list);
        for (var i = 0; i < list.length; i++) {
            var window = list[i];
            var known = belongs(window);
            if (known === undefined)
                continue;
            var action = Reachability.windowAction(known, window);
            if (action === 'minimize') {
                window.minimized = true;
                if (minimizedByUs.indexOf(window) < 0) {
                    minimizedByUs.push(window);
                    console.log('Guided Access: minimized "' + window.caption + '" (pid ' + window.pid + ')');
                }
            } else if (action === 'show') {
                window.minimized = false;
            }
        }
        var active = windows.active();
        if (!focusApp || (active && windows.isOurs(active)))
            return;
        var stacking = list.slice().sort(function (a, b) { return (a.stackingOrder || 0) - (b.stackingOrder || 0); });
        var target = Reachability.focusTarget(active, stacking, belongs);
        if (target !== null && target !== active)
            windows.activate(target);
    }

    Connections {
        target: lock.windows
        function onAdded(window) { lock.enforce(); }
        function onActivated(window) { lock.enforce(); }
        function onRemoved(window) {
            var index = lock.minimizedByUs.indexOf(window);
            if (index >= 0)
                lock.minimizedByUs.splice(index, 1);
        }
    }

    Timer {
        interval: 250
        running: true
        repeat: true
        triggeredOnStart: true
        onTriggered: lock.enforce()
    }

    Component.onCompleted: console.log('Guided Access: app lock on for ' + app)
    Component.onDestruction: {
        for (var i = 0; i < minimizedByUs.length; i++) {
            if (minimizedByUs[i] && minimizedByUs[i].deleted !== true)
                minimizedByUs[i].minimized = false;
        }
        console.log('Guided Access: app lock off; unminimized ' + minimizedByUs.length + ' window(s)');
        minimizedByUs = [];
    }
}
