// SPDX-License-Identifier: GPL-2.0-or-later
// The surround shield: input-swallowing, dimmed windows over the whole
// screen except the windows of the apps the person may reach (the locked
// app and AlsoAllowed) (where no other window lies over
// them), so panels, the desktop, notifications and anything another app
// shows cannot be reached. With `touch` denied, a transparent window also
// covers the app: no pointer or touch input reaches anything. All of it
// goes with this item.
import QtQuick 2.15
import QtQml.Models 2.15
import "../code/geometry.js" as Geometry
import "../code/identity.js" as Identity
import "../code/reachability.js" as Reachability

Item {
    id: shield

    property Windows windows
    property var apps: [] // SessionState.reachableApps
    property bool touchBlocked: false
    // Our own windows the shield must leave uncovered (the time left).
    property var keepClear: []
    property var rects: []
    readonly property var screenRect: windows.desktopRect

    function update() {
        var parts = Reachability.screenParts(windows.list(), function (window) {
            return Identity.belongsToApp(windows.idsOf(window), shield.apps);
        });
        var next = Geometry.subtract(Geometry.shieldRects(shield.screenRect, parts.app, parts.others), shield.keepClear);
        if (JSON.stringify(next) !== JSON.stringify(rects))
            rects = next;
    }

    Timer {
        interval: 100
        running: true
        repeat: true
        triggeredOnStart: true
        onTriggered: shield.update()
    }

    Instantiator {
        model: shield.rects.length
        delegate: Blocker {
            role: 'shield'
            shade: Qt.rgba(0.08, 0.09, 0.11, 0.82)
            rect: index < shield.rects.length ? shield.rects[index] : {x: 0, y: 0, width: 1, height: 1}
        }
    }

    Blocker {
        role: 'touch shield'
        rect: shield.screenRect
        shown: shield.touchBlocked
    }
}
