// SPDX-License-Identifier: GPL-2.0-or-later
// The `keyboards` restriction: keys do not reach apps. This is a window
// that takes no pointer input and drops every key it is given: one
// transparent pixel. KWin 5.27 hands every key, after its global shortcuts
// (so the gesture still works) and before any app, to the internal window
// (a script's window is one) shown most recently that is visible, lies
// inside the screen and is not shown without activating
// (`_q_showWithoutActivating`) or `outputOnly`: this one, until the dialog
// shows after it. KWin 6 gives keys to the active window only (or to our
// open popup, the dialog), so there no window stays active: the activation
// is dropped whenever an app's window gets it, and the app lock does not
// hand it to the app. Gone with this item: KWin then gives the keys to the
// active window again.
import QtQuick 2.15
import QtQuick.Window 2.15

Window {
    id: keyboardBlock

    property int dropped: 0
    property Windows windows
    // The window that was active when keys were blocked: active again
    // afterwards if no window is (KWin 6, where none was active meanwhile).
    property var focused: null
    // The whole desktop (Windows.desktopRect): the pixel lies at its top
    // left. (Not `screen`: a Window has one, its QScreen.)
    property var desktopRect

    // Not `_q_showWithoutActivating`, not `outputOnly`: that is what makes
    // KWin give it the keys.
    flags: Qt.BypassWindowManagerHint | Qt.FramelessWindowHint | Qt.WindowTransparentForInput
    // No transient parent: a Window declared in an Item (or loaded by a
    // Loader) would otherwise take the Item's window as its own, and Qt 6
    // shows it only once that window shows; a script's Items have none.
    transientParent: null
    title: 'Guided Access keyboard block'
    color: 'transparent'
    x: desktopRect.x
    y: desktopRect.y
    width: 1
    height: 1
    visible: false

    Item {
        id: sink
        anchors.fill: parent
        focus: true
        Keys.onPressed: {
            keyboardBlock.dropped++;
            event.accepted = true;
        }
        Keys.onReleased: event.accepted = true
    }

    // KWin shows a script's window only when it becomes visible after creation.
    Timer {
        interval: 0
        running: true
        onTriggered: {
            keyboardBlock.visible = true;
            keyboardBlock.focused = keyboardBlock.windows.active();
            keyboardBlock.windows.kwin.dropKeyboardFocus();
            console.log('Guided Access: keyboard blocked (keys go to no app)');
        }
    }

    Connections {
        target: keyboardBlock.windows
        function onActivated(window) {
            if (window && !keyboardBlock.windows.isOurs(window))
                keyboardBlock.windows.kwin.dropKeyboardFocus();
        }
    }

    Component.onDestruction: {
        if (focused)
            windows.refocus(focused);
        console.log('Guided Access: keyboard unblocked (' + dropped + ' key presses dropped)');
    }
}
