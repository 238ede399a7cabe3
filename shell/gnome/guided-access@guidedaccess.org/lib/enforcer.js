// SPDX-License-Identifier: GPL-2.0-or-later
// Follows the Guided Access session on the bus and makes the screen obey
// it. The daemon decides; this only enforces what it publishes:
//
//   Enabled         → app lock (AppLock), the locked app kept running
//                     (AppKeeper), the shell's ways out (ShellLockdown),
//                     the top bar (PanelLockdown), the desktop backdrop
//   DisabledRegions → input blockers (Blockers)
//   Presentation    → the app's windows maximized or full screen (Presentation)
//   SystemRestrictions deny: app-switching, notifications (ShellLockdown,
//                     PanelLockdown), power-menu (PanelLockdown), touch
//                     (Blockers), keyboards (KeyboardLock)
//   State expired, or the app cannot be brought back → the shield (Blockers)
//
// Fail closed: while the name has no owner, whatever is enforced stays and
// the daemon is activated again; its state, once loaded, is applied as is.

import {ServiceClient} from './service.js';
import {AppLock} from './appLock.js';
import {AppKeeper} from './appKeeper.js';
import {ShellLockdown} from './shellLockdown.js';
import {PanelLockdown} from './panelLockdown.js';
import {Blockers} from './blockers.js';
import {SessionUI} from './sessionUI.js';
import {KeyboardLock} from './keyboardLock.js';
import {Presentation} from './presentation.js';
import {TimeAlerts} from './timeAlerts.js';

// What RegisterEnforcer announces: exactly what this file enforces.
export const CAPABILITIES = [
    'app-lock', 'disabled-regions', 'app-switching', 'notifications', 'power-menu', 'touch', 'keyboards',
];


export class Enforcer {
    // deps: the GNOME libraries and shell modules (see the entry points),
    // plus `settings`, the extension's Gio.Settings, and `_`, gettext in the
    // extension's domain (guided-access).
    constructor(deps) {
        this._deps = deps;
        this._session = null; // the session enforced now, or null
    }

    enable() {
        const deps = this._deps;
        this._service = new ServiceClient(deps, {
            changed: () => this._sync(),
            appeared: () => this._service.registerEnforcer(CAPABILITIES),
            signal: (name, args) => {
                if (name === 'TimeLimitWarning') {
                    this._ui.warn(args[0]);
                    this._alerts.announce(args[0]);
                }
            },
        });
        this._keeper = new AppKeeper(deps, () => this._showShield());
        this._appLock = new AppLock(deps, this._service, {
            appWindow: window => {
                this._keeper.appWindow(window);
                this._presentation.show(window);
            },
            appGone: () => this._keeper.appGone(),
        });
        this._lockdown = new ShellLockdown(deps);
        this._panel = new PanelLockdown(deps);
        this._blockers = new Blockers(deps);
        this._ui = new SessionUI(deps, this._service);
        this._keyboards = new KeyboardLock(deps);
        this._presentation = new Presentation(deps);
        this._alerts = new TimeAlerts(deps);
        this._ui.enable();
        this._settingIds = ['changed::show-region-outlines', 'changed::panel-menus-during-session']
            .map(signal => deps.settings.connect(signal, () => this._sync()));
        this._service.start();
    }

    disable() {
        for (const id of this._settingIds)
            this._deps.settings.disconnect(id);
        this._service.stop();
        this._apply(null);
        this._ui.disable();
        this._keeper.destroy();
        this._alerts.destroy();
        this._alerts = null;
        this._service = this._keeper = this._appLock = this._lockdown = this._panel = null;
        this._blockers = this._ui = this._keyboards = this._presentation = null;
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

    // Applies `session`, or releases everything for null.
    _apply(session) {
        this._session = session;
        this._ui.setSession(session);
        this._keeper.follow(session?.app ?? null);
        if (session === null) {
            this._keyboards.release();
            this._presentation.release();
            this._blockers.release();
            this._panel.release();
            this._lockdown.release();
            this._appLock.unlock();
            return;
        }
        const allowed = name => session.systemRestrictions[name] !== 'deny';
        this._presentation.setMode(session.presentation);
        this._appLock.lock(session.app);
        this._lockdown.apply({
            appSwitching: allowed('app-switching'),
            notifications: allowed('notifications'),
            volumeButtons: allowed('volume-buttons'),
        });
        const menus = this._deps.settings.get_boolean('panel-menus-during-session');
        this._panel.apply([
            ...menus && allowed('notifications') ? ['dateMenu'] : [],
            ...menus && allowed('power-menu') ? ['quickSettings', 'aggregateMenu'] : [],
        ]);
        this._blockers.setDesktopBlocked(true);
        this._blockers.setRegions(session.regions,
            this._deps.settings.get_boolean('show-region-outlines'));
        this._blockers.setTouchBlocked(!allowed('touch'));
        this._keyboards.setBlocked(!allowed('keyboards'));
        this._showShield();
    }

    _showShield() {
        const session = this._session;
        let text = null;
        const _ = this._deps._;
        if (session?.state === 'expired')
            text = _('Time is up. Triple-press the shortcut to end Guided Access.');
        else if (session !== null && this._keeper.unreachable)
            text = _('The app has closed. Triple-press the shortcut to end Guided Access.');
        this._blockers.setShield(text);
    }
}
