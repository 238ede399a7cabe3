// SPDX-License-Identifier: GPL-2.0-or-later
// What the start sheet chooses, and how it travels: from GetLastOptions (the
// daemon's memory of the app's last session) or the defaults into the
// sheet, and from the sheet into Start's options. No shell here, so plain
// gjs tests it (tests/unit.js).
//
// A choice is {regions: [{x, y, width, height}] in stage pixels,
// system: {restriction: 'allow'|'deny'}, app: {identifier: 'allow'|'deny'},
// timeLimit: seconds (0 = none), presentation, autoLock: seconds (-1 = the
// desktop's own, 0 = never), alsoAllowed: [app id] (the other apps the
// person may reach), accessibilityShortcut: [feature] (the features the
// person may switch during the session)}.

import {
    AUTO_LOCK, DEFAULT_ACCESSIBILITY_SHORTCUT, PRESENTATION, PRESENTATIONS, RESTRICTION_STATE, START_OPTIONS, SYSTEM_RESTRICTION,
    SYSTEM_RESTRICTIONS as CONTRACT_RESTRICTIONS,
} from '../common/contract.js';

// The eight system restrictions, in the contract's order, which the sheet
// shows, with the state a new app starts with. Like iOS's defaults, the
// hardware buttons are off; unlike iOS, keyboards and the pointer work, as
// desktop apps need them. Notifications and the system menu lead out of
// the app.
const DENIED_AT_FIRST = [SYSTEM_RESTRICTION.sleepWakeButton, SYSTEM_RESTRICTION.notifications, SYSTEM_RESTRICTION.powerMenu];
export const SYSTEM_RESTRICTIONS = CONTRACT_RESTRICTIONS.map(name =>
    [name, DENIED_AT_FIRST.includes(name) ? RESTRICTION_STATE.deny : RESTRICTION_STATE.allow]);

const OPTION = START_OPTIONS;

// The features the sheet offers for the accessibility shortcut: the
// daemon's default ones first, then those of the shell's own accessibility
// menu (High Contrast, Visual Alerts, the keyboard and mouse aids).
export const SHORTCUT_FEATURES = [...DEFAULT_ACCESSIBILITY_SHORTCUT, ...[
    'IncreaseContrast', 'VisualBell', 'StickyKeys', 'SlowKeys', 'BounceKeys', 'MouseKeys',
].filter(feature => !DEFAULT_ACCESSIBILITY_SHORTCUT.includes(feature))];

// `last`: GetLastOptions' reply, recursively unpacked ({} when none);
// `defaults`: {autoLock} from the extension's settings and
// {accessibilityShortcut}, what the daemon offers a session started
// without its own list (its AccessibilityShortcut without a session:
// managed.json's, else the default); `appRows`: the app's registered
// restrictions, [{identifier, state}].
export function choicesFrom(last, defaults, appRows) {
    const system = Object.fromEntries(SYSTEM_RESTRICTIONS.map(([name, state]) =>
        [name, stateOf(last[OPTION.systemRestrictions]?.[name], state)]));
    const app = Object.fromEntries(appRows.map(row =>
        [row.identifier, stateOf(last[OPTION.restrictions]?.[row.identifier], row.state)]));
    const regions = (last[OPTION.disabledRegions] ?? []).map(([x, y, width, height]) => ({x, y, width, height}));
    const defaultShortcut = stringsOf(defaults.accessibilityShortcut) ?? [...DEFAULT_ACCESSIBILITY_SHORTCUT];
    return {
        regions,
        system,
        app,
        timeLimit: Number(last[OPTION.timeLimit] ?? 0),
        presentation: PRESENTATIONS.includes(last[OPTION.presentation]) ? last[OPTION.presentation] : PRESENTATION.asIs,
        autoLock: Number(last[OPTION.autoLock] ?? defaults.autoLock ?? AUTO_LOCK.desktop),
        alsoAllowed: stringsOf(last[OPTION.alsoAllowed]) ?? [],
        accessibilityShortcut: stringsOf(last[OPTION.accessibilityShortcut]) ?? [...defaultShortcut],
        defaultShortcut,
    };
}

// A list of strings, or null for anything else.
function stringsOf(value) {
    return Array.isArray(value) && value.every(item => typeof item === 'string') ? [...value] : null;
}

// Whether two lists hold the same strings, in any order.
function sameSet(a, b) {
    return a.length === b.length && a.every(item => b.includes(item));
}

function stateOf(value, fallback) {
    return Object.values(RESTRICTION_STATE).includes(value) ? value : fallback;
}

// Start's options for `choice` (GLib is passed in: GLib.Variant).
export function startOptions(GLib, choice) {
    const options = {
        [OPTION.interactive]: new GLib.Variant('b', true),
        [OPTION.systemRestrictions]: new GLib.Variant('a{ss}', choice.system),
        [OPTION.presentation]: new GLib.Variant('s', choice.presentation),
        [OPTION.autoLock]: new GLib.Variant('x', choice.autoLock),
    };
    if (choice.regions.length > 0) {
        options[OPTION.disabledRegions] = new GLib.Variant('a(iiii)',
            choice.regions.map(r => [r.x, r.y, r.width, r.height]));
    }
    if (Object.keys(choice.app).length > 0)
        options[OPTION.restrictions] = new GLib.Variant('a{ss}', choice.app);
    if (choice.timeLimit > 0)
        options[OPTION.timeLimit] = new GLib.Variant('t', choice.timeLimit);
    if (choice.alsoAllowed.length > 0)
        options[OPTION.alsoAllowed] = new GLib.Variant('as', choice.alsoAllowed);
    // The daemon's default set is left to it (it may be the administrator's,
    // managed.json's AccessibilityShortcut, which may change meanwhile).
    if (!sameSet(choice.accessibilityShortcut, choice.defaultShortcut))
        options[OPTION.accessibilityShortcut] = new GLib.Variant('as', choice.accessibilityShortcut);
    return options;
}

// Hours and minutes of a time limit, and back.
export function splitTime(seconds) {
    return {hours: Math.floor(seconds / 3600), minutes: Math.floor(seconds / 60) % 60};
}

export function joinTime(hours, minutes) {
    return (hours * 60 + minutes) * 60;
}
