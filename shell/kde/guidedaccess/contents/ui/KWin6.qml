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
    readonly property Component shortcutHandler: Component {
        KWinComponents.ShortcutHandler {}
    }

    // Every window KWin manages, its own among them (pid -1).
    function windowList() {
        return kwinWorkspace.windows;
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

    // Gives the keyboard to our window titled `title`: KWin 6 gives keys
    // to the active window only, its own windows included. The window is
    // in KWin's list once it has been drawn, so it may come later.
    function takeKeyboard(title) {
        var ours = function (window) {
            return window && window.pid <= 0 && window.caption === title;
        };
        var list = windowList();
        for (var i = 0; i < list.length; i++) {
            if (ours(list[i])) {
                activate(list[i]);
                return;
            }
        }
        var added = function (window) {
            if (!ours(window))
                return;
            kwinWorkspace.windowAdded.disconnect(added);
            activate(window);
        };
        kwinWorkspace.windowAdded.connect(added);
    }

    // A global shortcut `name` with no key, for as long as the script runs:
    // `handler` runs when kglobalaccel invokes it.
    function registerShortcut(name, text, handler) {
        shortcutHandler.createObject(api, {name: name, text: text}).activated.connect(handler);
    }
}
