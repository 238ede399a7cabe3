// The shell's own ways out of the locked app, closed while a session is
// enforced, and the system restrictions that live in the shell's UI:
//
// - overview, app grid, dash, search and hot corner: every path into the
//   overview goes through Main.overview.show() (toggle(), showApps(), the
//   hot corner, the Activities button, the Super key) or the overview's
//   swipe gesture; show() is shadowed by an own property (deleting it
//   restores the prototype's method exactly) and the gesture disabled;
// - keybindings: a 'filter-keybinding' handler on the window manager
//   filters the listed bindings (mutter asks it for every binding, the
//   shell's own handler first);
// - app-switching deny: also the bindings that switch between the locked
//   app's own windows;
// - notifications deny: banners blocked, the date menu (message list) hidden;
// - power-menu deny: the system menu (quick settings) hidden.
// Every change records the value it replaced and release() puts it back.

// Bindings that leave the app or open shell UI. Prefixes end in '-'.
const APP_LOCK_BINDINGS = [
    'switch-applications', 'switch-applications-backward',
    'switch-windows', 'switch-windows-backward',
    'cycle-windows', 'cycle-windows-backward',
    'switch-panels', 'switch-panels-backward',
    'cycle-panels', 'cycle-panels-backward',
    'overlay-key', 'panel-main-menu', 'panel-run-dialog',
    'toggle-overview', 'toggle-application-view',
    'shift-overview-up', 'shift-overview-down',
    'toggle-message-tray', 'focus-active-notification',
    'switch-to-application-', 'switch-to-workspace-', 'move-to-workspace-',
    'move-to-monitor-', 'switch-monitor', 'minimize', 'show-desktop',
];
// Switching between the windows of one app: left alone by the app lock,
// blocked by 'app-switching' deny.
const APP_SWITCHING_BINDINGS = [
    'switch-group', 'switch-group-backward', 'cycle-group', 'cycle-group-backward',
];
const POWER_MENU_BINDINGS = ['toggle-quick-settings'];

function matches(names, name) {
    return names.some(entry => entry.endsWith('-') ? name.startsWith(entry) : name === entry);
}

export class ShellLockdown {
    constructor(deps) {
        this._deps = deps;
        this._applied = false;
        this._restrictions = {appSwitching: false, notifications: false, powerMenu: false};
        this._filterId = 0;
        this._swipeWasEnabled = null;
        this._hidden = new Map(); // actor → its visibility before
    }

    // restrictions: {appSwitching, notifications, powerMenu}, true = deny.
    apply(restrictions) {
        const {Main} = this._deps;
        if (!this._applied) {
            this._applied = true;
            const overview = Main.overview;
            overview.show = () => {};
            if (overview.visible)
                overview.hide();
            const swipe = overview._swipeTracker;
            if (swipe) {
                this._swipeWasEnabled = swipe.enabled;
                swipe.enabled = false;
            }
            this._filterId = global.window_manager.connect('filter-keybinding',
                (_wm, binding) => this._filters(binding.get_name()));
            this._hide(Main.panel.statusArea.activities?.container);
        }

        if (restrictions.notifications !== this._restrictions.notifications) {
            // bannerBlocked has no getter on GNOME 43. Its one writer in the
            // shell is the date menu (true while it is open); closing the
            // menu first makes false the value to restore.
            if (restrictions.notifications) {
                Main.panel.statusArea.dateMenu?.menu.close();
                this._hide(Main.panel.statusArea.dateMenu?.container);
                Main.messageTray.bannerBlocked = true;
            } else {
                Main.messageTray.bannerBlocked = false;
                this._show(Main.panel.statusArea.dateMenu?.container);
            }
        }
        if (restrictions.powerMenu !== this._restrictions.powerMenu) {
            const systemMenu = Main.panel.statusArea.quickSettings ?? Main.panel.statusArea.aggregateMenu;
            if (restrictions.powerMenu) {
                systemMenu?.menu.close();
                this._hide(systemMenu?.container);
            } else {
                this._show(systemMenu?.container);
            }
        }
        this._restrictions = {...restrictions};
    }

    _filters(name) {
        return matches(APP_LOCK_BINDINGS, name) ||
            (this._restrictions.appSwitching && matches(APP_SWITCHING_BINDINGS, name)) ||
            (this._restrictions.powerMenu && matches(POWER_MENU_BINDINGS, name));
    }

    _hide(actor) {
        if (!actor || this._hidden.has(actor))
            return;
        this._hidden.set(actor, actor.visible);
        actor.hide();
    }

    _show(actor) {
        if (!actor || !this._hidden.has(actor))
            return;
        actor.visible = this._hidden.get(actor);
        this._hidden.delete(actor);
    }

    release() {
        if (!this._applied)
            return;
        const {Main} = this._deps;
        this.apply({appSwitching: false, notifications: false, powerMenu: false});
        this._applied = false;
        delete Main.overview.show;
        if (this._swipeWasEnabled !== null) {
            Main.overview._swipeTracker.enabled = this._swipeWasEnabled;
            this._swipeWasEnabled = null;
        }
        global.window_manager.disconnect(this._filterId);
        this._filterId = 0;
        for (const actor of [...this._hidden.keys()])
            this._show(actor);
    }
}
