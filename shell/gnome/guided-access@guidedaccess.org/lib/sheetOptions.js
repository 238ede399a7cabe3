// SPDX-License-Identifier: GPL-2.0-or-later
// What the start sheet chooses, and how it travels: from GetLastOptions (the
// daemon's memory of the app's last session) or the defaults into the
// sheet, and from the sheet into Start's options. No shell here, so plain
// gjs tests it (tests/unit.js).
//
// A choice is {regions: [{x, y, width, height}] in stage pixels,
// system: {restriction: 'allow'|'deny'}, app: {identifier: 'allow'|'deny'},
// timeLimit: seconds (0 = none), presentation, autoLock: seconds (-1 = the
// desktop's own, 0 = never)}.

// The eight system restrictions, in the order the sheet shows them, with
// the state a new app starts with. Like iOS's defaults, the hardware
// buttons are off; unlike iOS, keyboards and the pointer work, as desktop
// apps need them. Notifications and the system menu lead out of the app.
export const SYSTEM_RESTRICTIONS = [
    ['sleep-wake-button', 'deny'],
    ['volume-buttons', 'allow'],
    ['motion', 'allow'],
    ['keyboards', 'allow'],
    ['touch', 'allow'],
    ['notifications', 'deny'],
    ['app-switching', 'allow'],
    ['power-menu', 'deny'],
];

export const PRESENTATIONS = ['as-is', 'maximized', 'fullscreen'];
export const AUTO_LOCK_DESKTOP = -1;
export const AUTO_LOCK_NEVER = 0;

// `last`: GetLastOptions' reply, recursively unpacked ({} when none);
// `defaults`: {autoLock} from the extension's settings; `appRows`: the
// app's registered restrictions, [{identifier, state}].
export function choicesFrom(last, defaults, appRows) {
    const system = Object.fromEntries(SYSTEM_RESTRICTIONS.map(([name, state]) =>
        [name, stateOf(last['system-restrictions']?.[name], state)]));
    const app = Object.fromEntries(appRows.map(row =>
        [row.identifier, stateOf(last.restrictions?.[row.identifier], row.state)]));
    const regions = (last['disabled-regions'] ?? []).map(([x, y, width, height]) => ({x, y, width, height}));
    return {
        regions,
        system,
        app,
        timeLimit: Number(last['time-limit'] ?? 0),
        presentation: PRESENTATIONS.includes(last.presentation) ? last.presentation : 'as-is',
        autoLock: Number(last['auto-lock'] ?? defaults.autoLock ?? AUTO_LOCK_DESKTOP),
    };
}

function stateOf(value, fallback) {
    return value === 'allow' || value === 'deny' ? value : fallback;
}

// Start's options for `choice` (GLib is passed in: GLib.Variant).
export function startOptions(GLib, choice) {
    const options = {
        'interactive': new GLib.Variant('b', true),
        'system-restrictions': new GLib.Variant('a{ss}', choice.system),
        'presentation': new GLib.Variant('s', choice.presentation),
        'auto-lock': new GLib.Variant('x', choice.autoLock),
    };
    if (choice.regions.length > 0) {
        options['disabled-regions'] = new GLib.Variant('a(iiii)',
            choice.regions.map(r => [r.x, r.y, r.width, r.height]));
    }
    if (Object.keys(choice.app).length > 0)
        options.restrictions = new GLib.Variant('a{ss}', choice.app);
    if (choice.timeLimit > 0)
        options['time-limit'] = new GLib.Variant('t', choice.timeLimit);
    return options;
}

// Hours and minutes of a time limit, and back.
export function splitTime(seconds) {
    return {hours: Math.floor(seconds / 3600), minutes: Math.floor(seconds / 60) % 60};
}

export function joinTime(hours, minutes) {
    return (hours * 60 + minutes) * 60;
}
