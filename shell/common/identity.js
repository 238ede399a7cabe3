// SPDX-License-Identifier: GPL-2.0-or-later
// Whether a window belongs to the session's app (or to one of the apps the
// person may reach): the one rule both enforcers apply to the ids guided-accessd's GetAppIds gives a window's
// process (see session.js for how this file reaches each shell). Pure
// logic, unit tested once in shell/tests/common.js.

// true, false, or undefined while not known: `ids` is undefined while the
// daemon has not answered, null when it refused (a process of another user,
// a pid gone), which counts as "not the app's" (fail closed). `app` is one
// app id or a list of them (session.js's reachableApps): any one matches.
export function belongsToApp(ids, app) {
    if (ids === undefined)
        return undefined;
    if (ids === null)
        return false;
    var apps = Array.isArray(app) ? app : [app];
    for (var i = 0; i < ids.length; i++) {
        if (ids[i] !== '' && apps.indexOf(ids[i]) >= 0)
            return true;
    }
    return false;
}

// The app's presence from whether each of the windows belongs (true, false,
// undefined): 'unknown' while some are not known yet, else 'present' or
// 'gone' (no window of the app).
export function appPresence(answers) {
    if (answers.includes(undefined))
        return 'unknown';
    return answers.includes(true) ? 'present' : 'gone';
}
