// SPDX-License-Identifier: GPL-2.0-or-later
// Guided Access for KWin: follows the session guided-accessd publishes on
// the session bus and makes the screen obey it. The daemon decides; this
// only enforces. KWin's declarative scripts (5.27 and 6) cannot receive
// D-Bus signals, so the daemon nudges instead: it invokes this script's
// global shortcut "Guided Access session changed" through kglobalaccel
// whenever the session changes and when it starts, and the script then
// reads the session's properties (GetAll). Nothing is asked while nothing
// changes. The first read, at load, also bus-activates a daemon that is
// not running. A failed read changes nothing: the lock stays as it is
// (fail closed).
//
// Each part of the lock is one item, made while a session is on and
// destroyed at its end, when it undoes exactly what it did; the same
// happens when the script is unloaded (disabled), after which it tells the
// daemon it enforces nothing.
import QtQuick 2.15
import "../code/claims.js" as Claims
import "../code/contract.js" as Contract
import "../code/identity.js" as Identity
import "../code/session.js" as SessionState

Item {
    id: root

    property var session: null // the session as published, null before the first reply
    // Features1's Zoom and InvertColors, read with the session while it is
    // on (a feature the person switches also nudges the script): KWin's
    // zoom and invert effects show them (Magnifier, Inverter).
    property bool zoom: false
    property bool invertColors: false
    property int secondsLeft: 0
    property bool reading: false
    property bool readAgain: false
    // KWinApi's item: the scripting API of the running KWin.
    property QtObject kwin
    readonly property bool enforcing: session !== null && session.enabled
    // The monitor the locked app is on (Windows.appArea): where the time
    // left, the warnings and the time-up message go, whole, never across
    // the seam between two monitors.
    property var appArea: kwinWindows.desktopRect
    readonly property string gesturePath: sessionBus.localPath(Qt.resolvedUrl('../code/gesture.js'))

    Bus { id: sessionBus; kwin: root.kwin }
    Windows { id: kwinWindows; bus: sessionBus; kwin: root.kwin }
    Registration { id: registration; bus: sessionBus }

    // Reads the session and, during a session, the features the screen
    // shows (before the session is taken, so that a session that starts
    // with Zoom on is magnified from its start). A nudge that comes during a read makes one
    // more read after it: the first may have been answered before the
    // change.
    function readSession() {
        if (reading) {
            readAgain = true;
            return;
        }
        reading = true;
        sessionBus.readSession(function (next) {
            if (next === null || !next.enabled) {
                if (next !== null) {
                    zoom = false;
                    invertColors = false;
                    take(next);
                }
                readDone();
                return;
            }
            sessionBus.readFeatures(function (features) {
                zoom = shown('Zoom', features.Zoom, zoom);
                invertColors = shown('InvertColors', features.InvertColors, invertColors);
                take(next);
                readDone();
            }, function () { // the features stay as they were
                take(next);
                readDone();
            });
        }, readDone); // the daemon is gone or refused: keep what is enforced
    }

    // A feature's new value as read (`now`, true only for true), logged
    // when it differs from `before`.
    function shown(name, now, before) {
        var on = now === true;
        if (on !== before)
            console.log('Guided Access: ' + name + ' ' + (on ? 'on' : 'off'));
        return on;
    }

    function readDone() {
        reading = false;
        if (readAgain) {
            readAgain = false;
            readSession();
        }
    }

    function take(next) {
        registration.check(next.enforcers);
        countDown(next);
        next.enforcers = null;
        if (session === null || JSON.stringify(next) !== JSON.stringify(session)) {
            // The apps come back first; the rest of the lock goes after.
            if (enforcing && !next.enabled && appLock.item)
                appLock.item.release();
            session = next;
            console.log('Guided Access: session ' + (next.enabled ? 'on for ' + next.app + ' (' + next.state + ')' : 'off'));
        }
    }

    // secondsLeft of `current` on the real-time clock, at once when a
    // reading arrives (the pill of a new session then never shows a stale
    // time), and every second.
    function countDown(current) {
        if (current === null || current.timeLimit <= 0)
            return;
        var left = SessionState.remainingSeconds(current, Date.now() * 1000);
        if (left !== secondsLeft)
            secondsLeft = left;
    }

    // (Re)loads the gesture script: after a kglobalaccel block, so that its
    // shortcut is registered after the block and keeps working.
    function loadGesture() {
        sessionBus.scripting('unloadScript', ['guidedaccess-gesture'], function () {
            sessionBus.scripting('loadScript', [gesturePath, 'guidedaccess-gesture'], function () {
                sessionBus.scripting('start', []);
            });
        });
    }

    // The time left, counted here between reads (a quarter second keeps
    // the shown second in step with the clock).
    Timer {
        interval: 250
        running: root.enforcing && root.session.timeLimit > 0
        repeat: true
        onTriggered: root.countDown(root.session)
    }

    // The app's monitor, looked at where KWin is (no call to the daemon):
    // a window moved to another monitor, or a monitor added or removed,
    // shows within a quarter second. Only during a session.
    Timer {
        interval: 250
        running: root.enforcing
        repeat: true
        triggeredOnStart: true
        onTriggered: {
            var apps = SessionState.reachableApps(root.session);
            var next = kwinWindows.appArea(function (window) {
                return Identity.belongsToApp(kwinWindows.idsOf(window), apps);
            });
            if (JSON.stringify(next) !== JSON.stringify(root.appArea)) {
                root.appArea = next;
                console.log('Guided Access: the app\'s monitor is ' + JSON.stringify(next));
            }
        }
    }

    Loader {
        id: appLock
        active: root.enforcing
        sourceComponent: AppLock {
            windows: kwinWindows
            // The apps whose windows the person may reach: App, then AlsoAllowed
            // (session.js), read from the session the lock is made for (a
            // property of the enforcer's own could still hold the last one's).
            // App alone is the one launched again and presented.
            apps: SessionState.reachableApps(root.session)
            focusApp: !SessionState.denied(root.session, 'keyboards')
        }
    }
    Loader {
        active: root.enforcing
        sourceComponent: ShortcutBlock {
            bus: sessionBus
            // Alt+Tab among the reachable apps' windows: only when there
            // are other apps to reach and app-switching is not denied.
            switcher: root.session.alsoAllowed.length > 0 && !SessionState.denied(root.session, 'app-switching')
            onBlocked: root.loadGesture()
        }
    }
    Loader {
        id: surround
        active: root.enforcing
        sourceComponent: SurroundShield {
            windows: kwinWindows
            apps: SessionState.reachableApps(root.session)
            touchBlocked: SessionState.denied(root.session, 'touch')
            keepClear: timeLeft.item ? timeLeft.item.clearRects : []
        }
    }
    Loader {
        active: root.enforcing && root.session.presentation !== Contract.PRESENTATION.asIs
        sourceComponent: Presentation {
            windows: kwinWindows
            app: root.session.app
            presentation: root.session.presentation
        }
    }
    Loader {
        active: root.enforcing && root.zoom
        sourceComponent: Magnifier { bus: sessionBus }
    }
    Loader {
        active: root.enforcing && root.invertColors
        sourceComponent: Inverter { bus: sessionBus }
    }
    Loader {
        active: root.enforcing && root.session.regions.length > 0
        sourceComponent: RegionBlockers { rects: root.session.regions }
    }
    Loader {
        active: root.enforcing && SessionState.denied(root.session, 'keyboards')
        sourceComponent: KeyboardBlock { windows: kwinWindows; desktopRect: kwinWindows.desktopRect }
    }
    Loader {
        active: root.enforcing && SessionState.denied(root.session, 'notifications')
        sourceComponent: NotificationHider { windows: kwinWindows }
    }
    Loader {
        active: SessionState.assessmentDenies(root.session, 'allowsClipboard')
        sourceComponent: ClipboardClearer { bus: sessionBus }
    }
    Loader {
        id: timeLeft
        active: root.enforcing && root.session.timeLimit > 0 && root.session.state !== 'expired'
        sourceComponent: TimeLeft { seconds: root.secondsLeft; area: root.appArea }
    }
    Loader {
        id: appKeeper
        active: root.enforcing
        sourceComponent: AppKeeper { windows: kwinWindows; bus: sessionBus; app: root.session.app }
    }
    Loader {
        id: shield
        readonly property string reason: SessionState.shieldReason(root.session,
            appKeeper.item !== null && appKeeper.item.unreachable) || ''
        active: reason !== ''
        sourceComponent: ExpiryShield { desktopRect: kwinWindows.desktopRect; area: root.appArea; reason: shield.reason }
    }

    // The shield's message stays above the surround shield's windows, which
    // are remade when the time left goes at expiry.
    Connections {
        target: surround.item
        ignoreUnknownSignals: true
        function onRectsChanged() {
            if (shield.item)
                shield.item.raiseMessage();
        }
    }

    Component.onCompleted: {
        console.log('Guided Access: KWin enforcer loaded (' + 'KWin ' + kwin.version + ' API)');
        kwin.registerShortcut(Claims.NUDGE_SHORTCUT, 'Guided Access: read the session again (the service invokes this)',
            readSession);
        readSession();
        loadGesture();
    }
    Component.onDestruction: {
        sessionBus.closed = true;
        sessionBus.scripting('unloadScript', ['guidedaccess-gesture']);
        sessionBus.scripting('unloadScript', ['guidedaccess-dialog']);
        console.log('Guided Access: KWin enforcer unloaded');
    }
}
