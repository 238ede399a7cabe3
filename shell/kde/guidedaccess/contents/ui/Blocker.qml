// SPDX-License-Identifier: GPL-2.0-or-later
// One input-swallowing window at `rect` (KWin global logical pixels): a
// frameless window that bypasses the window manager, so KWin places it
// where it says, above every app and panel, and it takes every click,
// wheel and touch there. `shade` is its color (transparent for a disabled
// region, a dim shade for the surround shield).
import QtQuick 2.15
import QtQuick.Window 2.15

Window {
    id: blocker

    property var rect: ({x: 0, y: 0, width: 1, height: 1})
    property color shade: 'transparent'
    property string role: 'blocker'
    property bool shown: true
    // KWin gives the keyboard to the topmost visible window of its own
    // (scripts' windows are KWin's) unless it is shown without activating:
    // a blocker takes the pointer, never the keys. (`outputOnly` would keep
    // the keys out too, but also the pointer: clicks would pass through.)
    property bool _q_showWithoutActivating: true

    flags: Qt.BypassWindowManagerHint | Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint | Qt.WindowDoesNotAcceptFocus
    // No transient parent: a Window declared in an Item (or loaded by a
    // Loader) would otherwise take the Item's window as its own, and Qt 6
    // shows it only once that window shows; a script's Items have none.
    transientParent: null
    title: 'Guided Access ' + role
    color: shade
    x: rect ? rect.x : 0
    y: rect ? rect.y : 0
    width: rect ? Math.max(1, rect.width) : 1
    height: rect ? Math.max(1, rect.height) : 1
    visible: false

    MouseArea {
        anchors.fill: parent
        acceptedButtons: Qt.AllButtons
        hoverEnabled: true
        onPressed: console.log('Guided Access: input swallowed by ' + blocker.role + ' at ' +
            Math.round(blocker.x + mouse.x) + ',' + Math.round(blocker.y + mouse.y))
        onWheel: wheel.accepted = true
    }

    // KWin shows a script's window only when it becomes visible after creation.
    Timer {
        interval: 0
        running: true
        onTriggered: blocker.visible = Qt.binding(function () { return blocker.shown; })
    }
}
