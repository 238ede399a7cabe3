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
// Overrides and destroy() puts each one back.
//
// Private fields of the shell are read only where GNOME 43 has no public
// way: the two swipe trackers (Overview and WorkspaceAnimationController
// keep them to themselves; the stage's `swipe` actions are their touch
// halves only, all under one name, and the touchpad halves are no actions
// at all), the window menu manager (WindowManager's own; the
// `show-window-menu` signal it handles cannot be stopped by a handler
// connected after it), the banners' state (MessageTray has a setter for
// `bannerBlocked` and no getter) and whether the shell is still starting
// up (LayoutManager's `_startingUp`: its startup-complete signal says when
// it ends, nothing says whether it has).

import {Overrides} from './overrides.js';
import {bindingAllowed} from './keybindingPolicy.js';
import {SHORTCUT_KEY} from './sessionUI.js';

export class ShellLockdown {
    // overviewClosed(): the overview was closed (the focus goes back to the app).
    constructor(deps, overviewClosed = () => {}) {
        this._deps = deps;
        this._overviewClosed = overviewClosed;
        this._overrides = null; // while applied
        this._bannersBefore = null; // the tray's bannerBlocked while ours blocks them
        this._allowed = {endShortcut: SHORTCUT_KEY, appSwitching: true, switchApps: false, volumeButtons: true};
    }

    // allowed: {appSwitching, switchApps, volumeButtons, notifications};
    // false = denied.
    apply(allowed) {
        this._allowed = {
            endShortcut: SHORTCUT_KEY,
            appSwitching: allowed.appSwitching,
            switchApps: allowed.switchApps,
            volumeButtons: allowed.volumeButtons,
        };
        if (this._overrides === null) {
            this._overrides = new Overrides();
            this._closeOverview();
            this._closeGestures();
            this._closeMenusAndScreenshots();
            this._overrides.connect(this._deps.global.window_manager, 'filter-keybinding',
                (_wm, binding) => !bindingAllowed(binding.get_name(), this._currentKeysym(), this._allowed));
        }
        this._setBannersBlocked(!allowed.notifications);
    }

    destroy() {
        if (this._overrides === null)
            return;
        this._setBannersBlocked(false);
        this._overrides.destroy();
        this._overrides = null;
    }

    _closeOverview() {
        const {GLib, Main} = this._deps;
        this._overrides.replace(Main.overview, 'show', () => {});
        // The shell's startup animation (GNOME 45 on) shows the overview
        // without show(): with a session enforced from the shell's start
        // (managed Single App Mode), it is closed once shown (a hide()
        // while it opens would stop the animation, and the shell's startup
        // with it, half way), and the focus goes back to the app.
        let source = 0;
        const hideSoon = () => {
            if (source)
                return;
            source = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
                source = 0;
                if (Main.overview.visible)
                    Main.overview.hide();
                return GLib.SOURCE_REMOVE;
            });
        };
        this._overrides.defer(() => {
            if (source)
                GLib.source_remove(source);
        });
        this._overrides.connect(Main.overview, 'shown', hideSoon);
        this._overrides.connect(Main.overview, 'hidden', () => this._overviewClosed());
        // Never while the startup animation runs: it waits for the
        // overview's next allocation, which a hidden overview never gets,
        // so the shell would stay "starting up" for good (no
        // startup-complete, the on-screen keyboard never shown). Its
        // 'shown' closes it.
        if (Main.overview.visible && !Main.layoutManager._startingUp)
            Main.overview.hide();
    }

    _closeGestures() {
        const {Main, Clutter, global} = this._deps;
        // Private: GNOME 43 has no public way to these (see the top).
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
        // Private: GNOME 43 has no public way to the window menu (see the top).
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
        if (blocked === (this._bannersBefore !== null))
            return;
        const {Main} = this._deps;
        const tray = Main.messageTray;
        if (blocked) {
            // The date menu blocks banners while it is open; it is closed
            // first, so what is saved is the tray's own state.
            Main.panel.statusArea.dateMenu?.menu.close();
            this._bannersBefore = bannerBlocked(tray);
            tray.bannerBlocked = true;
        } else {
            tray.bannerBlocked = this._bannersBefore;
            this._bannersBefore = null;
        }
    }
}

// Whether the message tray blocks banners. GNOME 43's MessageTray has only
// a setter for it, which keeps the value in `_bannerBlocked`; a getter, where
// a shell has one, is used instead.
function bannerBlocked(tray) {
    let object = tray;
    while (object !== null && !Object.prototype.hasOwnProperty.call(object, 'bannerBlocked'))
        object = Object.getPrototypeOf(object);
    const getter = object === null ? undefined : Object.getOwnPropertyDescriptor(object, 'bannerBlocked').get;
    return (getter ? tray.bannerBlocked : tray._bannerBlocked) ?? false;
}
