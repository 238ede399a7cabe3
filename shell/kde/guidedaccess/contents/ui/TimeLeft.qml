// SPDX-License-Identifier: GPL-2.0-or-later
// The time left, in a small pill at the top right of the locked app's
// monitor, and the warnings at 5 min, 1 min and 10 s as an on-screen
// message at its bottom (shown even when notifications are denied: it is
// ours, not a notification). On the app's monitor, whole: the person looks
// there, and a message placed on the whole desktop of two monitors would
// sit on the other one or across the seam.
import QtQuick 2.15
import QtQuick.Window 2.15
import "../code/geometry.js" as Geometry
import "../code/session.js" as SessionState
import "../code/text.js" as Strings

Item {
    id: timeLeft

    property int seconds: 0
    // The locked app's monitor (Windows.appArea), in global logical pixels.
    property var area
    property int previous: -1
    property string warning: ''
    // Where the surround shield must not cover these windows.
    readonly property var clearRects: [pill, osd].filter(function (window) { return window.visible; })
        .map(function (window) { return {x: window.x, y: window.y, width: window.width, height: window.height}; })

    onSecondsChanged: {
        var crossed = SessionState.warningCrossed(previous < 0 ? null : previous, seconds);
        previous = seconds;
        if (crossed > 0) {
            warning = crossed >= 60
                ? Strings.tr('Guided Access: %1 min left', crossed / 60)
                : Strings.tr('Guided Access: %1 s left', crossed);
            console.log('Guided Access: warning: ' + warning);
            warningTimer.restart();
        }
    }

    Window {
        id: pill
        flags: Qt.BypassWindowManagerHint | Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint | Qt.WindowDoesNotAcceptFocus
        transientParent: null // as in Blocker.qml
        // What it says, as its name (what assistive technology and KWin's
        // window list show).
        title: timeLeftText.text
        // Never the keys; the pointer it takes itself, as the shield would:
        // the surround shield leaves its place clear (`clearRects`), since
        // KWin stacks the scripts' windows in the order they are made.
        property bool _q_showWithoutActivating: true
        color: 'transparent'
        width: 150
        height: 36
        x: Geometry.topRightIn(timeLeft.area, width, height, 12).x
        y: Geometry.topRightIn(timeLeft.area, width, height, 12).y
        visible: false
        MouseArea {
            anchors.fill: parent
            acceptedButtons: Qt.AllButtons
        }
        Rectangle {
            anchors.fill: parent
            radius: height / 2
            color: '#e0202326'
            Text {
                id: timeLeftText
                anchors.centerIn: parent
                color: 'white'
                font.pixelSize: 16
                text: Strings.tr('%1 left', SessionState.formatRemaining(timeLeft.seconds))
                Accessible.role: Accessible.StaticText
                Accessible.name: text
            }
        }
    }

    Window {
        id: osd
        flags: Qt.BypassWindowManagerHint | Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint | Qt.WindowDoesNotAcceptFocus
        transientParent: null // as in Blocker.qml
        title: timeLeft.warning
        // Never the keys; the pointer it takes itself, as the shield would:
        // the surround shield leaves its place clear (`clearRects`), since
        // KWin stacks the scripts' windows in the order they are made.
        property bool _q_showWithoutActivating: true
        color: 'transparent'
        width: 420
        height: 64
        x: Geometry.bottomCentreIn(timeLeft.area, width, height, 80).x
        y: Geometry.bottomCentreIn(timeLeft.area, width, height, 80).y
        visible: false
        MouseArea {
            anchors.fill: parent
            acceptedButtons: Qt.AllButtons
        }
        Rectangle {
            anchors.fill: parent
            radius: 12
            color: '#e0202326'
            Text {
                anchors.centerIn: parent
                color: 'white'
                font.pixelSize: 20
                text: timeLeft.warning
                Accessible.role: Accessible.AlertMessage
                Accessible.name: text
            }
        }
    }

    Timer {
        id: warningTimer
        interval: 4000
        onRunningChanged: osd.visible = running
    }

    Timer {
        interval: 0
        running: true
        onTriggered: pill.visible = true
    }
}
