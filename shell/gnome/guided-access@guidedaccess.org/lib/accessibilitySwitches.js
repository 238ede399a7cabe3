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
// answered a toggle), never what was asked (FeatureSwitches). Features not
// in the shortcut are not shown.

import {FeatureSwitches} from './featureSwitches.js';
import {switchRow} from './optionControls.js';

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
