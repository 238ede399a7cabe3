// SPDX-License-Identifier: GPL-2.0-or-later
// The session as the daemon publishes it, read from its properties, and
// the time it has left. Pure logic, unit tested in tests/unit.js.

// `properties` is the session proxy (daemon.js): its generated accessors
// give a property's value, or null while the daemon has not sent it.
export function sessionFrom(properties) {
    return {
        enabled: properties.Enabled ?? false,
        state: properties.State ?? 'inactive',
        app: properties.App ?? '',
        startedAt: properties.StartedAt ?? 0, // µs of the real-time clock
        timeLimit: properties.TimeLimit ?? 0, // s, 0 for none
        passcodeSet: properties.PasscodeSet ?? false,
        systemRestrictions: properties.SystemRestrictions ?? {},
        regions: properties.DisabledRegions ?? [],
        presentation: properties.Presentation ?? 'as-is',
    };
}

// Whole seconds left of `session`'s time limit at `nowUs` (real time), 0
// without a limit or once it is up.
export function remainingSeconds(session, nowUs) {
    if (session === null || session.timeLimit === 0)
        return 0;
    const end = session.startedAt + session.timeLimit * 1000000;
    return Math.max(0, Math.ceil((end - nowUs) / 1000000));
}

// "1:05:09", "5:09", "0:09".
export function formatRemaining(seconds) {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor(seconds / 60) % 60;
    const s = seconds % 60;
    const pad = n => String(n).padStart(2, '0');
    return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}
