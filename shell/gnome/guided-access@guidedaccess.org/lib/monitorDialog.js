// SPDX-License-Identifier: GPL-2.0-or-later
// Making, opening and closing the extension's shell modal dialogs: one is
// opened on a given monitor, told when closing, and destroyed a frame after
// it closes. ModalDialog puts itself on the pointer's monitor as it opens
// (its _monitorConstraint, GNOME 43 to 50); in a session the pointer may
// rest on a shielded monitor, and the start sheet belongs beside the app it
// is for.

import {NextFrame} from './nextFrame.js';

// A ModalDialog (deps: {ModalDialog, GLib, global}) that, once closed, is
// hidden at once and destroyed after the shell's next frame is painted.
// Destroying a dialog of many widgets takes longer than a frame on a slow
// machine (the start sheet: 12 ms on GNOME 48 here, some 60 under load),
// and the frame that follows its closing often carries a lock (Start on
// the sheet, End in the end dialog): that frame then waits for nothing.
export function newDialog(deps, params) {
    const dialog = new deps.ModalDialog.ModalDialog({...params, destroyOnClose: false});
    const nextFrame = new NextFrame(deps);
    dialog.connect('closed', () => nextFrame.run(() => dialog.destroy()));
    dialog.connect('destroy', () => nextFrame.destroy());
    return dialog;
}

// index: a monitor's index, or -1 to leave the dialog where it opens.
// False when the dialog could not take the keyboard and pointer (another
// grab holds them) and so did not open.
export function openOnMonitor(dialog, index) {
    if (!dialog.open())
        return false;
    if (index >= 0 && dialog._monitorConstraint)
        dialog._monitorConstraint.index = index;
    return true;
}

// Whether a ModalDialog (of the module ModalDialog) is closing or closed:
// a closing one leaves the stage only in the shell's next frame, and the
// next dialog may open meanwhile.
export function isClosing(dialog, ModalDialog) {
    const {State} = ModalDialog;
    return [State.CLOSING, State.CLOSED].includes(dialog.state);
}
