// SPDX-License-Identifier: GPL-2.0-or-later
// The app lock, for as long as it exists: the windows of other apps than
// `apps` (the locked app and AlsoAllowed) are minimized as they appear and
// whenever they are activated, and left out of the task switcher
// (skipSwitcher: Alt+Tab, where ShortcutBlock lets it work, lists only the
// reachable apps' windows); the reachable apps' windows are shown and keep
// the focus. On destruction it unminimizes exactly the windows it minimized
// and gives back skipSwitcher to exactly those it set it on (those still
// there).
import QtQuick 2.15
import "../code/identity.js" as Identity
import "../code/reachability.js" as Reachability

Item {
    id: lock

    property Windows windows
    property var apps: [] // SessionState.reachableApps: App, then AlsoAllowed
    // Whether the app's window gets the focus back when another takes it;
    // not while keys are to reach no app (KeyboardBlock.qml).
    property bool focusApp: true
    property var minimizedByUs: []
    property var skippedByUs: [] // windows whose skipSwitcher we set

    function belongs(window) {
        return Identity.belongsToApp(windows.idsOf(window), apps);
    }

    // Out of the task switcher: every window of another app (shell windows
    // have no place there anyway).
    function hideFromSwitcher(window) {
        if (window.skipSwitcher === false && skippedByUs.indexOf(window) < 0) {
            window.skipSwitcher = true;
            skippedByUs.push(window);
        }
    }

    // Brings the windows in line with `apps`. Reentered (through an
    // activation or a minimize it makes), it runs again once it is done
    // rather than inside itself; a few rounds at most, so that a KWin that
    // keeps activating another window cannot hold it in a loop: still asked
    // after them, it runs again a moment later.
    property bool busy: false
    property bool again: false
    function enforce() {
        if (released)
            return;
        if (busy) {
            again = true;
            return;
        }
        busy = true;
        try {
            again = true;
            for (var round = 0; round < 3 && again; round++) {
                again = false;
                enforceOnce();
            }
        } finally {
            busy = false;
        }
        if (again) {
            again = false;
            enforceLater.restart();
        }
    }

    Timer {
        id: enforceLater
        interval: 50
        onTriggered: lock.enforce()
    }

    // The app's windows are shown and given the focus before the others
    // are minimized: the person is never left with no window active, which
    // would wait for focusWhenNoneActive.
    function enforceOnce() {
        var list = windows.list();
        windows.prune(list);
        var others = [];
        for (var i = 0; i < list.length; i++) {
            var window = list[i];
            var known = belongs(window);
            if (known === undefined)
                continue;
            var action = Reachability.windowAction(known, window);
            if (!known && action !== 'keep')
                hideFromSwitcher(window);
            if (action === 'minimize')
                others.push(window);
            else if (action === 'show')
                window.minimized = false;
        }
        giveFocus(list);
        for (var j = 0; j < others.length; j++) {
            others[j].minimized = true;
            if (minimizedByUs.indexOf(others[j]) < 0) {
                minimizedByUs.push(others[j]);
                console.log('Guided Access: minimized "' + others[j].caption + '" (pid ' + others[j].pid + ')');
            }
        }
    }

    function giveFocus(list) {
        var active = windows.active();
        if (!focusApp || (active && windows.isOurs(active)))
            return;
        if (!active) {
            focusWhenNoneActive.restart();
            return;
        }
        focusApp_(active, list);
    }

    // Gives the app's topmost shown window the focus unless `active` is the app's.
    function focusApp_(active, list) {
        var stacking = list.slice().sort(function (a, b) { return (a.stackingOrder || 0) - (b.stackingOrder || 0); });
        var target = Reachability.focusTarget(active, stacking, belongs);
        if (target !== null && target !== active)
            windows.activate(target);
    }

    // Nothing active (the active window was minimized, or the app's window
    // was just shown): KWin may be choosing the next window itself, and
    // giving the focus from inside that reenters it (KWin 5.27 and 6.3 then
    // keep the minimized window active). So the app gets it a moment later,
    // if still no window has it; KWin 6.7 chooses none at all.
    Timer {
        id: focusWhenNoneActive
        interval: 50
        onTriggered: {
            if (lock.focusApp && !lock.windows.active())
                lock.focusApp_(null, lock.windows.list());
        }
    }

    // A managed Single App Mode moved to another app, AlsoAllowed changed,
    // keys allowed again: decided at once.
    onAppsChanged: enforce()
    onFocusAppChanged: enforce()

    Connections {
        target: lock.windows
        function onAdded(window) { lock.enforce(); }
        function onActivated(window) { lock.enforce(); }
        // Another app's window shown again (by itself, or by a person), or
        // the app's own minimized: put back at once.
        function onMinimizedChanged(window) { lock.enforce(); }
        // A window whose ids were not known yet is decided at once.
        function onIdsAnswered() { lock.enforce(); }
        function onRemoved(window) {
            var index = lock.minimizedByUs.indexOf(window);
            if (index >= 0)
                lock.minimizedByUs.splice(index, 1);
            index = lock.skippedByUs.indexOf(window);
            if (index >= 0)
                lock.skippedByUs.splice(index, 1);
        }
    }

    // Unminimizes exactly the windows it minimized and gives back
    // skipSwitcher to exactly those it set it on (those still there), and
    // enforces nothing more: at its destruction, or before it when a
    // session ends (Enforcer.qml), so that the apps come back before the
    // rest of the lock is taken down.
    property bool released: false
    function release() {
        released = true;
        for (var i = 0; i < minimizedByUs.length; i++) {
            if (minimizedByUs[i] && minimizedByUs[i].deleted !== true)
                minimizedByUs[i].minimized = false;
        }
        for (var j = 0; j < skippedByUs.length; j++) {
            if (skippedByUs[j] && skippedByUs[j].deleted !== true)
                skippedByUs[j].skipSwitcher = false;
        }
        if (minimizedByUs.length > 0 || skippedByUs.length > 0)
            console.log('Guided Access: unminimized ' + minimizedByUs.length + ' window(s), '
                + skippedByUs.length + ' back in the task switcher');
        minimizedByUs = [];
        skippedByUs = [];
    }

    Component.onCompleted: {
        console.log('Guided Access: app lock on for ' + apps.join(' '));
        enforce();
    }
    Component.onDestruction: {
        release();
        console.log('Guided Access: app lock off');
    }
}
