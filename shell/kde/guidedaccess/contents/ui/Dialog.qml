// SPDX-License-Identifier: GPL-2.0-or-later
// The Guided Access dialog, in the declarative KWin script of its own
// ("guidedaccess-dialog", DialogScript.qml) that the gesture
// (code/gesture.js) loads; it unloads that script when it closes. With a
// session it asks for the passcode and calls End; without one it offers to
// start a session for the app of the window that was active when it opened
// (Start, interactive). During a session it also has one switch per
// feature of the session's AccessibilityShortcut (Screen Reader, Zoom...),
// each calling ToggleAccessibilityFeature; no passcode needed.
// A window KWin gives the keys to while it is open (KWin5.qml and
// KWin6.qml say how).
import QtQuick 2.15
import QtQuick.Window 2.15
import QtQuick.Controls 2.15
import "../code/contract.js" as Contract
import "../code/geometry.js" as Geometry
import "../code/text.js" as Strings

Item {
    id: script

    property var session: null
    property string startApp: '' // the app a session would be started for
    property string startName: ''
    property string error: ''
    property bool busy: false
    // Features1's values (name → bool), read as the dialog opens and after
    // each toggle's reply: a KWin script cannot follow PropertiesChanged.
    property var features: ({})
    property int toggling: 0 // toggles waiting for their reply
    // The features the person may switch here: the session's
    // AccessibilityShortcut (none without a session).
    readonly property var shortcut: session !== null && session.enabled ? session.accessibilityShortcut : []
    // KWinApi's item: the scripting API of the running KWin.
    property QtObject kwin
    readonly property var desktopRect: kwin.kwinWorkspace.virtualScreenGeometry
    // The monitor the person works on, found as the dialog opens
    // (workArea()); until then the whole desktop.
    property var area: ({x: desktopRect.x, y: desktopRect.y, width: desktopRect.width, height: desktopRect.height})

    // The monitor of the active window, else of the topmost shown app
    // window (during a session that is the locked app's: the others are
    // minimized; with keyboards denied on KWin 6 none is active): the
    // dialog opens where the person looks, whole, not across two monitors.
    function workArea() {
        var all = kwin.windowList();
        var shown = [];
        for (var i = 0; i < all.length; i++) {
            var w = all[i];
            if (w && w.pid > 0 && w.internal !== true && w.normalWindow === true && !w.minimized && w.deleted !== true)
                shown.push(w);
        }
        shown.sort(function (a, b) { return (b.stackingOrder || 0) - (a.stackingOrder || 0); });
        var active = kwin.activeWindow();
        var index = shown.indexOf(active);
        if (index > 0)
            shown.unshift(shown.splice(index, 1)[0]);
        return Geometry.workArea(kwin.outputs(), shown.map(function (w) {
            var g = w.frameGeometry;
            return {x: g.x, y: g.y, width: g.width, height: g.height};
        }), area);
    }

    Bus { id: bus; kwin: script.kwin }

    function close() {
        dialog.visible = false;
        bus.closed = true;
        bus.scripting('unloadScript', ['guidedaccess-dialog']);
    }

    function end() {
        if (busy || session === null)
            return;
        busy = true;
        error = '';
        var options = {};
        if (session.passcodeSet)
            options[Contract.END_OPTIONS.passcode] = passcode.text;
        else
            options[Contract.END_OPTIONS.interactive] = true;
        bus.session('End', [options], function () {
            console.log('Guided Access: dialog: ended');
            script.close();
        }, function () {
            // DBusCall says only that the call failed, not the daemon's message.
            busy = false;
            passcode.text = '';
            error = session.passcodeSet
                ? Strings.tr('Guided Access did not end: the passcode is wrong, or it was tried too often. Wait a moment and try again.')
                : Strings.tr('Guided Access did not end: you are not allowed to end it.');
            console.log('Guided Access: dialog: End refused');
            passcode.forceActiveFocus();
        });
    }

    // Features1's values; done() after they are shown.
    function readFeatures(done) {
        bus.call(Contract.BUS_NAME, Contract.OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'GetAll',
            [Contract.INTERFACES.features], function (values) {
                var next = {};
                var all = values[0] || {};
                for (var name in all)
                    next[name] = all[name] === true;
                script.features = next;
                console.log('Guided Access: dialog: shows ' + script.shortcut.map(function (feature) {
                    return feature + '=' + (next[feature] === true ? 'on' : 'off');
                }).join(' '));
                if (done)
                    done();
            }, function () {
                console.log('Guided Access: dialog: the features could not be read');
            });
    }

    // The person switched `feature`: the daemon sets it (and puts it back
    // when the session ends); the switch then shows what the daemon says.
    function toggleFeature(feature, enabled) {
        toggling++;
        console.log('Guided Access: dialog: ' + feature + ' ' + (enabled ? 'on' : 'off') + ' asked');
        var settle = function () { script.toggling--; };
        bus.session('ToggleAccessibilityFeature', [feature, enabled], function () {
            script.readFeatures(settle);
        }, function () {
            console.log('Guided Access: dialog: ToggleAccessibilityFeature(' + feature + ') refused');
            script.error = Strings.tr('%1 could not be switched.', Strings.featureName(feature));
            script.readFeatures(settle);
        });
    }

    function start() {
        if (busy || startApp === '')
            return;
        busy = true;
        error = '';
        var options = {};
        options[Contract.START_OPTIONS.interactive] = true;
        bus.session('Start', [startApp, options], function () {
            console.log('Guided Access: dialog: started for ' + startApp);
            script.close();
        }, function () {
            busy = false;
            error = Strings.tr('Guided Access could not start for this app.');
            console.log('Guided Access: dialog: Start refused');
        });
    }

    // The app's id may come after the dialog is shown: the Start button
    // appears then, and takes the focus (Enter presses it).
    onStartAppChanged: {
        if (dialog.visible && startApp !== '' && !(session !== null && session.enabled))
            primary.forceActiveFocus();
    }

    function submit() {
        if (session !== null && session.enabled)
            end();
        else
            start();
    }

    Component.onCompleted: {
        area = workArea();
        console.log('Guided Access: dialog: on the monitor ' + JSON.stringify(area));
        var active = kwin.activeWindow();
        if (active && active.pid > 0 && active.internal !== true) {
            startName = active.caption;
            bus.session('GetAppIds', [active.pid], function (values) {
                if (values[0] && values[0].length > 0)
                    script.startApp = values[0][0];
            });
        }
        bus.readSession(function (session) {
            script.session = session;
            console.log('Guided Access: dialog: shown (' + (script.session && script.session.enabled ? 'end' : 'start') + ')'
                + '; accessibility switches: ' + (script.shortcut.length > 0 ? script.shortcut.join(' ') : 'none'));
            if (script.shortcut.length > 0)
                script.readFeatures();
            dialog.visible = true;
            dialog.requestActivate();
            if (script.session && script.session.enabled && script.session.passcodeSet)
                passcode.forceActiveFocus();
            else
                primary.forceActiveFocus();
        }, function () {
            script.session = null;
            script.error = Strings.tr('Guided Access is not available.');
            dialog.visible = true;
            dialog.requestActivate();
            cancel.forceActiveFocus();
        });
    }

    Window {
        id: dialog
        title: Strings.tr('Guided Access')
        flags: kwin.keyWindowFlags | Qt.WindowStaysOnTopHint
        transientParent: null // as in Blocker.qml
        modality: Qt.ApplicationModal
        // Its size follows its content; the person cannot change it. (Bound
        // to the content, not to `height`: Qt 6 would see a binding loop
        // and keep the first height.)
        readonly property int contentHeight: layout.implicitHeight + 40
        width: 420
        height: contentHeight
        minimumHeight: contentHeight
        maximumHeight: contentHeight
        minimumWidth: 420
        maximumWidth: 420
        visible: false
        color: systemPalette.window
        x: Geometry.placeIn(script.area, width, height, 1 / 3).x
        y: Geometry.placeIn(script.area, width, height, 1 / 3).y

        SystemPalette { id: systemPalette }

        // However it goes: closed, or (KWin 6) a popup that KWin closes
        // when a click lands outside it.
        onVisibleChanged: {
            if (!visible && !bus.closed)
                script.close();
        }

        Shortcut {
            sequence: 'Escape'
            onActivated: script.close()
        }

        Column {
            id: layout
            x: 20
            y: 20
            width: parent.width - 40
            spacing: 12

            Label {
                width: parent.width
                wrapMode: Text.Wrap
                font.bold: true
                text: script.session !== null && script.session.enabled
                    ? Strings.tr('End Guided Access')
                    : Strings.tr('Start Guided Access')
                Accessible.role: Accessible.Heading
                Accessible.name: text
            }
            Label {
                width: parent.width
                wrapMode: Text.Wrap
                text: script.session !== null && script.session.enabled
                    ? (script.session.passcodeSet ? Strings.tr('Enter the passcode to end Guided Access.')
                                                  : Strings.tr('End Guided Access? You may be asked to authenticate.'))
                    : (script.startApp !== ''
                        ? Strings.tr('Lock the screen to "%1"? Only this app will be reachable until Guided Access ends.', script.startName)
                        : Strings.tr('Guided Access can start for the app whose window is active.'))
                Accessible.role: Accessible.StaticText
                Accessible.name: text
            }
            TextField {
                id: passcode
                width: parent.width
                visible: script.session !== null && script.session.enabled && script.session.passcodeSet
                echoMode: TextInput.Password
                placeholderText: Strings.tr('Passcode')
                enabled: !script.busy
                Accessible.role: Accessible.EditableText
                Accessible.name: Strings.tr('Passcode')
                Accessible.passwordEdit: true
                onAccepted: script.submit()
            }
            Label {
                id: errorLabel
                width: parent.width
                visible: script.error !== ''
                wrapMode: Text.Wrap
                color: '#c0392b'
                text: script.error
                Accessible.role: Accessible.AlertMessage
                Accessible.name: text
            }
            Label {
                width: parent.width
                visible: script.shortcut.length > 0
                wrapMode: Text.Wrap
                font.bold: true
                text: Strings.tr('Accessibility')
                Accessible.role: Accessible.Heading
                Accessible.name: text
            }
            // One switch per feature of the shortcut, in its order: Tab
            // reaches each, Space switches it. It shows the daemon's value:
            // a toggle puts the binding back at once, and the switch moves
            // when the reply's reading comes.
            Repeater {
                model: script.shortcut
                Switch {
                    width: layout.width
                    text: Strings.featureName(modelData)
                    checked: script.features[modelData] === true
                    Accessible.role: Accessible.CheckBox
                    Accessible.name: text
                    onToggled: {
                        var wanted = checked;
                        checked = Qt.binding(function () { return script.features[modelData] === true; });
                        script.toggleFeature(modelData, wanted);
                    }
                }
            }
            Row {
                anchors.right: parent.right
                spacing: 8
                Button {
                    id: cancel
                    text: Strings.tr('Cancel')
                    Accessible.name: text
                    onClicked: script.close()
                    Keys.onReturnPressed: script.close()
                }
                Button {
                    id: primary
                    visible: (script.session !== null && script.session.enabled) || script.startApp !== ''
                    enabled: !script.busy
                    highlighted: true
                    text: script.session !== null && script.session.enabled
                        ? Strings.tr('End')
                        : Strings.tr('Start Guided Access')
                    Accessible.name: text
                    onClicked: script.submit()
                    Keys.onReturnPressed: script.submit()
                    Keys.onEnterPressed: script.submit()
                }
            }
        }
    }
}
