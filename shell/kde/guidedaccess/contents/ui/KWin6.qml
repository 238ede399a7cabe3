// SPDX-License-Identifier: GPL-2.0-or-later
// KWin 6's scripting API as the parts use it (KWinApi.qml picks this file
// or KWin5.qml, which has the same members): the workspace is the
// Workspace singleton of org.kde.kwin 3.0 (windows: the `windows` list,
// activeWindow, windowAdded…), which also has DBusCall and ShortcutHandler.
import QtQuick
import org.kde.kwin 3.0 as KWinComponents

QtObject {
    id: api

    readonly property string version: '6'
    readonly property var kwinWorkspace: KWinComponents.Workspace
    readonly property Component dbusCall: Component {
        KWinComponents.DBusCall {}
    }

    // Every window KWin manages, its own among them (pid -1).
    function windowList() {
        return kwinWorkspace.windows;
    }

    // Every monitor's rectangle in global logical pixels, KWin's primary
    // first: KWin 6 lists its outputs, each with its geometry.
    function outputs() {
        var screens = kwinWorkspace.screens;
        var result = [];
        for (var i = 0; i < screens.length; i++) {
            var g = screens[i].geometry;
            result.push({x: g.x, y: g.y, width: g.width, height: g.height});
        }
        return result;
    }

    function activeWindow() {
        return kwinWorkspace.activeWindow;
    }

    function activate(window) {
        kwinWorkspace.activeWindow = window;
    }

    // Calls added(window), activated(window) and removed(window) as KWin
    // reports them, until the function it returns is called.
    function follow(added, activated, removed) {
        kwinWorkspace.windowAdded.connect(added);
        kwinWorkspace.windowActivated.connect(activated);
        kwinWorkspace.windowRemoved.connect(removed);
        return function () {
            kwinWorkspace.windowAdded.disconnect(added);
            kwinWorkspace.windowActivated.disconnect(activated);
            kwinWorkspace.windowRemoved.disconnect(removed);
        };
    }

    // KWin 6 gives keys to the active window only, and its own windows
    // (ours) cannot be activated; but the newest open popup of ours gets
    // every key. So a window of ours that takes keys is a popup (KWin
    // closes it when a click lands outside).
    readonly property int keyWindowFlags: Qt.Popup

    // Keys reach no app: no window is active (the gesture, a global
    // shortcut, still works).
    function dropKeyboardFocus() {
        kwinWorkspace.activeWindow = null;
    }

    // A global shortcut `name` with no key, for as long as the script runs:
    // `handler` runs when kglobalaccel invokes it.
    function registerShortcut(name, text, handler) {
        // Made from text: ShortcutHandler takes its name and text once, as
        // it is created.
        Qt.createQmlObject('import org.kde.kwin 3.0 as KWinComponents; KWinComponents.ShortcutHandler { name: '
            + JSON.stringify(name) + '; text: ' + JSON.stringify(text) + ' }', api).activated.connect(handler);
    }
}
