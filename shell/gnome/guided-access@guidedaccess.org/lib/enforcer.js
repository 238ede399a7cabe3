// Follows the Guided Access session on the bus and makes the screen obey
// it. The daemon decides; this only enforces what it publishes:
//
//   Enabled         → app lock (AppLock) and the shell's ways out (ShellLockdown)
//   DisabledRegions → input blockers (Blockers)
//   SystemRestrictions deny: app-switching, notifications, power-menu
//                     (ShellLockdown), touch (Blockers), keyboards (KeyboardLock)
//   State expired   → the expiry shield (Blockers)
//
// Fail closed: while the name has no owner, whatever is enforced stays and
// the daemon is activated again; its state, once loaded, is applied as is.

import {ServiceClient} from './service.js';
import {AppLock} from './appLock.js';
import {ShellLockdown} from './shellLockdown.js';
import {Blockers} from './blockers.js';
import {SessionUI} from './sessionUI.js';
import {KeyboardLock} from './keyboardLock.js';

// What RegisterEnforcer announces: exactly what this file enforces.
export const CAPABILITIES = [
    'app-lock', 'disabled-regions', 'app-switching', 'notifications', 'power-menu', 'touch', 'keyboards',
];

export class Enforcer {
    // deps: the GNOME libraries and shell modules (see the entry points),
    // plus `settings`, the extension's Gio.Settings.
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
                if (name === 'TimeLimitWarning')
                    this._ui.warn(args[0]);
            },
        });
        this._appLock = new AppLock(deps, this._service);
        this._lockdown = new ShellLockdown(deps);
        this._blockers = new Blockers(deps);
        this._ui = new SessionUI(deps, this._service);
        this._keyboards = new KeyboardLock(deps);
        this._ui.enable();
        this._outlineId = deps.settings.connect('changed::show-region-outlines', () => this._sync());
        this._service.start();
    }

    disable() {
        this._deps.settings.disconnect(this._outlineId);
        this._service.stop();
        this._apply(null);
        this._ui.disable();
        this._service = this._appLock = this._lockdown = this._blockers = this._ui = this._keyboards = null;
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
        if (session === null) {
            this._keyboards.release();
            this._blockers.release();
            this._lockdown.release();
            this._appLock.unlock();
            return;
        }
        const deny = name => session.systemRestrictions[name] === 'deny';
        this._appLock.lock(session.app);
        this._lockdown.apply({
            appSwitching: deny('app-switching'),
            notifications: deny('notifications'),
            powerMenu: deny('power-menu'),
        });
        this._blockers.setRegions(session.regions,
            this._deps.settings.get_boolean('show-region-outlines'));
        this._blockers.setTouchBlocked(deny('touch'));
        this._keyboards.setBlocked(deny('keyboards'));
        this._blockers.setShield(session.state === 'expired',
            'Time is up. Triple-press the shortcut to end Guided Access.');
    }
}
