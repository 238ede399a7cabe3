// SPDX-License-Identifier: GPL-2.0-or-later
// What every place that shows the session's accessibility switches shares
// (the GNOME Shell extension's indicator menu and end dialog, the Cinnamon
// extension's end dialog): the features of AccessibilityShortcut, asking
// the daemon to toggle one (ToggleAccessibilityFeature, which it allows
// the enforcer during any session without a passcode), and its answers. A
// switch shows what the daemon reports (Features1, whose PropertiesChanged
// calls update(), and which is read again once the daemon answered a
// toggle), never what was asked: a toggle that the daemon refuses or has
// not done yet does not show as done. A subclass makes the switches and
// puts in _shown, for each feature, what shows a value on its switch.

import {featureTitle} from '../common/features.js';

export class FeatureSwitches {
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

