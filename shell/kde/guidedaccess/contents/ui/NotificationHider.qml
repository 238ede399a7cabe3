// SPDX-License-Identifier: GPL-2.0-or-later
// `notifications` denied: every notification window (Plasma's banners and
// any other window of the notification types) is made fully transparent,
// and the surround shield already takes its input. A banner that sets its
// own opacity (one that fades itself in, as some notification servers'
// do) is put back to transparent in the same turn, before KWin paints it.
// On destruction each gets back the opacity it last asked for. (The
// notification server's Inhibit cannot be used: its cookie is a u, which
// KWin's DBusCall cannot send back to UnInhibit.)
import QtQuick 2.15

Item {
    id: hider

    property Windows windows
    property var hidden: [] // {window, opacity: the one it asked for, held: its opacityChanged handler}

    function isNotification(window) {
        return window.notification === true || window.criticalNotification === true;
    }

    function entryOf(window) {
        for (var i = 0; i < hidden.length; i++) {
            if (hidden[i].window === window)
                return hidden[i];
        }
        return null;
    }

    // KWin's own windows (ours, its on-screen displays) are left alone.
    function hide(window) {
        if (windows.isOurs(window) || !isNotification(window) || entryOf(window) !== null)
            return;
        var entry = {window: window, opacity: window.opacity, held: null};
        entry.held = function () {
            if (window.opacity > 0) {
                entry.opacity = window.opacity;
                window.opacity = 0;
            }
        };
        window.opacityChanged.connect(entry.held);
        hidden.push(entry);
        window.opacity = 0;
        console.log('Guided Access: notification hidden: "' + window.caption + '"');
    }

    Connections {
        target: hider.windows
        function onAdded(window) { hider.hide(window); }
        function onRemoved(window) {
            var entry = hider.entryOf(window);
            if (entry !== null)
                hider.hidden.splice(hider.hidden.indexOf(entry), 1);
        }
    }

    Component.onCompleted: windows.list().forEach(hide)

    Component.onDestruction: {
        hidden.forEach(function (entry) {
            if (entry.window.deleted === true)
                return;
            entry.window.opacityChanged.disconnect(entry.held);
            entry.window.opacity = entry.opacity;
        });
        hidden = [];
    }
}
