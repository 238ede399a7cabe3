// SPDX-License-Identifier: GPL-2.0-or-later
// The dialog the gesture opens during a session: the passcode (or, without
// one, an administrator's confirmation through polkit) ends it, and the
// session's accessibility switches are there without it (AccessibilityRows).
// Cinnamon's own modal dialog with its run dialog's style classes (a
// heading, a line of text, an entry, an error line), so it looks like
// Cinnamon's Alt+F2; the keyboard alone works it (the passcode field has
// the focus, Tab reaches the switches, Return ends, Escape cancels) and a
// screen reader names every part.

import {AccessibilityRows} from './accessibilityRows.js';
import {END_OPTIONS} from '../common/contract.js';

export class EndDialog {
    // session: the session enforced (common/session.js); monitor: the index
    // of the monitor to open on (the working one); closed(): called once
    // the dialog is gone.
    constructor(deps, service, session, monitor, closed) {
        const {_, St, Clutter, ModalDialog, global} = deps;
        this._deps = deps;
        this._service = service;
        this._closed = closed;
        this._dialog = new ModalDialog.ModalDialog({styleClass: 'run-dialog'});
        // The actor with the dialog role: Cinnamon 6 made the dialog an actor
        // itself (which close() destroys); Cinnamon 5 keeps one in _group.
        this._actor = this._dialog instanceof Clutter.Actor ? this._dialog : this._dialog._group;
        const passcodeSet = session.passcodeSet;
        const title = _('End Guided Access');
        this._actor.accessible_name = title;
        // However it goes (Escape on Cinnamon 6 closes it by itself).
        this._actor.connect('destroy', () => this._forget());
        const content = this._dialog.contentLayout;
        content.add_child(new St.Label({text: title, style_class: 'run-dialog-label'}));
        content.add_child(new St.Label({
            text: passcodeSet ? _('Enter the passcode.') : _('An administrator must confirm.'),
            style_class: 'run-dialog-description',
        }));
        this._entry = null;
        if (passcodeSet) {
            this._entry = new St.Entry({
                name: 'guided-access-passcode', style_class: 'run-dialog-entry', can_focus: true,
                hint_text: _('Passcode'), accessible_name: _('Passcode'),
            });
            // The text inside has the keyboard focus: a screen reader names it too.
            this._entry.clutter_text.accessible_name = _('Passcode');
            this._entry.clutter_text.set_password_char('\u25cf');
            this._entry.clutter_text.connect('activate', () => this._end());
            content.add_child(this._entry);
        }
        this._message = new St.Label({name: 'guided-access-message', text: '', style_class: 'run-dialog-description error'});
        content.add_child(this._message);
        this._switches = new AccessibilityRows(deps, service, session.accessibilityShortcut,
            text => (this._message.text = text));
        content.add_child(this._switches.actor);
        this._dialog.setButtons([
            {label: _('Cancel'), action: () => this.destroy(), key: Clutter.KEY_Escape},
            // `focused` for Cinnamon 5, `default` for 6.
            {label: _('End'), action: () => this._end(), focused: !passcodeSet, default: true},
        ]);
        if (this._entry !== null)
            this._dialog.setInitialKeyFocus(this._entry.clutter_text);
        this._dialog.open(global.get_current_time());
        this._placeOn(monitor);
    }

    // Cinnamon opens a modal dialog on the monitor with the pointer; the
    // person works where the app is. Cinnamon 6 places it with a monitor
    // constraint, Cinnamon 5 sets its background's place as it opens.
    _placeOn(index) {
        const {Main} = this._deps;
        const monitor = Main.layoutManager.monitors[index];
        if (monitor === undefined)
            return;
        if (this._dialog._monitorConstraint) {
            this._dialog._monitorConstraint.index = index;
        } else {
            this._dialog._backgroundBin.set_position(monitor.x, monitor.y);
            this._dialog._backgroundBin.set_size(monitor.width, monitor.height);
        }
    }

    // A feature of Features1 went on or off: the switches show it.
    featuresChanged() {
        this._switches?.update();
    }

    _end() {
        const {GLib} = this._deps;
        const options = this._entry !== null
            ? {[END_OPTIONS.passcode]: new GLib.Variant('s', this._entry.get_text())}
            : {[END_OPTIONS.interactive]: new GLib.Variant('b', true)};
        this._service.daemon.end(options).then(() => this.destroy(), error => {
            if (this._dialog === null)
                return;
            // The daemon's own words, including its back-off.
            this._message.text = error.message;
            this._entry?.set_text('');
        });
    }

    // Closes it (also when the session ended elsewhere).
    destroy() {
        if (this._dialog === null)
            return;
        const {Clutter, global} = this._deps;
        if (this._dialog instanceof Clutter.Actor) {
            this._dialog.close(global.get_current_time());
        } else {
            this._dialog.popModal(global.get_current_time());
            this._dialog.destroy();
        }
        this._forget();
    }

    _forget() {
        if (this._dialog === null)
            return;
        this._dialog = null;
        this._switches.destroy();
        this._switches = null;
        this._closed();
    }
}
