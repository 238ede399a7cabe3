// SPDX-License-Identifier: GPL-2.0-or-later
// `notifications` denied: every notification window (Plasma's banners and
// any other window of the notification types) is made fully transparent,
// and the surround shield already takes its input. On destruction each gets
// back the opacity it had. (The notification server's Inhibit cannot be
// used: its cookie is a u, which KWin's DBusCall cannot send back to
// UnInhibit.)
import QtQuick 2.15

Item {
    id: hider

    property Windows windows
    property var hidden: [] // [window, opacity]

    function update() {
        var list = windows.list();
        for (var i = 0; i < list.length; i++) {
            var window = list[i];
            if (window.notification !== true && window.criticalNotification !== true)
                continue;
            if (!hidden.some(function (entry) { return entry[0] === window; })) {
                hidden.push([window, window.opacity]);
                console.log('Guided Access: notification hidden: "' + window.caption + '"');
            }
            window.opacity = 0;
        }
    }

    Connections {
        target: hider.windows
        function onAdded(window) { hider.update(); }
        function onRemoved(window) {
            for (var j = 0; j < hider.hidden.length; j++) {
                if (hider.hidden[j][0] === window) {
                    hider.hidden.splice(j, 1);
                    return;
                }
            }
        }
    }

    Timer {
        interval: 250
        running: true
        repeat: true
        triggeredOnStart: true
        onTriggered: hider.update()
    }

    Component.onDestruction: {
        for (var j = 0; j < hidden.length; j++) {
            if (hidden[j][0] && hidden[j][0].deleted !== true)
                hidden[j][0].opacity = hidden[j][1];
        }
        hidden = [];
    }
}
