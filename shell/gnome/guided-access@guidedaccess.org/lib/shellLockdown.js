// SPDX-License-Identifier: GPL-2.0-or-later
// The shell's own ways out of the locked app, closed while a session is
// enforced, each at its root rather than one key at a time:
//
// - keybindings: a 'filter-keybinding' handler drops every binding that
//   keybindingPolicy.js does not allow (mutter asks it for all of them:
//   mutter's, the shell's, VT switching, and gnome-settings-daemon's
//   accelerators such as Ctrl+Alt+Delete and Super+L);
// - overview, app grid, dash, search and hot corner: every path into the
//   overview goes through Main.overview.show(), which is shadowed;
// - gestures: the overview's and the workspace switcher's swipe trackers
//   (touchpad, touchscreen, Super+scroll) and the three-finger app switch
//   are disabled, and the window manager's workspace scroll does nothing;
// - the window menu (title bar right-click, Alt+Space) and the screenshot
//   UI never open;
// - notifications deny: banners blocked.
// The top bar is PanelLockdown's. Every change is recorded in an
// Overrides and release() puts each one back.

import {Overrides} from './overrides.js';
import {bindingAllowed} from './keybindingPolicy.js';
import {SHORTCUT_KEY} from './sessionUI.js';

export class ShellLockdown {
    constructor(deps) {
        this._deps = deps;
        this._overrides = null; // while applied
        this._bannersBlocked = false;
        this._allowed = {endShortcut: SHORTCUT_KEY, appSwitching: true, volumeButtons: true};
    }

    // allowed: {appSwitching, volumeButtons, notifications}; false = denied.
    apply(allowed) {
        this._allowed = {
            endShortcut: SHORTCUT_KEY,
            appSwitching: allowed.appSwitching,
            volumeButtons: allowed.volumeButtons,
        };
        if (this._overrides === null) {
            this._overrides = new Overrides();
            this._closeOverview();
            this._closeGestures();
            this._closeMenusAndScreenshots();
            this._overrides.connect(global.window_manager, 'filter-keybinding',
                (_wm, binding) => !bindingAllowed(binding.get_name(), this._currentKeysym(), this._allowed));
        }
        this._setBannersBlocked(!allowed.notifications);
    }

    release() {
        if (this._overrides === null)
            return;
        this._setBannersBlocked(false);
        this._overrides.restore();
        this._overrides = null;
    }

    _closeOverview() {
        const {Main} = this._deps;
        this._overrides.replace(Main.overview, 'show', () => {});
        if (Main.overview.visible)
            Main.overview.hide();
    }

    _closeGestures() {
        const {Main, Clutter} = this._deps;
        for (const tracker of [Main.overview._swipeTracker, Main.wm._workspaceAnimation?._swipeTracker]) {
            if (tracker)
                this._overrides.set(tracker, 'enabled', false);
        }
        const appSwitch = global.stage.get_action('app-switch');
        if (appSwitch)
            this._overrides.set(appSwitch, 'enabled', false);
        this._overrides.replace(Main.wm, 'handleWorkspaceScroll', () => Clutter.EVENT_PROPAGATE);
    }

    _closeMenusAndScreenshots() {
        const {Main} = this._deps;
        const windowMenus = Main.wm._windowMenuManager;
        windowMenus._manager.activeMenu?.close();
        this._overrides.replace(windowMenus, 'showWindowMenuForWindow', () => {});
        const screenshotUI = Main.screenshotUI;
        if (screenshotUI) {
            if (screenshotUI.visible)
                screenshotUI.close(true);
            this._overrides.replace(screenshotUI, 'open', () => Promise.resolve());
        }
    }

    // The key that triggered the binding being filtered (mutter filters
    // while it handles that key event), for the volume keys.
    _currentKeysym() {
        const {Clutter} = this._deps;
        const event = Clutter.get_current_event();
        const type = event?.type();
        return type === Clutter.EventType.KEY_PRESS || type === Clutter.EventType.KEY_RELEASE
            ? event.get_key_symbol() : 0;
    }

    _setBannersBlocked(blocked) {
        if (blocked === this._bannersBlocked)
            return;
        this._bannersBlocked = blocked;
        const {Main} = this._deps;
        if (blocked) {
            // bannerBlocked has no getter on GNOME 43. Its one writer in the
            // shell is the date menu (true while it is open), which the
            // panel lockdown closes first: false is the value to restore.
            Main.panel.statusArea.dateMenu?.menu.close();
        }
        Main.messageTray.bannerBlocked = blocked;
    }
}
