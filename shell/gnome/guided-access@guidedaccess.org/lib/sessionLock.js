// SPDX-License-Identifier: GPL-2.0-or-later
// Everything that holds the screen during one session: made when a session
// starts being enforced, destroyed when it ends (or the extension is
// disabled), which puts back everything its parts changed. The top bar's
// PanelLockdown is the enforcer's, lent to each SessionLock: it puts the
// top bar back a frame after the end (see panelLockdown.js).
//
//   app            → app lock (AppLock: App and AlsoAllowed reachable, the
//                    switchers listing only them: SwitcherFilter), Presentation
//   always         → the shell's ways out (ShellLockdown), the top bar
//                    (PanelLockdown), the desktop backdrop (Blockers)
//   regions        → input blockers (Blockers)
//   restrictions   → app-switching, notifications (ShellLockdown,
//                    PanelLockdown), power-menu (PanelLockdown), touch
//                    (Blockers), keyboards (KeyboardLock)
//   the shield     → Blockers
//   monitors       → every one without the app dimmed and shielded, the
//                    shield's message on the one the person works on
//                    (AppMonitors, Blockers)

import {AppLock} from './appLock.js';
import {ShellLockdown} from './shellLockdown.js';
import {Blockers} from './blockers.js';
import {KeyboardLock} from './keyboardLock.js';
import {Presentation} from './presentation.js';
import {AppMonitors} from './appMonitors.js';
import {SwitcherFilter} from './switcherFilter.js';

export class SessionLock {
    // service: the ServiceClient (the app ids of windows); presence:
    // {appWindow(window), appGone(), workingMonitor(index)}, told what
    // AppLock sees of the app and where the person works; panel: the
    // enforcer's PanelLockdown.
    constructor(deps, service, presence, panel) {
        this._presence = presence;
        this._presentation = new Presentation(deps);
        this._appLock = new AppLock(deps, service, {
            appWindow: window => {
                presence.appWindow(window);
                this._presentation.show(window);
                this._monitors.update();
            },
            appGone: () => presence.appGone(),
        });
        this._switchers = new SwitcherFilter(deps, window => this._appLock.isAppWindow(window));
        this._lockdown = new ShellLockdown(deps, () => this._appLock.refocus());
        this._panel = panel;
        this._blockers = new Blockers(deps);
        this._keyboards = new KeyboardLock(deps);
        this._monitors = new AppMonitors(deps, window => this._appLock.isAppWindow(window),
            () => this._monitorsChanged());
    }

    _monitorsChanged() {
        this._blockers.setMonitorShields(this._monitors.shielded);
        this._blockers.setMessageMonitor(this._monitors.working);
        this._presence.workingMonitor(this._monitors.workingIndex);
    }

    // The index of the monitor the person works on.
    get workingMonitor() {
        return this._monitors.workingIndex;
    }

    // plan: see enforcementPlan.js.
    apply(plan) {
        this._presentation.setMode(plan.presentation);
        this._appLock.lock(plan.app, plan.apps);
        this._monitors.update();
        this._lockdown.apply(plan.lockdown);
        this._panel.apply(plan.panelKeep);
        this._blockers.setDesktopBlocked(true);
        this._blockers.setRegions(plan.regions, plan.regionOutlines);
        this._blockers.setTouchBlocked(plan.touchBlocked);
        this._keyboards.setBlocked(plan.keyboardsBlocked);
    }

    // text: what the shield says, or null for none.
    setShield(text) {
        this._blockers.setShield(text);
    }

    destroy() {
        this._monitors.destroy();
        this._keyboards.destroy();
        this._presentation.destroy();
        this._blockers.destroy();
        this._panel.release();
        this._lockdown.destroy();
        this._switchers.destroy();
        this._appLock.destroy();
    }
}
