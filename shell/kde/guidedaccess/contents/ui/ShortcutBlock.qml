// SPDX-License-Identifier: GPL-2.0-or-later
// The ways out through the keyboard and screen edges, for as long as it
// exists: kglobalaccel blocks every global shortcut (task switcher, Overview,
// KRunner, launcher, virtual desktops, window menu, log out), and the
// effects reached by edges and gestures are unloaded (only those loaded).
// Since the block also silences shortcuts registered before it, `blocked`
// tells main.qml to load the gesture script again. On destruction it
// unblocks and loads back exactly the effects it unloaded.
import QtQuick 2.15
import "../code/effects.js" as Effects

Item {
    id: block

    property Bus bus
    property var unloadedEffects: []

    signal blocked()

    function kglobalaccel(on, done) {
        bus.call('org.kde.kglobalaccel', '/kglobalaccel', 'org.kde.KGlobalAccel', 'blockGlobalShortcuts', [on], done,
            function () { console.log('Guided Access: blockGlobalShortcuts(' + on + ') failed'); });
    }

    function effects(method, name, done) {
        bus.call('org.kde.KWin', '/Effects', 'org.kde.kwin.Effects', method, [name], done);
    }

    Component.onCompleted: {
        kglobalaccel(true, function () {
            console.log('Guided Access: global shortcuts blocked');
            block.blocked();
        });
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

    Component.onDestruction: {
        kglobalaccel(false);
        for (var i = 0; i < unloadedEffects.length; i++)
            effects('loadEffect', unloadedEffects[i]);
        console.log('Guided Access: global shortcuts unblocked; loaded back effects: ' + unloadedEffects.join(' '));
        unloadedEffects = [];
    }
}
