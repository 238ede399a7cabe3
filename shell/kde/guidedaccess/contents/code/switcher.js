// SPDX-License-Identifier: GPL-2.0-or-later
// The task switcher during a session with other apps the person may reach
// (AlsoAllowed) and app-switching not denied: a plain KWin script,
// "guidedaccess-switcher", that ui/ShortcutBlock.qml loads after
// kglobalaccel's blockGlobalShortcuts(true). The block silences every
// global shortcut; registering one of KWin's own again (the same component
// "kwin" and name) makes kglobalaccel listen to its keys again, and when
// they are pressed it triggers the action KWin registered first: KWin's own
// task switcher, not the empty callbacks below. Only these two come back;
// the app lock leaves other apps' windows out of the switcher
// (skipSwitcher) and minimizes any that is activated all the same.
//
// kglobalaccel listens to a shortcut again only when it is registered while
// "not present": ShortcutBlock first makes these two not present
// (org.kde.KGlobalAccel setInactive), then loads this script. Its actions
// go with the script, and kglobalaccel then makes the shortcuts not present
// again, which the unblock does not undo: so the script stays loaded after
// the session (it does nothing of its own), and is only replaced by the
// next session that wants it, never unloaded outside one, where that would
// leave Alt+Tab dead until KWin restarts.

var SWITCHER_SHORTCUTS = [
    ['Walk Through Windows', 'Walk Through Windows', 'Alt+Tab'],
    ['Walk Through Windows (Reverse)', 'Walk Through Windows (Reverse)', 'Alt+Shift+Backtab'],
];

for (var i = 0; i < SWITCHER_SHORTCUTS.length; i++)
    registerShortcut(SWITCHER_SHORTCUTS[i][0], SWITCHER_SHORTCUTS[i][1], SWITCHER_SHORTCUTS[i][2], function () {});
print('Guided Access: switcher: Alt+Tab listened to again (reachable apps only)');
