// SPDX-License-Identifier: GPL-2.0-or-later
// The session's Presentation: the locked app's windows full screen
// ('fullscreen') or maximized ('maximized') on the monitor each is on, as
// they appear, for as long as this item exists. KWin fills the window's
// own output (its work area when maximized), so the app fills the
// monitor the person works on. On destruction each window it changed is
// put back: out of full screen or maximized, at its old place and size.
import QtQuick 2.15
import "../code/contract.js" as Contract
import "../code/identity.js" as Identity

Item {
    id: presenter

    property Windows windows
    property string app
    // 'fullscreen' or 'maximized' (Enforcer.qml makes none for 'as-is').
    property string presentation
    property var changed: [] // {window, geometry}: what to put back

    function enforce() {
        var list = windows.list();
        for (var i = 0; i < list.length; i++) {
            var window = list[i];
            // Dialogs and menus of the app keep their size: only its
            // normal windows fill the monitor.
            if (window.normalWindow !== true || window.minimized
                || Identity.belongsToApp(windows.idsOf(window), app) !== true)
                continue;
            var known = changed.some(function (entry) { return entry.window === window; });
            if (!known) {
                var g = window.frameGeometry;
                changed.push({window: window, geometry: Qt.rect(g.x, g.y, g.width, g.height)});
            }
            // Again each time: the app may leave full screen itself.
            if (presentation === Contract.PRESENTATION.fullscreen) {
                if (!window.fullScreen)
                    window.fullScreen = true;
            } else if (!known) {
                window.setMaximize(true, true);
            }
            if (!known)
                console.log('Guided Access: presentation ' + presentation + ' for "' + window.caption + '"');
        }
    }

    Connections {
        target: presenter.windows
        function onAdded(window) { presenter.enforce(); }
    }

    Timer {
        interval: 250
        running: true
        repeat: true
        triggeredOnStart: true
        onTriggered: presenter.enforce()
    }

    Component.onDestruction: {
        for (var i = 0; i < changed.length; i++) {
            var entry = changed[i];
            if (!entry.window || entry.window.deleted === true)
                continue;
            if (presentation === Contract.PRESENTATION.fullscreen)
                entry.window.fullScreen = false;
            else
                entry.window.setMaximize(false, false);
            entry.window.frameGeometry = entry.geometry;
        }
        console.log('Guided Access: presentation put back for ' + changed.length + ' window(s)');
        changed = [];
    }
}
