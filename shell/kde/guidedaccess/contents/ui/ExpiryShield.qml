// SPDX-License-Identifier: GPL-2.0-or-later
// When the time is up (State "expired") or the app is gone and cannot be
// launched again ('app-gone'): a full-screen shield over every monitor, the
// app's too, which only the end dialog (the gesture) passes, and its
// message whole on the locked app's monitor. The message is a window of
// its own above the shade: centred on the whole desktop of two monitors it
// would be cut in two by the seam.
import QtQuick 2.15
import QtQuick.Window 2.15
import "../code/geometry.js" as Geometry
import "../code/text.js" as Strings

Item {
    id: expiry

    // The whole desktop (Windows.desktopRect). (Not `screen`: a Window has
    // one, its QScreen.)
    property var desktopRect
    // The locked app's monitor (Windows.appArea), where the message goes.
    property var area: desktopRect
    // SessionState.shieldReason: 'expired' or 'app-gone'.
    property string reason: 'expired'
    readonly property string message: reason === 'app-gone'
        ? Strings.tr('The app has closed. Press Meta+Alt+Escape three times to end Guided Access.')
        : Strings.tr('Time is up. Press Meta+Alt+Escape three times to end Guided Access.')

    Blocker {
        id: shade
        role: 'expiry shield'
        shade: '#f0101418'
        rect: expiry.desktopRect
    }

    Window {
        id: note
        flags: Qt.BypassWindowManagerHint | Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint | Qt.WindowDoesNotAcceptFocus
        transientParent: null // as in Blocker.qml
        // What it says, as its name (what assistive technology and KWin's
        // window list show).
        title: expiry.message
        // Never the keys (as in Blocker.qml); it takes the pointer over
        // its place, as the shade does around it.
        property bool _q_showWithoutActivating: true
        color: 'transparent'
        // Four fifths of the monitor wide, at most 900 px: a line a person
        // reads without turning their head, wrapped to fit.
        width: Math.round(Math.min(expiry.area.width * 0.8, 900))
        height: Math.min(messageText.implicitHeight + 24, expiry.area.height)
        x: Geometry.placeIn(expiry.area, width, height, 1 / 2).x
        y: Geometry.placeIn(expiry.area, width, height, 1 / 2).y
        visible: false
        MouseArea {
            anchors.fill: parent
            acceptedButtons: Qt.AllButtons
            onWheel: wheel.accepted = true
        }
        Text {
            id: messageText
            anchors.centerIn: parent
            width: parent.width
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            color: 'white'
            font.pixelSize: 28
            text: expiry.message
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
        }
    }

    // Shown after the shade (KWin stacks its own windows in the order they
    // are shown), so the message lies above it.
    Timer {
        interval: 50
        running: true
        onTriggered: note.visible = true
    }

    // Shows the message again, so that it lies above windows of ours shown
    // since: the surround shield's, remade when its rects change, which
    // show a moment later (Blocker.qml), hence the delay.
    function raiseMessage() {
        reshow.restart();
    }

    Timer {
        id: reshow
        interval: 50
        onTriggered: {
            if (note.visible) {
                note.visible = false;
                note.visible = true;
            }
        }
    }

    Component.onCompleted: console.log('Guided Access: shield shown: ' + reason)
}
