// SPDX-License-Identifier: GPL-2.0-or-later
// "Start Guided Access…" in the focused app's menu in the top bar, the
// other way to open the start sheet; shown while no session is active.

export class AppMenuItem {
    // deps: {_, Main, PopupMenu}; open(): opens the start sheet.
    constructor(deps, open) {
        const {_, Main, PopupMenu} = deps;
        this._item = null;
        const menu = Main.panel.statusArea.appMenu?.menu;
        if (!menu)
            return;
        this._item = new PopupMenu.PopupMenuItem(_('Start Guided Access…'));
        this._item.connect('activate', () => open());
        menu.addMenuItem(this._item);
    }

    setShown(shown) {
        if (this._item !== null)
            this._item.visible = shown;
    }

    destroy() {
        this._item?.destroy();
        this._item = null;
    }
}
