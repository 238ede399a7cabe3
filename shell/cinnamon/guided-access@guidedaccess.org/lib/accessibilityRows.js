// SPDX-License-Identifier: GPL-2.0-or-later
// The session's accessibility shortcut in the end dialog: a heading and a
// row per feature of AccessibilityShortcut, after the passcode, so that the
// one gesture reaches both ending and accessibility. Each row is an
// St.Button with a menu item's look and Cinnamon's own switch (as its
// accessibility applet shows them), reached with Tab and switched with
// Space or Return, without the passcode; a screen reader reads it as a
// named check box, checked or not. The rows show what the daemon reports
// (FeatureSwitches, the GNOME extension's); a refusal is shown in the
// dialog's message line.

import {FeatureSwitches} from './featureSwitches.js';

export class AccessibilityRows extends FeatureSwitches {
    // features: AccessibilityShortcut's names; failed(message): shows the
    // daemon's words.
    constructor(deps, service, features, failed) {
        super(deps, service, features, failed);
        const {St, Atk, PopupMenu, _} = deps;
        this.actor = new St.BoxLayout({vertical: true, style: 'spacing: 6px; padding-top: 12px;'});
        if (this._features.length > 0)
            this.actor.add_child(new St.Label({text: _('Accessibility'), style_class: 'run-dialog-label'}));
        for (const feature of this._features) {
            const title = this._title(feature);
            const row = new St.Button({
                style_class: 'popup-menu-item', can_focus: true, x_expand: true, x_fill: true,
                accessible_role: Atk.Role.CHECK_BOX, accessible_name: title,
            });
            const box = new St.BoxLayout({style: 'spacing: 12px;', x_expand: true});
            box.add_child(new St.Label({text: title, x_expand: true}));
            const toggle = new PopupMenu.Switch(false);
            // The row is the check box a screen reader reads; the switch
            // inside only draws its state, and would be a second, nameless one.
            toggle.actor.accessible_role = Atk.Role.REDUNDANT_OBJECT;
            box.add_child(toggle.actor);
            row.set_child(box);
            row.connect('clicked', () => this._toggle(feature));
            this._shown.set(feature, value => {
                toggle.setToggleState(value === true);
                if (value === true)
                    row.add_accessible_state(Atk.StateType.CHECKED);
                else
                    row.remove_accessible_state(Atk.StateType.CHECKED);
                row.reactive = row.can_focus = value !== null;
            });
            this.actor.add_child(row);
        }
        this.update();
    }
}
