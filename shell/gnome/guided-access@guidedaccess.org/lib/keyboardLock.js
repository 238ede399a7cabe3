// SPDX-License-Identifier: GPL-2.0-or-later
// 'keyboards' deny: key events never reach an app, and the on-screen
// keyboard stays hidden.
//
// Keys: mutter (GNOME 43) runs the keybindings first, then hands a key
// event to the focused Wayland client only while the stage itself has the
// Clutter key focus; when a shell actor has it (as during keyboard
// navigation of the panel), the event goes to that actor instead. So while
// locked, an invisible actor of ours holds the stage's key focus and
// swallows every key event. Whenever the focus falls back to the stage
// (a window was focused, an actor lost the focus), it is taken again,
// except during a grab: a modal dialog (the end dialog with its passcode
// entry, the polkit agent) or a menu has the keys then, and when the grab
// ends the shell gives the focus back to our actor. The end shortcut is a
// keybinding, which mutter runs before any of this. (A Clutter event
// filter is not an option: mutter 11 does not run them for device events.)
//
// On-screen keyboard: whatever asks it to open, its container
// (Main.layoutManager.keyboardBox) is kept hidden, and an open keyboard is
// closed; its text could otherwise reach an app through the input method,
// without key events. destroy() gives the container back the visibility it
// had (the keyboard was closed meanwhile, so it stays closed).

export class KeyboardLock {
    constructor(deps) {
        this._deps = deps;
        this._sink = null;
        this._focusId = 0;
        this._boxVisibleId = 0;
        this._boxWasVisible = false;
    }

    get blocked() {
        return this._sink !== null;
    }

    setBlocked(blocked) {
        if (blocked === this.blocked)
            return;
        const {Clutter, St, Main, global} = this._deps;
        const box = Main.layoutManager.keyboardBox;
        if (blocked) {
            this._sink = new St.Widget({
                name: 'guided-access-key-sink', reactive: false, can_focus: true,
                width: 1, height: 1, opacity: 0,
            });
            for (const signal of ['key-press-event', 'key-release-event'])
                this._sink.connect(signal, () => Clutter.EVENT_STOP);
            Main.layoutManager.uiGroup.add_child(this._sink);
            this._focusId = global.stage.connect('notify::key-focus', () => this._takeFocus());
            this._takeFocus();
            Main.keyboard.close();
            this._boxWasVisible = box.visible;
            box.hide();
            this._boxVisibleId = box.connect('notify::visible', () => {
                if (box.visible)
                    box.hide();
            });
        } else {
            global.stage.disconnect(this._focusId);
            this._focusId = 0;
            const hadFocus = global.stage.key_focus === this._sink;
            this._sink.destroy();
            this._sink = null;
            // Back to the stage, hence to the focused window, as before.
            if (hadFocus)
                global.stage.set_key_focus(null);
            box.disconnect(this._boxVisibleId);
            this._boxVisibleId = 0;
            box.visible = this._boxWasVisible;
        }
    }

    _takeFocus() {
        const {global} = this._deps;
        const focus = global.stage.key_focus;
        if (focus !== null && focus !== global.stage)
            return; // ours, or a shell actor's: not an app's
        if (global.stage.get_grab_actor() !== null)
            return; // a modal dialog or menu has the keys
        global.stage.set_key_focus(this._sink);
    }

    destroy() {
        this.setBlocked(false);
    }
}
