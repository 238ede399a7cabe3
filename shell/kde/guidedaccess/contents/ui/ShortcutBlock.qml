// SPDX-License-Identifier: GPL-2.0-or-later
// The ways out through the keyboard and screen edges, for as long as it
// exists: kglobalaccel blocks every global shortcut (task switcher, Overview,
// KRunner, launcher, virtual desktops, window menu, log out), and the
// effects reached by edges and gestures are unloaded (only those loaded).
// Since the block also silences shortcuts registered before it, `blocked`
// tells main.qml to load the gesture script again. With `switcher` (other
// apps the person may reach, app-switching allowed), the task switcher's
// own shortcuts are listened to again after the block (code/switcher.js).
// On destruction it unblocks and loads back exactly the effects it
// unloaded.
import QtQuick 2.15
import "../code/effects.js" as Effects

Item {
    id: block

    property Bus bus
    property var unloadedEffects: []
    // Alt+Tab among the reachable apps' windows during the block, as the
    // session says when the block starts (a later change of app-switching
    // leaves Alt+Tab as it is; the app lock still keeps every other app away).
    property bool switcher: false
    readonly property string switcherPath: bus.localPath(Qt.resolvedUrl('../code/switcher.js'))

    signal blocked()

    function kglobalaccel(on, done) {
        bus.call('org.kde.kglobalaccel', '/kglobalaccel', 'org.kde.KGlobalAccel', 'blockGlobalShortcuts', [on], done,
            function () { console.log('Guided Access: blockGlobalShortcuts(' + on + ') failed'); });
    }

    function effects(method, name, done) {
        bus.call('org.kde.KWin', '/Effects', 'org.kde.kwin.Effects', method, [name], done);
    }

    // Alt+Tab during the block (see code/switcher.js for why this works):
    // kglobalaccel listens to a shortcut again only when it is registered
    // after being made "not present" (setInactive), so the switcher script
    // left from an earlier session goes, the switcher's shortcuts are made
    // not present, and the script registers them again. Only after the
    // block: loaded before it, the block would silence them too. (Unloading
    // waits for its reply: KWin destroys the old script's actions, which
    // makes them not present, before it reads the next call.)
    function enableSwitcher() {
        bus.scripting('unloadScript', ['guidedaccess-switcher'], function () {
            var pending = Effects.SWITCHER_SHORTCUTS.length;
            var next = function () {
                if (--pending > 0)
                    return;
                bus.scripting('loadScript', [switcherPath, 'guidedaccess-switcher'], function () {
                    bus.scripting('start', []);
                    console.log('Guided Access: task switcher on for the reachable apps');
                });
            };
            for (var i = 0; i < Effects.SWITCHER_SHORTCUTS.length; i++) {
                var name = Effects.SWITCHER_SHORTCUTS[i];
                bus.call('org.kde.kglobalaccel', '/kglobalaccel', 'org.kde.KGlobalAccel', 'setInactive',
                    [bus.stringList(['kwin', name, 'KWin', name])], next, next);
            }
        });
    }

    function blockNow() {
        kglobalaccel(true, function () {
            console.log('Guided Access: global shortcuts blocked');
            block.blocked();
            if (block.switcher)
                block.enableSwitcher();
        });
    }

    Component.onCompleted: {
        blockNow();
        bus.call('org.kde.KWin', '/Effects', 'org.freedesktop.DBus.Properties', 'Get', ['org.kde.kwin.Effects', 'loadedEffects'],
            function (values) {
                var names = Effects.effectsToUnload(values[0] || []);
                for (var i = 0; i < names.length; i++) {
                    effects('unloadEffect', names[i]);
                    block.unloadedEffects.push(names[i]);
                }
                console.log('Guided Access: unloaded effects: ' + names.join(' '));
            });
    }

    // The switcher script, if loaded, stays: unloading it would leave Alt+Tab
    // dead after the unblock below (see code/switcher.js); it does nothing
    // of its own, and the next block that wants it replaces it.
    Component.onDestruction: {
        kglobalaccel(false);
        for (var i = 0; i < unloadedEffects.length; i++)
            effects('loadEffect', unloadedEffects[i]);
        console.log('Guided Access: global shortcuts unblocked; loaded back effects: ' + unloadedEffects.join(' '));
        unloadedEffects = [];
    }
}
