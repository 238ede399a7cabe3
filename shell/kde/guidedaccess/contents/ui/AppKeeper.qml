// SPDX-License-Identifier: GPL-2.0-or-later
// Keeps the locked app on screen. When it has had no window for a moment
// during a session (closed, quit, crashed), the daemon is asked to launch
// it again (LaunchApp: a KWin script cannot start programs), which it does
// at most 3 times a minute; a launch that shows no window within 10 s
// counts as gone again. When the daemon refuses or cannot launch it,
// `unreachable` turns true: the enforcer shows the shield that only the
// gesture passes, until a window of the app shows up again.
import QtQuick 2.15
import "../code/identity.js" as Identity

Item {
    id: keeper

    property Windows windows
    property var bus
    property string app
    property bool unreachable: false

    // 'present', 'gone' or 'unknown' (some window's ids are still being asked).
    function presence() {
        var list = windows.list();
        var answers = [];
        for (var i = 0; i < list.length; i++)
            answers.push(Identity.belongsToApp(windows.idsOf(list[i]), app));
        return Identity.appPresence(answers);
    }

    function decide() {
        var now = presence();
        if (now === 'unknown') {
            gone.restart();
        } else if (now === 'present') {
            launching.stop();
            unreachable = false;
        } else if (!launching.running && !unreachable) {
            launch();
        }
    }

    function launch() {
        console.log('Guided Access: ' + app + ' has no window: asking the daemon to launch it again');
        launching.restart();
        bus.session('LaunchApp', [], null, function () {
            launching.stop();
            console.log('Guided Access: ' + app + ' was not launched again (3 times a minute, or it cannot be): shield');
            keeper.unreachable = true;
        });
    }

    // The app may be replacing one window with another: wait a moment.
    Timer { id: gone; interval: 300; onTriggered: keeper.decide() }
    // A launch that shows no window within this time counts as gone again.
    Timer { id: launching; interval: 10000; onTriggered: keeper.decide() }

    Connections {
        target: keeper.windows
        function onAdded(window) {
            // The launch worked, even if the window goes again before the
            // next look (then it is launched again at once).
            if (Identity.belongsToApp(keeper.windows.idsOf(window), keeper.app) === true)
                launching.stop();
            gone.restart();
        }
        function onRemoved(window) { gone.restart(); }
    }

    Component.onCompleted: gone.restart()
}
