// SPDX-License-Identifier: GPL-2.0-or-later
// KWin 6's scripting API as the parts use it (KWinApi.qml picks this file
// or KWin5.qml): the workspace is the Workspace singleton of
// org.kde.kwin 3.0, which also has DBusCall.
import QtQuick
import org.kde.kwin 3.0 as KWinComponents

QtObject {
    readonly property string version: '6'
    readonly property var kwinWorkspace: KWinComponents.Workspace
    readonly property Component dbusCall: Component {
        KWinComponents.DBusCall {}
    }
}
