// SPDX-License-Identifier: GPL-2.0-or-later
// KWin effects that lead away from the locked app through screen edges,
// touchpad or touch gestures (their keyboard shortcuts are blocked with the
// rest of kglobalaccel): unloaded during a session, only those loaded, and
// loaded back at the end. The daemon also turns them off in kwinrc for the
// session (KWinScreenEdges.leavingEffects, the same names), so that a KWin
// reconfigure does not load them back. Pure logic, unit tested in
// shell/kde/tests/unit.js.

var LEAVING_EFFECTS = ['overview', 'windowview', 'desktopgrid', 'presentwindows', 'cube', 'tileseditor', 'kwin4_effect_cube'];

// The effects of LEAVING_EFFECTS that are loaded (`loaded`: the names
// org.kde.KWin /Effects loadedEffects reports).
function effectsToUnload(loaded) {
    return LEAVING_EFFECTS.filter(function (name) { return Array.prototype.indexOf.call(loaded, name) >= 0; });
}

// KWin's own task switcher shortcuts (component "kwin"), which the switcher
// script (switcher.js) registers again during a session with AlsoAllowed
// apps so that Alt+Tab works among them (ui/ShortcutBlock.qml).
var SWITCHER_SHORTCUTS = ['Walk Through Windows', 'Walk Through Windows (Reverse)'];
