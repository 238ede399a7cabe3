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

// KWin's magnifier (ui/Magnifier.qml): the effect "zoom", driven through its
// global shortcuts (component "kwin"), which are KDE's standard zoom
// actions and keep these names on KWin 5.27 and 6. A session's Zoom
// magnifies at least MAGNIFICATION times, as GNOME's magnifier does by
// default (the same Features1.Zoom turns that on).
var ZOOM_EFFECT = 'zoom';
var ZOOM_IN = 'view_zoom_in';
var ZOOM_ACTUAL_SIZE = 'view_actual_size';
var MAGNIFICATION = 2;

// KWin's colour inversion (ui/Inverter.qml): the effect "invert", switched
// for the whole screen with its global shortcut (component "kwin"; the same
// name on KWin 5.27 and 6). Loaded, it inverts nothing until that shortcut;
// it is active (activeEffects) while it inverts.
var INVERT_EFFECT = 'invert';
var INVERT_SCREEN = 'Invert';

// Whether the effect `name` is among `active` (org.kde.KWin /Effects
// activeEffects, a list Qt made or an array).
function isActive(active, name) {
    return Array.prototype.indexOf.call(active || [], name) >= 0;
}

// Whether KWin's zoom and invert effects can draw with the compositing KWin
// reports (org.kde.KWin /Compositor compositingType: "gl2", "gles",
// "qpainter", "none"): they draw with OpenGL only.
function effectRunsWith(compositingType) {
    return /^gl/.test(String(compositingType));
}

// An effect's properties from org.kde.KWin /Effects supportInformation
// (its name, then one "property: value" line each) as name → number (a
// value that is no number is left out); {} for an empty or odd text.
function effectProperties(text) {
    var properties = {};
    var lines = String(text || '').split('\n');
    for (var i = 1; i < lines.length; i++) {
        var match = /^\s*(\w+):\s*(.*?)\s*$/.exec(lines[i]);
        if (match && match[2] !== '' && isFinite(Number(match[2])))
            properties[match[1]] = Number(match[2]);
    }
    return properties;
}

// How many of the zoom effect's zoom-in steps (each multiplies the zoom by
// `factor`, its zoomFactor) take it from actual size to at least
// MAGNIFICATION: at least one, at most 10; one for an unknown factor (one
// of 1 or less never gets there).
function zoomSteps(factor) {
    if (!(factor > 1))
        return 1;
    var steps = Math.ceil(Math.log(MAGNIFICATION) / Math.log(factor) - 1e-9);
    return Math.min(10, Math.max(1, steps));
}
