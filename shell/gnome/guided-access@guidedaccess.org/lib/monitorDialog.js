// SPDX-License-Identifier: GPL-2.0-or-later
// Opening a shell modal dialog on a given monitor. ModalDialog puts itself
// on the pointer's monitor as it opens (its _monitorConstraint, GNOME 43 to
// 50); in a session the pointer may rest on a shielded monitor, and the
// start sheet belongs beside the app it is for.

// index: a monitor's index, or -1 to leave the dialog where it opens.
export function openOnMonitor(dialog, index) {
    dialog.open();
    if (index >= 0 && dialog._monitorConstraint)
        dialog._monitorConstraint.index = index;
}
