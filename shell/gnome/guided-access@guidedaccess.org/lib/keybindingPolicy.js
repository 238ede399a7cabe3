// SPDX-License-Identifier: GPL-2.0-or-later
// Which keybindings still run while a session is enforced. Deny by
// default: mutter asks the shell's 'filter-keybinding' handlers about every
// binding it is about to run (its own, the shell's, the extensions' and the
// accelerators that gnome-settings-daemon grabs through the shell, named
// `external-grab-N`), so a binding that is not listed here does nothing,
// whichever schema declared it and whatever key it is bound to. Pure logic:
// tests/unit.js checks it against every installed keybinding schema.

// Switching between the locked app's own windows (Alt+`, ...): part of
// using the app, so allowed unless 'app-switching' is denied.
export const OWN_WINDOW_BINDINGS = ['switch-group', 'switch-group-backward', 'cycle-group', 'cycle-group-backward'];

// Alt+Tab, Alt+Esc and the window switcher: allowed only when the session
// has apps besides App to switch to (AlsoAllowed) and 'app-switching' is
// allowed; the switchers then list only the reachable apps' windows
// (switcherFilter.js).
export const APP_SWITCHER_BINDINGS = [
    'switch-applications', 'switch-applications-backward', 'switch-windows', 'switch-windows-backward',
    'cycle-windows', 'cycle-windows-backward',
];

// gnome-settings-daemon's media keys reach the shell as external grabs; of
// those only the volume keys are left to 'volume-buttons' (the daemon
// empties their GSettings keys when it is denied). Keysyms from
// xkbcommon-keysyms.h: XF86AudioLowerVolume, Mute, RaiseVolume, MicMute.
export const VOLUME_KEYSYMS = [0x1008ff11, 0x1008ff12, 0x1008ff13, 0x1008ffb2];
const EXTERNAL_GRAB_PREFIX = 'external-grab-';

// name: the binding's name; keysym: the key that triggered it (0 when not
// known); allowed: {endShortcut: our own binding's name, appSwitching,
// switchApps, volumeButtons} (true = the person may use them).
export function bindingAllowed(name, keysym, allowed) {
    if (name === allowed.endShortcut)
        return true;
    if (OWN_WINDOW_BINDINGS.includes(name))
        return allowed.appSwitching;
    if (APP_SWITCHER_BINDINGS.includes(name))
        return allowed.switchApps === true;
    if (name.startsWith(EXTERNAL_GRAB_PREFIX))
        return allowed.volumeButtons && VOLUME_KEYSYMS.includes(keysym);
    return false;
}
