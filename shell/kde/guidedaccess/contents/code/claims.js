// SPDX-License-Identifier: GPL-2.0-or-later
// What the KWin enforcer says it enforces (RegisterEnforcer("kwin", ...)):
// exactly what it does and what its tests check (README.md says why the
// rest is left out); and how the daemon nudges it. Pure logic, unit
// tested in shell/kde/tests/unit.js.
.import "contract.js" as Contract

var ENFORCER_NAME = 'kwin';

// The global shortcut (no key) the daemon invokes through kglobalaccel when
// the session changes (Sources/GuidedAccessService/EnforcerNudge.swift).
var NUDGE_SHORTCUT = 'Guided Access session changed';

var CLAIMS = [Contract.CAPABILITY.appLock, Contract.CAPABILITY.disabledRegions, Contract.SYSTEM_RESTRICTION.appSwitching,
    Contract.SYSTEM_RESTRICTION.notifications, Contract.SYSTEM_RESTRICTION.powerMenu, Contract.SYSTEM_RESTRICTION.touch,
    Contract.SYSTEM_RESTRICTION.keyboards, Contract.CAPABILITY.alsoAllowed, Contract.CAPABILITY.accessibilityShortcut,
    // An assessment is a session locked to the exam app and its
    // participants (AlsoAllowed), which the lock above keeps: so the script
    // may say it keeps assessments, and when it goes during one (unloaded,
    // disabled) the daemon tells the exam app it was interrupted. Not
    // screen-capture or clipboard: a script cannot stop them (README.md).
    Contract.CAPABILITY.assessment];

// Whether the daemon's Enforcers property (name → list) lacks our claims as
// they are now (a restarted daemon has forgotten them; a call replaced them).
function needsRegistration(enforcers, name, claims) {
    var current = enforcers && typeof enforcers === 'object' ? enforcers[name] : undefined;
    if (current === undefined || current === null || current.length !== claims.length)
        return true;
    for (var i = 0; i < claims.length; i++) {
        if (current[i] !== claims[i])
            return true;
    }
    return false;
}
