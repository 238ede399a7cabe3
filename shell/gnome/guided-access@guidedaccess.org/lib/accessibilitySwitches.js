// SPDX-License-Identifier: GPL-2.0-or-later
// The session's accessibility shortcut: a switch for each feature of
// AccessibilityShortcut, which the person turns on and off during any
// session without a passcode (ToggleAccessibilityFeature, which the daemon
// allows the enforcer). Two places show them: the session's indicator
// menu in the top bar (AccessibilityMenuSection: the shell's own switch
// menu items) and the end dialog that the triple-press opens
// (AccessibilityRows: rows like the start sheet's, reached with Tab and
// switched with Space), so one gesture reaches both ending and
// accessibility. A switch shows what the daemon reports (Features1, whose
// PropertiesChanged calls update(), and which is read again once the daemon
// answered a toggle), never what was asked: a toggle that the daemon
// refuses or has not done yet does not show as done. Features
// not in the shortcut are not shown.

import {switchRow} from './optionControls.js';
import {featureTitle} from '../common/features.js';

// What both places share: the features, asking the daemon, its answers.
class FeatureSwitches {
    // service: the ServiceClient; features: AccessibilityShortcut's names;
    // failed(message): the daemon refused a toggle (its own words).
    constructor(deps, service, features, failed) {
        this._deps = deps;
        this._service = service;
        this._features = [...features];
        this._failed = failed;
        this._shown = new Map(); // feature → show(value: true, false or null)
        // While update() shows the daemon's values: GNOME 48 on emits a
        // switch menu item's 'toggled' for a state set by code too.
        this._updating = false;
    }

    _title(feature) {
        return featureTitle(feature, this._deps._);
    }

    _value(feature) {
        return this._service.daemon.feature(feature);
    }

    // The person switched `feature`: asks for the opposite of what the
    // daemon reports; shown once the daemon says it is done.
    _toggle(feature) {
        if (this._updating)
            return;
        const value = this._value(feature);
        this.update();
        if (value === null)
            return;
        const daemon = this._service.daemon;
        // Once the daemon has done it, what it reports is read again
        // (PropertiesChanged brings changes made elsewhere).
        daemon.toggleAccessibilityFeature(feature, !value).then(() => daemon.readFeature(feature)).catch(error => {
            if (this._service !== null)
                this._failed(error.message);
        });
    }

    // Shows what the daemon reports now.
    update() {
        this._updating = true;
        try {
            for (const [feature, show] of this._shown)
                show(this._value(feature));
        } finally {
            this._updating = false;
        }
    }

    destroy() {
        this._shown.clear();
        this._service = null;
    }
}

// In the session's indicator menu: a separator, then one PopupSwitchMenuItem
// per feature (Space switches it and leaves the menu open, as the shell's
// own accessibility menu does).
export class AccessibilityMenuSection extends FeatureSwitches {
    constructor(deps, service, features) {
        super(deps, service, features, message => log(`Guided Access: ${message}`));
        const {PopupMenu} = deps;
        this.section = new PopupMenu.PopupMenuSection();
        if (this._features.length > 0)
            this.section.addMenuItem(new PopupMenu.PopupSeparatorMenuItem(deps._('Accessibility')));
        for (const feature of this._features) {
            const item = new PopupMenu.PopupSwitchMenuItem(this._title(feature), false);
            item.connect('toggled', () => this._toggle(feature));
            this._shown.set(feature, value => {
                item.setToggleState(value === true);
                item.setSensitive(value !== null);
            });
            this.section.addMenuItem(item);
        }
        this.update();
    }

    destroy() {
        super.destroy();
        this.section.destroy();
    }
}

// In the end dialog: a heading and one switch row per feature, after the
// passcode (Tab reaches them, Space switches one); a refusal is shown in
// the dialog's message.
export class AccessibilityRows extends FeatureSwitches {
    // failed(message): shows the daemon's message.
    constructor(deps, service, features, failed) {
        super(deps, service, features, failed);
        const {St, _} = deps;
        this.actor = new St.BoxLayout({vertical: true, style: 'spacing: 6px; padding-top: 12px;'});
        if (this._features.length > 0)
            this.actor.add_child(new St.Label({text: _('Accessibility'), style_class: 'dialog-list-title'}));
        for (const feature of this._features) {
            const {row, set} = switchRow(deps, this._title(feature), '');
            row.connect('clicked', () => this._toggle(feature));
            this._shown.set(feature, value => {
                set(value === true);
                row.reactive = row.can_focus = value !== null;
            });
            this.actor.add_child(row);
        }
        this.update();
    }
}
