// SPDX-License-Identifier: GPL-2.0-or-later
// What a person sees and uses: the end/start shortcut (pressed three times
// within a second, like iOS's triple-click), its dialog, the session's
// indicator in the top bar (a lock, the remaining time, and a menu with
// "End Guided Access…", the one panel menu left during a session, and a
// switch for each feature of the session's accessibility shortcut), the time
// left beside the app when it is on a monitor without the top bar
// (TimePill), and the time-limit warnings. The end dialog opens on the
// monitor the person works on, with the accessibility switches after the
// passcode (accessibilitySwitches.js). With no session the shortcut opens
// the start sheet (startSheet.js).

import {OWN_INDICATOR_ROLE} from './panelLockdown.js';
import {StartSheet} from './startSheet.js';
import {AppMenuItem} from './appMenuItem.js';
import {formatRemaining, remainingSeconds} from '../common/session.js';
import {TriplePress} from './triplePress.js';
import {TimePill} from './timePill.js';
import {NextFrame} from './nextFrame.js';
import {isClosing, newDialog, openOnMonitor} from './monitorDialog.js';
import {nameText} from './accessibleText.js';
import {END_OPTIONS} from '../common/contract.js';
import {AccessibilityMenuSection, AccessibilityRows} from './accessibilitySwitches.js';

export const SHORTCUT_KEY = 'end-shortcut';

export class SessionUI {
    // deps: {_, GLib, Gio, St, Clutter, Meta, Shell, Atk, Main, ModalDialog, PanelMenu,
    // PopupMenu, global, settings, uuid}. Binds the shortcut and adds the
    // app menu item at once; destroy() takes them away again.
    constructor(deps, service) {
        this._deps = deps;
        this._service = service;
        this._session = null;
        this._triplePress = new TriplePress();
        this._dialog = null;
        this._sheet = null; // the StartSheet, 'asking' while it is being made, or null
        this._indicator = null;
        this._accessibilityMenu = null; // the indicator's AccessibilityMenuSection
        this._accessibilityMenuKey = ''; // the features it shows
        this._accessibilityRows = null; // the end dialog's AccessibilityRows
        this._timeLabel = null;
        this._timePill = null;
        this._workingMonitor = -1; // the index of the monitor the person works on, -1 for the primary
        this._tickSource = 0;
        this._nextFrame = new NextFrame(deps);
        const {Main, Meta, Shell, settings} = deps;
        Main.wm.addKeybinding(SHORTCUT_KEY, settings, Meta.KeyBindingFlags.IGNORE_AUTOREPEAT,
            Shell.ActionMode.ALL, () => this._pressed());
        this._appMenuItem = new AppMenuItem(deps, () => this.openStartSheet());
    }

    destroy() {
        this._deps.Main.wm.removeKeybinding(SHORTCUT_KEY);
        this._appMenuItem.destroy();
        this._appMenuItem = null;
        this._session = null;
        this._nextFrame.destroy();
        if (this._indicator !== null)
            this._hideIndicator();
        this._dialog?.close();
        this._dialog = null;
        if (this._sheet !== 'asking')
            this._sheet?.destroy();
        this._sheet = null;
    }

    // The session being enforced (see ServiceClient.session()), or null.
    // The indicator and the time left come a frame after the lock and go a
    // frame after the end (NextFrame): building them takes longer than the
    // lock, and any change to the top bar repaints it (panelLockdown.js).
    setSession(session) {
        this._session = session;
        this._appMenuItem?.setShown(session === null);
        if (session !== null && this._sheet instanceof StartSheet)
            this._sheet.close(); // started elsewhere meanwhile
        if (session === null) {
            if (this._indicator === null)
                this._nextFrame.cancel();
            else
                this._nextFrame.run(() => this._hideIndicator());
        } else if (this._indicator === null) {
            this._nextFrame.run(() => this._showSession());
        } else {
            this._nextFrame.cancel();
            this._showSession();
        }
    }

    _showSession() {
        if (this._indicator === null)
            this._showIndicator();
        this._showAccessibilityMenu(this._session.accessibilityShortcut);
        this._tick();
    }

    // A feature of Features1 went on or off: the switches show it.
    featuresChanged() {
        this._accessibilityMenu?.update();
        this._accessibilityRows?.update();
    }

    // The indicator menu's switches, made again when the shortcut changed.
    _showAccessibilityMenu(features) {
        const key = features.join('\n');
        if (this._accessibilityMenu !== null && this._accessibilityMenuKey === key)
            return;
        this._accessibilityMenu?.destroy();
        this._accessibilityMenu = new AccessibilityMenuSection(this._deps, this._service, features);
        this._accessibilityMenuKey = key;
        this._indicator.menu.addMenuItem(this._accessibilityMenu.section);
    }

    // index: the monitor the person works on (the locked app's).
    setWorkingMonitor(index) {
        this._workingMonitor = index;
        if (this._session !== null)
            this._tick();
    }

    _showIndicator() {
        const {_, St, Clutter, GLib, Main, PanelMenu} = this._deps;
        this._indicator = new PanelMenu.Button(0.0, _('Guided Access'), false);
        this._indicator.name = 'guided-access-indicator';
        const box = new St.BoxLayout({style_class: 'panel-status-indicators-box'});
        box.add_child(new St.Icon({icon_name: 'changes-prevent-symbolic', style_class: 'system-status-icon'}));
        this._timeLabel = new St.Label({y_align: Clutter.ActorAlign.CENTER});
        box.add_child(this._timeLabel);
        this._indicator.add_child(box);
        this._indicator.menu.addAction(_('End Guided Access…'), () => this._openEndDialog());
        Main.panel.addToStatusArea(OWN_INDICATOR_ROLE, this._indicator, 0, 'right');
        this._timePill = new TimePill(this._deps);
        this._tickSource = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 1, () => {
            this._tick();
            return GLib.SOURCE_CONTINUE;
        });
    }

    _hideIndicator() {
        this._deps.GLib.source_remove(this._tickSource);
        this._tickSource = 0;
        this._accessibilityMenu.destroy();
        this._accessibilityMenu = null;
        this._indicator.destroy();
        this._indicator = null;
        this._timeLabel = null;
        this._timePill.destroy();
        this._timePill = null;
        this._workingMonitor = -1;
    }

    _tick() {
        // Before the session's first frame, or in the frame after its end.
        if (this._indicator === null || this._session === null)
            return;
        const {_, GLib} = this._deps;
        const limited = this._session.timeLimit > 0;
        const left = limited ? formatRemaining(remainingSeconds(this._session, GLib.get_real_time())) : '';
        this._timeLabel.visible = limited;
        this._timeLabel.text = left;
        this._indicator.accessible_name = limited ? _('Guided Access, %s left').format(left) : _('Guided Access');
        const {layoutManager} = this._deps.Main;
        const beside = this._workingMonitor >= 0 && this._workingMonitor !== layoutManager.primaryIndex;
        this._timePill.show(left, this._indicator.accessible_name,
            beside ? layoutManager.monitors[this._workingMonitor] ?? null : null);
    }


    // TimeLimitWarning: shown as an OSD, which 'notifications' deny does not hide.
    warn(secondsLeft) {
        const {_, Gio, Main} = this._deps;
        const icon = new Gio.ThemedIcon({name: 'alarm-symbolic'});
        const text = _('Guided Access ends in %s').format(formatRemaining(Number(secondsLeft)));
        // On every monitor: showAll() from GNOME 49 on, show(-1, …) before.
        if (Main.osdWindowManager.showAll)
            Main.osdWindowManager.showAll(icon, text);
        else
            Main.osdWindowManager.show(-1, icon, text);
    }

    _pressed() {
        if (!this._triplePress.press(this._deps.GLib.get_monotonic_time()))
            return;
        if (this._dialogOpen())
            return;
        if (this._session !== null)
            this._openEndDialog();
        else
            this.openStartSheet();
    }

    // Whether the end dialog or the start sheet is open or opening. One
    // closing does not count (it leaves the stage only in the shell's next
    // frame, late on a loaded machine): the gesture pressed again right
    // after Cancel opens the next at once.
    _dialogOpen() {
        const dialogOpen = this._dialog !== null && !isClosing(this._dialog, this._deps.ModalDialog);
        const sheetOpen = this._sheet === 'asking' || (this._sheet !== null && !this._sheet.closing);
        return dialogOpen || sheetOpen;
    }

    _newDialog(title, body) {
        const {St} = this._deps;
        const dialog = newDialog(this._deps, {styleClass: 'guided-access-dialog'});
        dialog.accessible_name = title;
        dialog.contentLayout.add_child(new St.Label({
            text: title, style: 'font-weight: bold; font-size: 14pt; padding-bottom: 8px;',
        }));
        if (body)
            dialog.contentLayout.add_child(new St.Label({text: body}));
        const message = new St.Label({
            name: 'guided-access-message', text: '', style_class: 'prompt-dialog-error-label',
        });
        dialog.connect('destroy', () => {
            if (this._dialog === dialog)
                this._dialog = null;
        });
        this._dialog = dialog;
        return {dialog, message};
    }

    _openEndDialog() {
        if (this._dialogOpen() || this._session === null)
            return;
        const {_, St, GLib, Clutter, global} = this._deps;
        const session = this._session;
        const {dialog, message} = this._newDialog(_('End Guided Access'),
            session.passcodeSet ? _('Enter the passcode.') : _('An administrator must confirm.'));
        let entry = null;
        if (session.passcodeSet) {
            entry = new St.PasswordEntry({
                name: 'guided-access-passcode', can_focus: true, hint_text: _('Passcode'),
                accessible_name: _('Passcode'), style: 'min-width: 16em;',
            });
            nameText(entry.clutter_text, _('Passcode'));
            dialog.contentLayout.add_child(entry);
        }
        dialog.contentLayout.add_child(message);
        // The accessibility shortcut: reached from here without the passcode.
        const rows = new AccessibilityRows(this._deps, this._service, session.accessibilityShortcut,
            text => (message.text = text));
        dialog.contentLayout.add_child(rows.actor);
        this._accessibilityRows = rows;
        dialog.connect('destroy', () => {
            rows.destroy();
            if (this._accessibilityRows === rows)
                this._accessibilityRows = null;
        });
        const end = () => {
            const options = entry !== null
                ? {[END_OPTIONS.passcode]: new GLib.Variant('s', entry.get_text())}
                : {[END_OPTIONS.interactive]: new GLib.Variant('b', true)};
            this._service.daemon.end(options).then(
                () => dialog.close(),
                error => {
                    // The daemon's own words, including its back-off.
                    message.text = error.message;
                    entry?.set_text('');
                });
        };
        entry?.clutter_text.connect('activate', end);
        dialog.setButtons([
            {label: _('Cancel'), action: () => dialog.close(), key: Clutter.KEY_Escape},
            {label: _('End'), action: end, default: true},
        ]);
        if (!openOnMonitor(dialog, this._workingMonitor)) {
            log('Guided Access: no end dialog: the shell refused it the keyboard and pointer');
            dialog.destroy();
            return;
        }
        if (entry !== null)
            global.stage.set_key_focus(entry);
    }

    // The start sheet for the focused window's app. Without an app id (a
    // window whose process the daemon cannot name) there is nothing to lock to.
    openStartSheet() {
        const window = this._deps.global.display.focus_window;
        if (this._session !== null || this._dialogOpen())
            return;
        if (window === null) {
            log('Guided Access: no start sheet: no window has the focus');
            return;
        }
        this._sheet = 'asking'; // one at a time, also while the ids are asked
        this._service.appIds(window.get_pid()).then(ids => {
            if (ids.length === 0 || this._session !== null || this._sheet !== 'asking') {
                if (ids.length === 0)
                    log(`Guided Access: no start sheet: the service knows no app for "${window.get_title()}" (pid ${window.get_pid()})`);
                this._sheet = null;
                return;
            }
            // A closing sheet forgets itself only if no newer one came meanwhile.
            const forget = () => {
                if (this._sheet === sheet)
                    this._sheet = null;
            };
            const sheet = new StartSheet(this._deps, this._service, {window, app: ids[0], ids}, {
                closed: forget,
                openSettings: () => this._deps.Main.extensionManager.openExtensionPrefs(this._deps.uuid, '', {}),
            });
            this._sheet = sheet;
            sheet.open().catch(error => {
                logError(error, 'Guided Access: cannot open the start sheet');
                sheet.destroy();
                forget();
            });
        });
    }
}
