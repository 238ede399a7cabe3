// SPDX-License-Identifier: GPL-2.0-or-later
// The end and start gesture, like iOS's triple-click: Meta+Alt+Escape
// pressed three times within one second opens the Guided Access dialog
// (ui/dialog/DialogScript.qml, a declarative script of its own, loaded as
// "guidedaccess-dialog"). A plain KWin script, loaded by ui/main.qml as
// "guidedaccess-gesture": in KWin 5.27 only a script's registerShortcut
// gives a global shortcut, and kglobalaccel's blockGlobalShortcuts(true),
// which the session needs, also blocks every shortcut registered before
// it, so main.qml loads this script again after each block.
//
// shell/kde/install writes the dialog's absolute path in place of the
// placeholder below. The triple-press timing is pure and unit tested
// (shell/kde/tests/unit.js loads this file with stand-ins for KWin's
// functions).

var DIALOG_PATH = '@GESTURE_DIALOG@';
var DIALOG_NAME = 'guidedaccess-dialog';
var GESTURE_SHORTCUT = 'Meta+Alt+Escape';
var PRESSES = 3;
var PRESS_WINDOW_MS = 1000;

// The presses (ms) still counting at `now`, with this one; `complete` when
// they make a triple press (the count then starts again).
function press(presses, now) {
    var recent = presses.filter(function (time) { return now - time < PRESS_WINDOW_MS && now >= time; });
    recent.push(now);
    if (recent.length >= PRESSES)
        return {presses: [], complete: true};
    return {presses: recent, complete: false};
}

var scripting = ['org.kde.KWin', '/Scripting', 'org.kde.kwin.Scripting'];
var recentPresses = [];

// Opens the dialog; one already open is made again, on top: KWin stacks
// its scripts' windows in the order they are shown, so a shield reshaped
// while the dialog was open (another app opened a window) may cover it.
function openDialog() {
    callDBus(scripting[0], scripting[1], scripting[2], 'unloadScript', DIALOG_NAME, function (wasOpen) {
        if (wasOpen)
            print('Guided Access: gesture: the dialog was open; shown again on top');
        callDBus(scripting[0], scripting[1], scripting[2], 'loadDeclarativeScript', DIALOG_PATH, DIALOG_NAME, function (id) {
            print('Guided Access: gesture: dialog loaded as script ' + id);
            callDBus(scripting[0], scripting[1], scripting[2], 'start');
        });
    });
}

registerShortcut('Guided Access gesture', 'Guided Access: end or start (press three times within a second)',
    GESTURE_SHORTCUT, function () {
        var result = press(recentPresses, Date.now());
        recentPresses = result.presses;
        print('Guided Access: gesture: press' + (result.complete ? ' (triple)' : ''));
        if (result.complete)
            openDialog();
    });
print('Guided Access: gesture: ready (' + GESTURE_SHORTCUT + ' three times)');
