// SPDX-License-Identifier: GPL-2.0-or-later
// Follows the Guided Access session on the bus and makes the screen obey
// it. The daemon decides; this only enforces what it publishes:
//
//   every window    → its app ids asked as it appears (AppIdsAhead), so
//                     that a Start locks every window at once
//   Enabled         → a SessionLock for as long as it is true: the app lock,
//                     the shell's ways out, the top bar, the desktop
//                     backdrop, the disabled regions, the Presentation and
//                     the denied system restrictions (enforcementPlan.js
//                     says which part does what); the locked app kept
//                     running (AppKeeper)
//   State expired, or the app cannot be brought back → the shield
//   TimeLimitWarning → an OSD (SessionUI), a sound and speech (TimeAlerts)
//   AccessibilityShortcut, Features1 → the accessibility switches (SessionUI)
//   Assessment      → screen capture refused, the clipboard emptied at its
//                     begin and end, unless it allows them (AssessmentGuard);
//                     a capture it cannot stop: registered again without
//                     screen-capture (the daemon interrupts the assessment)
//
// Fail closed: while the name has no owner, whatever is enforced stays and
// the daemon is activated again; its state, once loaded, is applied as is.
//
// Made by the extension's enable(), destroyed by its disable(): nothing of
// the shell is changed before, and destroy() puts back all of it.

import {ServiceClient} from './service.js';
import {AppKeeper} from './appKeeper.js';
import {AppIdsAhead} from './appIdsAhead.js';
import {SessionUI, SHORTCUT_KEY} from './sessionUI.js';
import {SessionLock} from './sessionLock.js';
import {PanelLockdown} from './panelLockdown.js';
import {TimeAlerts} from './timeAlerts.js';
import {AssessmentGuard} from './assessmentGuard.js';
import {shieldReason} from '../common/session.js';
import {shortcutLabel} from '../common/shortcut.js';
import {CAPABILITY, SYSTEM_RESTRICTION} from '../common/contract.js';
import {enforcementPlan} from './enforcementPlan.js';

// What RegisterEnforcer announces: exactly what this extension enforces.
export const CAPABILITIES = [
    CAPABILITY.appLock, CAPABILITY.disabledRegions, CAPABILITY.alsoAllowed, CAPABILITY.accessibilityShortcut,
    CAPABILITY.assessment, CAPABILITY.screenCapture, CAPABILITY.clipboard,
    SYSTEM_RESTRICTION.appSwitching, SYSTEM_RESTRICTION.notifications,
    SYSTEM_RESTRICTION.powerMenu, SYSTEM_RESTRICTION.touch, SYSTEM_RESTRICTION.keyboards,
];

export class Enforcer {
    // deps: the GNOME libraries, shell modules and `global` (see the entry
    // points), plus `settings`, the extension's Gio.Settings, and `_`,
    // gettext in the extension's domain (guided-access).
    constructor(deps) {
        this._deps = deps;
        this._session = null; // the session enforced now, or null
        this._lock = null; // its SessionLock
        this._capabilities = CAPABILITIES; // what is registered: all but screen-capture after a capture did not stop
        this._service = new ServiceClient(deps, {
            changed: () => this._sync(),
            appeared: () => {
                this._service.registerEnforcer(this._capabilities);
                this._idsAhead.askAll();
            },
            timeLimitWarning: secondsLeft => {
                this._ui.warn(secondsLeft);
                this._alerts.announce(secondsLeft);
            },
            featuresChanged: () => this._ui?.featuresChanged(),
        });
        this._idsAhead = new AppIdsAhead(deps, this._service);
        this._keeper = new AppKeeper(deps, () => this._showShield());
        this._ui = new SessionUI(deps, this._service);
        this._panel = new PanelLockdown(deps); // lent to each SessionLock
        this._alerts = new TimeAlerts(deps);
        this._guard = new AssessmentGuard(deps, kept => {
            this._capabilities = kept ? CAPABILITIES : CAPABILITIES.filter(c => c !== CAPABILITY.screenCapture);
            this._service.registerEnforcer(this._capabilities);
        });
        this._settingIds = ['changed::show-region-outlines', 'changed::panel-menus-during-session',
            `changed::${SHORTCUT_KEY}`]
            .map(signal => deps.settings.connect(signal, () => this._sync()));
        this._service.start();
    }

    destroy() {
        for (const id of this._settingIds)
            this._deps.settings.disconnect(id);
        this._service.destroy();
        this._guard.destroy(); // before _apply(null): disabling ends no assessment
        this._apply(null);
        this._panel.destroy();
        this._ui.destroy();
        this._keeper.destroy();
        this._alerts.destroy();
        this._idsAhead.destroy();
        this._service = this._keeper = this._ui = this._panel = this._alerts = this._guard = this._idsAhead = null;
    }

    _sync() {
        const published = this._service.session();
        if (published === null) {
            // No owner: nothing is known, keep the lock (fail closed).
            this._service.setKeepAlive(this._session !== null);
            return;
        }
        this._apply(published.enabled ? published : null);
        this._service.setKeepAlive(this._session !== null);
    }

    // Applies `session`, or ends the lock for null.
    _apply(session) {
        this._session = session;
        this._guard?.apply(session);
        this._ui.setSession(session);
        this._keeper.follow(session?.app ?? null);
        if (session === null) {
            this._lock?.destroy();
            this._lock = null;
            return;
        }
        const {settings} = this._deps;
        this._lock ??= new SessionLock(this._deps, this._service, {
            appWindow: window => this._keeper.appWindow(window),
            appGone: () => this._keeper.appGone(),
            workingMonitor: index => this._ui.setWorkingMonitor(index),
        }, this._panel);
        this._lock.apply(enforcementPlan(session, {
            panelMenus: settings.get_boolean('panel-menus-during-session'),
            regionOutlines: settings.get_boolean('show-region-outlines'),
        }));
        this._showShield();
    }

    // The shield, when the time is up or the app is gone for good; its words
    // name the gesture's keys as configured.
    _showShield() {
        const {_, settings} = this._deps;
        const reason = shieldReason(this._session, this._keeper.unreachable);
        const [accelerator = ''] = settings.get_strv(SHORTCUT_KEY);
        const keys = accelerator ? shortcutLabel(accelerator) : _('the shortcut');
        let text = null;
        if (reason === 'expired')
            text = _('Time is up. Press %s three times to end Guided Access.').format(keys);
        else if (reason === 'app-gone')
            text = _('The app has closed. Press %s three times to end Guided Access.').format(keys);
        this._lock?.setShield(text);
    }
}
