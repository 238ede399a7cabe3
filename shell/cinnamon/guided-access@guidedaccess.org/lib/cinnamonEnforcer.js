// SPDX-License-Identifier: GPL-2.0-or-later
// Guided Access in Cinnamon: follows the session guided-accessd publishes on
// the session bus and makes the screen obey it. The daemon decides; this
// only enforces what it publishes, and registers for exactly that:
//
//   every window  → its app ids asked as it appears (AppIdsAhead, the
//                   GNOME extension's), so that a Start locks it at once
//   Enabled       → the app lock for as long as it is true: App and
//                   AlsoAllowed reachable, every other app's windows
//                   minimized and never given the focus (AppLock, the GNOME
//                   extension's, on Cinnamon's window manager); Cinnamon's
//                   ways away from it closed: the panels, hot corners, Expo,
//                   Scale, the switchers and Cinnamon's hotkeys (ShellLockdown);
//                   the locked app launched again when it has gone (AppKeeper,
//                   the GNOME extension's, on Cinnamon's app system); another
//                   program's override-redirect windows, which the lock hides,
//                   covered so that they take no click (OverlayCovers)
//   monitors      → with two or more, every one that shows no window of the
//                   app dimmed and shielded (AppMonitors, the GNOME
//                   extension's, and MonitorShields); the time left, the
//                   warnings and the end dialog on the app's monitor
//   DisabledRegions → an invisible blocker over each (RegionBlockers); with
//                   touch denied, one over the whole screen, the app included
//   Assessment    → the lock keeps it as any session (the exam app and its
//                   participants reachable); Cinnamon's own screenshot
//                   service refuses unless it allows screen capture
//                   (ScreenshotGuard); the clipboard emptied at its begin
//                   and end unless it allows the clipboard (the GNOME
//                   extension's clearClipboard)
//   TimeLimit     → the time left and the daemon's warnings (TimeLimit)
//   State expired, or the app gone and not launched again
//                 → a shield over everything that says why and which keys
//                   end the session; only the gesture passes it (Shield)
//   the gesture   → Super+Alt+Escape pressed three times within a second
//                   during a session opens the end dialog (EndDialog), with
//                   a switch for each feature of AccessibilityShortcut
//
// Fail closed: while the name has no owner, the lock stays and the daemon
// is activated again. Made by the extension's enable(), destroyed by its
// disable(): nothing of Cinnamon is changed before, and destroy() puts back
// all of it.

import {ServiceClient} from './service.js';
import {AppLock} from './appLock.js';
import {AppKeeper} from './appKeeper.js';
import {AppIdsAhead} from './appIdsAhead.js';
import {TriplePress} from './triplePress.js';
import {EndDialog} from './endDialog.js';
import {ShellLockdown} from './shellLockdown.js';
import {TimeLimit} from './timeLimit.js';
import {Shield} from './shield.js';
import {RegionBlockers} from './regionBlockers.js';
import {ScreenshotGuard} from './screenshotGuard.js';
import {clearClipboard} from './clipboard.js';
import {OverlayCovers} from './overlayCovers.js';
import {AppMonitors} from './appMonitors.js';
import {MonitorShields} from './monitorShields.js';
import {assessmentDenies, denied, reachableApps, shieldReason} from '../common/session.js';
import {CAPABILITY, SYSTEM_RESTRICTION} from '../common/contract.js';
import {shortcutLabel} from '../common/shortcut.js';

// The name the daemon knows this enforcer by, and what it enforces.
export const ENFORCER = 'cinnamon';
export const CAPABILITIES = [CAPABILITY.appLock, CAPABILITY.alsoAllowed, CAPABILITY.disabledRegions,
    CAPABILITY.accessibilityShortcut, CAPABILITY.assessment, CAPABILITY.clipboard, SYSTEM_RESTRICTION.appSwitching,
    SYSTEM_RESTRICTION.powerMenu, SYSTEM_RESTRICTION.touch];
// The gesture's keys (GNOME's default too), in Cinnamon's keybinding syntax.
export const GESTURE = '<Super><Alt>Escape';
// The same keys as people read them, in the messages that refer to them.
export const GESTURE_KEYS = shortcutLabel(GESTURE);
const GESTURE_BINDING = 'guided-access-gesture';

export class Enforcer {
    // deps: Cinnamon's libraries and `global` (see extension.js), `_`
    // (gettext in the domain guided-access).
    constructor(deps) {
        this._deps = deps;
        this._session = null; // the session enforced now, or null
        this._dialog = null; // the EndDialog while it is open
        this._lockdown = null; // the ShellLockdown while a session runs
        this._covers = null; // the OverlayCovers while a session runs
        this._monitors = null; // the AppMonitors while a session runs
        this._shields = null; // their MonitorShields
        this._regions = null; // the RegionBlockers of the session's regions
        this._regionsKey = '[]'; // which regions they block (JSON)
        this._screenshots = null; // the ScreenshotGuard during an assessment that wants it
        this._clipboardDenied = false; // during an assessment that does not allow the clipboard
        this._presses = new TriplePress();
        this._service = new ServiceClient(deps, {
            changed: () => this._sync(),
            appeared: () => {
                this._service.registerEnforcer(CAPABILITIES);
                this._idsAhead.askAll();
            },
            timeLimitWarning: secondsLeft => this._timeLimit.warn(secondsLeft),
            featuresChanged: () => this._dialog?.featuresChanged(),
        }, ENFORCER);
        this._idsAhead = new AppIdsAhead(deps, this._service);
        this._shield = new Shield(deps);
        // An app that cannot be launched again (3 times a minute at most)
        // brings the shield.
        this._keeper = new AppKeeper(deps, () => this._showShield());
        this._timeLimit = new TimeLimit(deps);
        this._lock = new AppLock(deps, this._service, {
            appWindow: window => {
                this._keeper.appWindow(window);
                this._monitors?.update();
            },
            appGone: () => this._keeper.appGone(),
            windowHidden: window => this._covers?.cover(window),
        });
        deps.Main.keybindingManager.addHotKey(GESTURE_BINDING, GESTURE, () => this._pressed());
        this._service.start();
    }

    destroy() {
        this._deps.Main.keybindingManager.removeHotKey(GESTURE_BINDING);
        this._dialog?.destroy();
        this._service.destroy();
        this._idsAhead.destroy();
        this._lockdown?.destroy();
        this._lock.destroy();
        this._covers?.destroy();
        this._followMonitors(false);
        this._keeper.destroy();
        this._timeLimit.destroy();
        this._shield.destroy();
        this._blockRegions([]);
        this._guardScreenshots(false);
        this._dialog = this._service = this._lock = this._lockdown = this._covers = this._keeper = this._timeLimit = this._shield = null;
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

    _apply(session) {
        this._session = session;
        this._guardClipboard(session !== null && assessmentDenies(session, 'allowsClipboard'));
        this._keeper.follow(session?.app ?? null);
        this._timeLimit.follow(session);
        this._showShield();
        if (session === null) {
            this._dialog?.destroy();
            this._lockdown?.destroy();
            this._lockdown = null;
            this._blockRegions([]);
            this._guardScreenshots(false);
            this._lock.destroy();
            this._covers?.destroy();
            this._covers = null;
            this._followMonitors(false);
            return;
        }
        this._guardScreenshots(assessmentDenies(session, 'allowsScreenCapture'));
        const {global} = this._deps;
        const wholeScreen = {x: 0, y: 0, width: global.stage.width, height: global.stage.height};
        this._blockRegions(denied(session, SYSTEM_RESTRICTION.touch) ? [wholeScreen] : session.regions);
        if (this._covers === null)
            this._covers = new OverlayCovers(this._deps);
        this._lock.lock(session.app, reachableApps(session));
        this._followMonitors(true);
        // Not `??=`: Cinnamon 5.6's cjs does not take it.
        if (this._lockdown === null)
            this._lockdown = new ShellLockdown(this._deps, [GESTURE_BINDING]);
    }

    // The shield, when the time is up or the app is gone for good; its words
    // name the gesture's keys.
    _showShield() {
        const {_} = this._deps;
        const reason = shieldReason(this._session, this._keeper.unreachable);
        let text = null;
        if (reason === 'expired')
            text = _('Time is up. Press %s three times to end Guided Access.').format(GESTURE_KEYS);
        else if (reason === 'app-gone')
            text = _('The app has closed. Press %s three times to end Guided Access.').format(GESTURE_KEYS);
        this._shield.set(text);
    }

    // Whether the monitors are followed (during a session): the shields,
    // the time left's place.
    _followMonitors(followed) {
        if (followed === (this._monitors !== null))
            return;
        if (!followed) {
            this._monitors.destroy();
            this._shields.destroy();
            this._monitors = this._shields = null;
            this._timeLimit?.setMonitor(null);
            return;
        }
        this._shields = new MonitorShields(this._deps);
        this._monitors = new AppMonitors(this._deps, window => this._lock.isAppWindow(window), () => {
            this._shields.set(this._monitors.shielded);
            this._timeLimit.setMonitor(this._monitors.working);
        });
        this._monitors.update();
    }

    // Blockers over `regions`, made again only when they changed.
    _blockRegions(regions) {
        const key = JSON.stringify(regions);
        if (key === this._regionsKey)
            return;
        this._regions?.destroy();
        this._regions = regions.length > 0 ? new RegionBlockers(this._deps, regions) : null;
        this._regionsKey = key;
    }

    // The clipboard emptied when an assessment that does not allow it
    // begins, and when it ends: nothing copied before reaches the exam, and
    // nothing copied in it outlasts it.
    _guardClipboard(denied) {
        if (denied !== this._clipboardDenied)
            clearClipboard(this._deps);
        this._clipboardDenied = denied;
    }

    _guardScreenshots(guarded) {
        if (guarded === (this._screenshots !== null))
            return;
        this._screenshots?.destroy();
        this._screenshots = guarded ? new ScreenshotGuard(this._deps) : null;
    }

    _pressed() {
        if (!this._presses.press(this._deps.GLib.get_monotonic_time()))
            return;
        if (this._session === null || this._dialog !== null)
            return;
        const monitor = this._monitors?.workingIndex ?? this._deps.Main.layoutManager.primaryIndex;
        this._dialog = new EndDialog(this._deps, this._service, this._session, monitor, () => (this._dialog = null));
    }
}
