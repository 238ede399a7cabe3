// SPDX-License-Identifier: GPL-2.0-or-later
// When the time is up (State "expired") or the app is gone and cannot be
// launched again ('app-gone'): a full-screen shield over the app too, which
// only the end dialog (the gesture) passes.
import QtQuick 2.15
import "../code/text.js" as Strings

Blocker {
    id: expiry
    role: 'expiry shield'
    shade: '#f0101418'
    // The whole desktop (Windows.desktopRect). (Not `screen`: a Window has
    // one, its QScreen.)
    property var desktopRect
    // SessionState.shieldReason: 'expired' or 'app-gone'.
    property string reason: 'expired'
    rect: desktopRect
    Text {
        anchors.centerIn: parent
        width: parent.width * 0.8
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        color: 'white'
        font.pixelSize: 28
        text: expiry.reason === 'app-gone'
            ? Strings.tr('The app has closed. Press Meta+Alt+Escape three times to end Guided Access.')
            : Strings.tr('Time is up. Press Meta+Alt+Escape three times to end Guided Access.')
        Accessible.role: Accessible.AlertMessage
        Accessible.name: text
    }
    Component.onCompleted: console.log('Guided Access: shield shown: ' + reason)
}
