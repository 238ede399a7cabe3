// SPDX-License-Identifier: GPL-2.0-or-later
// The session as the daemon publishes it, and the time it has left: the
// logic both enforcers need, written once. An ES module for the GNOME
// Shell extension (lib/ imports ../common/session.js); the KWin scripts get
// it as a plain script (shell/kde/install drops the `export` keywords and
// makes the namespace import below QML's `.import "contract.js" as
// Contract`, as QML's JavaScript imports take them), so it keeps to what
// both engines run: var, function declarations, no optional chaining. Pure
// logic, unit tested once in shell/tests/common.js.

import * as Contract from './contract.js';

// The session, or null when `properties` is not a map (a reply that is not
// what the contract says changes nothing: the caller keeps what it has).
// `properties` is GetAll's reply as KWin's DBusCall hands it over (a map of
// plain values: structures and arrays as arrays), or the extension's
// session proxy (lib/daemon.js: a property is null while the daemon has
// not sent it).
export function sessionFrom(properties) {
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
        return null;
    // Each property read once: on the extension's proxy a read is a GVariant
    // looked up and unpacked (three reads each took 2 ms of Cinnamon's Start).
    var value = function (name, fallback) {
        var read = properties[name];
        return read === undefined || read === null ? fallback : read;
    };
    var restrictions = value('SystemRestrictions', {});
    return {
        enabled: value('Enabled', false) === true,
        state: String(value('State', 'inactive')),
        app: String(value('App', '')),
        startedAt: Number(value('StartedAt', 0)), // µs of the real-time clock
        timeLimit: Number(value('TimeLimit', 0)), // s, 0 for none
        passcodeSet: value('PasscodeSet', false) === true,
        systemRestrictions: typeof restrictions === 'object' ? restrictions : {},
        regions: regionsFrom(value('DisabledRegions', [])),
        presentation: String(value('Presentation', 'as-is')),
        enforcers: value('Enforcers', {}),
        mode: String(value('Mode', '')),
        alsoAllowed: listOfStrings(value('AlsoAllowed', [])),
        accessibilityShortcut: listOfStrings(value('AccessibilityShortcut', [])),
        assessment: assessmentFrom(value('Assessment', {})),
    };
}

// The `Assessment` property (a{sv} under BeginAssessment's keys) as
// {participants, allowsScreenCapture, allowsClipboard, allowsNotifications,
// allowsAccessibilitySpeech, keepAccessibility, allowsSpellCheck,
// timeLimit}, or null without an assessment (`{}`, or not a map). The
// extension's proxy leaves each value a GLib.Variant (unpacked here);
// KWin's DBusCall gives plain values. A key missing takes the daemon's
// default; an `allows-` key that is not the boolean true allows nothing
// (fail closed), `keep-accessibility` keeps unless it is the boolean false.
export function assessmentFrom(map) {
    if (map === null || typeof map !== 'object' || Array.isArray(map))
        return null;
    var keys = Object.keys(map);
    if (keys.length === 0)
        return null;
    // The daemon's keys as contract.js names them (generated from its
    // declarations), so that none is spelt here.
    var KEY = Contract.ASSESSMENT_OPTIONS;
    var plain = function (key) {
        var v = map[key];
        return v !== null && typeof v === 'object' && typeof v.recursiveUnpack === 'function' ? v.recursiveUnpack() : v;
    };
    var limit = Number(plain(KEY.timeLimit));
    return {
        participants: listOfStrings(plain(KEY.participants)),
        allowsScreenCapture: plain(KEY.allowsScreenCapture) === true,
        allowsClipboard: plain(KEY.allowsClipboard) === true,
        allowsNotifications: plain(KEY.allowsNotifications) === true,
        allowsAccessibilitySpeech: plain(KEY.allowsAccessibilitySpeech) === true,
        keepAccessibility: plain(KEY.keepAccessibility) !== false,
        allowsSpellCheck: plain(KEY.allowsSpellCheck) === true,
        timeLimit: isFinite(limit) && limit > 0 ? limit : 0, // s, 0 for none
    };
}

// Whether `session` is an assessment that does not allow `what` (a field
// of session.assessment: 'allowsScreenCapture', 'allowsClipboard', ...):
// what its enforcer then switches off. False without a session or an
// assessment.
export function assessmentDenies(session, what) {
    return session !== null && session !== undefined && session.enabled === true &&
        session.assessment !== null && session.assessment !== undefined && session.assessment[what] !== true;
}

// The apps whose windows the person may reach: the session's app first,
// then AlsoAllowed (without repeats); [] without a session.
export function reachableApps(session) {
    if (!session || !session.enabled || session.app === '')
        return [];
    var apps = [session.app];
    for (var i = 0; i < session.alsoAllowed.length; i++) {
        if (apps.indexOf(session.alsoAllowed[i]) < 0)
            apps.push(session.alsoAllowed[i]);
    }
    return apps;
}

// A list of strings from an `as` property; anything else gives []. KWin's
// DBusCall hands an `as` over as a Qt string list, which KWin 5.27's engine
// does not count as an array: any list-like object (a numeric length, not
// a string) is taken.
function listOfStrings(list) {
    var strings = [];
    var listLike = list !== null && typeof list === 'object' && typeof list.length === 'number';
    for (var i = 0; listLike && i < list.length; i++) {
        if (typeof list[i] === 'string')
            strings.push(list[i]);
    }
    return strings;
}

// DisabledRegions (a(iiii)) as [{x, y, width, height}], without empty ones.
export function regionsFrom(list) {
    var regions = [];
    for (var i = 0; list && i < list.length; i++) {
        var r = list[i];
        var region = r && r.length === 4
            ? {x: Number(r[0]), y: Number(r[1]), width: Number(r[2]), height: Number(r[3])}
            : r && typeof r === 'object' ? {x: Number(r.x), y: Number(r.y), width: Number(r.width), height: Number(r.height)}
                : null;
        if (region !== null && region.width > 0 && region.height > 0)
            regions.push(region);
    }
    return regions;
}

// Whether `name` ('touch', 'notifications', ...) is denied in `session`.
export function denied(session, name) {
    return session !== null && session.systemRestrictions[name] === 'deny';
}

// Whole seconds left of `session`'s time limit at `nowUs` (µs of the
// real-time clock, as StartedAt), 0 without a limit or once it is up.
export function remainingSeconds(session, nowUs) {
    if (session === null || session.timeLimit === 0)
        return 0;
    var end = session.startedAt + session.timeLimit * 1000000;
    return Math.max(0, Math.ceil((end - nowUs) / 1000000));
}

// "1:05:09", "5:09", "0:09".
export function formatRemaining(seconds) {
    var h = Math.floor(seconds / 3600);
    var m = Math.floor(seconds / 60) % 60;
    var s = seconds % 60;
    var pad = function (n) { return n < 10 ? '0' + n : String(n); };
    return h > 0 ? h + ':' + pad(m) + ':' + pad(s) : m + ':' + pad(s);
}

// The warnings of the daemon's TimeLimitWarning (5 min, 1 min, 10 s).
export var WARNINGS = [300, 60, 10];

// The warning crossed going from `before` to `after` seconds left (the
// smallest, if several were), or 0. `before` is null at the first reading:
// nothing was crossed then.
export function warningCrossed(before, after) {
    if (before === null || after >= before)
        return 0;
    var crossed = 0;
    for (var i = 0; i < WARNINGS.length; i++) {
        if (before > WARNINGS[i] && after <= WARNINGS[i] && after > 0)
            crossed = WARNINGS[i];
    }
    return crossed;
}

// Why a shield covers the screen: 'expired' (the time is up), 'app-gone'
// (the locked app cannot be brought back: `appUnreachable`, where the
// enforcer relaunches apps), or null for no shield.
export function shieldReason(session, appUnreachable) {
    if (session === null || !session.enabled)
        return null;
    if (session.state === 'expired')
        return 'expired';
    return appUnreachable ? 'app-gone' : null;
}
