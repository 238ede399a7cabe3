// SPDX-License-Identifier: GPL-2.0-or-later
// KWin 5.27's scripting API as the parts use it (KWinApi.qml picks this
// file or KWin6.qml): the workspace is a context property of every
// declarative script, DBusCall comes from org.kde.kwin 2.0.
import QtQuick 2.15
import org.kde.kwin 2.0 as KWinComponents

QtObject {
    readonly property string version: '5'
    readonly property var kwinWorkspace: workspace
    readonly property Component dbusCall: Component {
        KWinComponents.DBusCall {}
    }
}
