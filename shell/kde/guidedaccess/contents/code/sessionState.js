// SPDX-License-Identifier: GPL-2.0-or-later
// The session as the daemon publishes it, from the reply of
// org.freedesktop.DBus.Properties.GetAll("org.guidedaccess.GuidedAccess1")
// as KWin's DBusCall hands it over (a map of plain values: structures and
// arrays as arrays). Pure logic: no QML or KWin objects, so both the QML
// (`import "../code/sessionState.js" as SessionState`) and plain gjs
// (shell/kde/tests/unit.js) load it.

// The session, or null when `properties` is not a map (a reply that is not
// what the contract says changes nothing: the caller keeps what it has).
function sessionFrom(properties) {
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
        return null;
    var value = function (name, fallback) {
        return properties[name] === undefined || properties[name] === null ? fallback : properties[name];
    };
    var restrictions = value('SystemRestrictions', {});
    return {
        enabled: value('Enabled', false) === true,
        state: String(value('State', 'inactive')),
        app: String(value('App', '')),
        startedAt: Number(value('StartedAt', 0)), // µs of the real-time clock
        timeLimit: Number(value('TimeLimit', 0)), // s, 0 for none
        timeRemaining: Number(value('TimeRemaining', 0)), // s, when read
        passcodeSet: value('PasscodeSet', false) === true,
        systemRestrictions: typeof restrictions === 'object' ? restrictions : {},
        regions: regionsFrom(value('DisabledRegions', [])),
        presentation: String(value('Presentation', 'as-is')),
        enforcers: value('Enforcers', {}),
    };
}

// DisabledRegions (a(iiii)) as [{x, y, width, height}], without empty ones.
function regionsFrom(list) {
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
function denied(session, name) {
    return session !== null && session.systemRestrictions[name] === 'deny';
}

// Whole seconds left, `elapsedMs` after a reply that said `timeRemaining`;
// 0 without a limit or once it is up.
function remainingSeconds(session, elapsedMs) {
    if (session === null || session.timeLimit === 0)
        return 0;
    return Math.max(0, Math.ceil(session.timeRemaining - elapsedMs / 1000));
}

// "1:05:09", "5:09", "0:09".
function formatRemaining(seconds) {
    var h = Math.floor(seconds / 3600);
    var m = Math.floor(seconds / 60) % 60;
    var s = seconds % 60;
    var pad = function (n) { return n < 10 ? '0' + n : String(n); };
    return h > 0 ? h + ':' + pad(m) + ':' + pad(s) : m + ':' + pad(s);
}

// The warnings of the daemon's TimeLimitWarning (5 min, 1 min, 10 s).
var WARNINGS = [300, 60, 10];

// The warning crossed going from `before` to `after` seconds left (the
// smallest, if several were), or 0. `before` is null at the first reading:
// nothing was crossed then.
function warningCrossed(before, after) {
    if (before === null || after >= before)
        return 0;
    var crossed = 0;
    for (var i = 0; i < WARNINGS.length; i++) {
        if (before > WARNINGS[i] && after <= WARNINGS[i] && after > 0)
            crossed = WARNINGS[i];
    }
    return crossed;
}

// What the shield over the whole screen says: 'expired' (time is up), or
// null for no shield.
function shieldReason(session) {
    return session !== null && session.enabled && session.state === 'expired' ? 'expired' : null;
}
