// SPDX-License-Identifier: GPL-2.0-or-later
// KWin 5.27's scripting API as the parts use it (KWinApi.qml picks this
// file or KWin6.qml, which has the same members): the workspace is a
// context property of every declarative script (clients: clientList,
// activeClient, clientAdded…), DBusCall comes from org.kde.kwin 2.0, and
// global shortcuts from the script's `KWin` object.
import QtQuick 2.15
import org.kde.kwin 2.0 as KWinComponents

QtObject {
    readonly property string version: '5'
    readonly property var kwinWorkspace: workspace
    readonly property Component dbusCall: Component {
        KWinComponents.DBusCall {}
    }

    // Every window KWin manages (not its own: 5.27 leaves them out).
    function windowList() {
        return workspace.clientList();
    }

    // Every monitor's rectangle in global logical pixels, KWin's primary
    // first. KWin 5.27 numbers its screens; clientArea's ScreenArea (7 in
    // its ClientAreaOption) is a screen's whole rectangle, panels included.
    function outputs() {
        var result = [];
        for (var i = 0; i < workspace.numScreens; i++) {
            var g = workspace.clientArea(7, i, workspace.currentDesktop);
            result.push({x: g.x, y: g.y, width: g.width, height: g.height});
        }
        return result;
    }

    function activeWindow() {
        return workspace.activeClient;
    }

    function activate(window) {
        workspace.activeClient = window;
    }

    // Calls added(window), activated(window) and removed(window) as KWin
    // reports them, until the function it returns is called.
    function follow(added, activated, removed) {
        workspace.clientAdded.connect(added);
        workspace.clientActivated.connect(activated);
        workspace.clientRemoved.connect(removed);
        return function () {
            workspace.clientAdded.disconnect(added);
            workspace.clientActivated.disconnect(activated);
            workspace.clientRemoved.disconnect(removed);
        };
    }

    // KWin 5.27 gives keys to the internal window shown last (see
    // KeyboardBlock.qml); a dialog of ours is a managed dialog window.
    readonly property int keyWindowFlags: Qt.Dialog

    // Nothing to do: the keyboard block, shown last, takes the keys.
    function dropKeyboardFocus() {
    }

    // A global shortcut `name` with no key, for as long as the script runs:
    // `handler` runs when kglobalaccel invokes it.
    function registerShortcut(name, text, handler) {
        KWin.registerShortcut(name, text, '', handler);
    }
}
