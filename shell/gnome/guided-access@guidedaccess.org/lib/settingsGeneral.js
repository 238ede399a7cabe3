// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window's General page: the passcode, the time-limit alerts
// and the defaults of a session started from the shell.

import {format} from './formatting.js';
import {autoLockChoices, checkShortcut} from './settingsModel.js';
import {MessageRow, switchRow} from './settingsRows.js';
import {SOUND_KEY, SPEECH_KEY} from './timeAlerts.js';

const AUTO_LOCK_KEY = 'default-auto-lock';
const SHORTCUT_KEY = 'end-shortcut';
const OUTLINES_KEY = 'show-region-outlines';
const PANEL_MENUS_KEY = 'panel-menus-during-session';

export class PasscodeGroup {
    constructor(deps, bus) {
        const {Adw, Gtk, _} = deps;
        this._deps = deps;
        this._bus = bus;
        this.group = new Adw.PreferencesGroup({
            title: _('Passcode'),
            description: _('Ends a Guided Access session. Without one, an administrator must confirm the end.'),
        });
        this._status = new Adw.ActionRow({title: _('Passcode'), use_markup: false});
        this._first = new Adw.PasswordEntryRow({title: _('New passcode')});
        this._second = new Adw.PasswordEntryRow({title: _('New passcode again')});
        this._button = new Gtk.Button({valign: Gtk.Align.CENTER, sensitive: false});
        this._button.add_css_class('suggested-action');
        // Not the row's activatable widget: the button keeps its own name.
        this._action = new Adw.ActionRow({title: _('4 to 64 characters, typed twice'), use_markup: false});
        this._action.add_suffix(this._button);
        this._message = new MessageRow(deps);
        for (const row of [this._status, this._first, this._second, this._action, this._message.row])
            this.group.add(row);

        const typed = () => this._syncButton();
        this._first.connect('changed', typed);
        this._second.connect('changed', typed);
        this._first.connect('entry-activated', () => this._second.grab_focus());
        this._second.connect('entry-activated', () => this._set());
        this._button.connect('clicked', () => this._set());
        this._busy = false;
        this.update();
    }

    // Each control, not only the group: GTK 4.8 tells assistive technology
    // a widget's own sensitivity, not its parents'.
    update() {
        const {_} = this._deps;
        const set = this._bus.passcodeSet;
        this._status.subtitle = set ? _('Set') : _('Not set: ending a session needs an administrator');
        this._button.label = set ? _('Change Passcode') : _('Set Passcode');
        this.group.sensitive = this._first.sensitive = this._second.sensitive = this._bus.reachable;
        this._syncButton();
    }

    _syncButton() {
        this._button.sensitive = this._bus.reachable && !this._busy &&
            this._first.text !== '' && this._second.text !== '';
    }

    async _set() {
        const {_} = this._deps;
        if (this._busy || this._first.text === '')
            return;
        if (this._first.text !== this._second.text) {
            this._message.show(_('The two passcodes differ. Type the same passcode twice.'), true);
            this._second.text = '';
            this._first.grab_focus();
            return;
        }
        this._busy = true;
        this._button.sensitive = false;
        this._message.show(_('Setting the passcode… an administrator may be asked to confirm.'), false);
        try {
            await this._bus.setPasscode(this._first.text);
            this._first.text = this._second.text = '';
            this._message.show(_('The passcode is set.'), false);
        } catch (error) {
            this._message.show(format(_('The passcode was not set: %s'), error.message), true);
        } finally {
            this._busy = false;
            this._syncButton();
        }
    }
}

export class TimeLimitGroup {
    constructor(deps) {
        const {Adw, Gio, GLib, settings, _} = deps;
        this.group = new Adw.PreferencesGroup({
            title: _('Time Limits'),
            description: _('5 minutes, 1 minute and 10 seconds before a session’s time limit ends.'),
        });
        const sound = switchRow(deps, _('Play a sound'));
        const spoken = GLib.find_program_in_path('spd-say') !== null;
        const speech = switchRow(deps, _('Speak the time left'), spoken
            ? _('Through speech-dispatcher')
            : _('speech-dispatcher (spd-say) is not installed: the sound plays instead'));
        settings.bind(SOUND_KEY, sound.toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        settings.bind(SPEECH_KEY, speech.toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        this.group.add(sound.row);
        this.group.add(speech.row);
    }
}

export class DefaultsGroup {
    constructor(deps) {
        const {Adw, Gio, settings, _} = deps;
        this._deps = deps;
        this.group = new Adw.PreferencesGroup({title: _('Defaults')});

        this._autoLock = new Adw.ComboRow({
            title: _('Display auto-lock'), use_markup: false,
            subtitle: _('During a session of an app locked the first time; each app’s own choice is remembered'),
        });
        this._autoLock.connect('notify::selected', () => {
            const choice = this._choices?.[this._autoLock.selected];
            if (!this._syncing && choice !== undefined && choice.seconds !== settings.get_int64(AUTO_LOCK_KEY))
                settings.set_int64(AUTO_LOCK_KEY, choice.seconds);
        });
        this._settingIds = [settings.connect(`changed::${AUTO_LOCK_KEY}`, () => this._showAutoLock())];
        this._showAutoLock();
        this.group.add(this._autoLock);

        this._shortcut = new Adw.EntryRow({
            title: _('End and start shortcut, pressed three times'), show_apply_button: true,
        });
        this._shortcut.connect('apply', () => this._applyShortcut());
        this._settingIds.push(settings.connect(`changed::${SHORTCUT_KEY}`, () => this._showShortcut()));
        this._showShortcut();
        this.group.add(this._shortcut);
        this._shortcutMessage = new MessageRow(deps);
        this.group.add(this._shortcutMessage.row);

        const outlines = switchRow(deps, _('Outline disabled regions'),
            _('A faint outline shows where touches and clicks are ignored'));
        settings.bind(OUTLINES_KEY, outlines.toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        this.group.add(outlines.row);
        const menus = switchRow(deps, _('Keep the calendar and system menu'),
            _('During a session, while notifications or the power menu are allowed'));
        settings.bind(PANEL_MENUS_KEY, menus.toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        this.group.add(menus.row);
    }

    _showAutoLock() {
        const {Gtk, settings} = this._deps;
        const current = settings.get_int64(AUTO_LOCK_KEY);
        this._choices = autoLockChoices(current, this._deps);
        this._syncing = true;
        this._autoLock.model = Gtk.StringList.new(this._choices.map(choice => choice.label));
        this._autoLock.selected = this._choices.findIndex(choice => choice.seconds === current);
        this._syncing = false;
    }

    _showShortcut() {
        const [accelerator = ''] = this._deps.settings.get_strv(SHORTCUT_KEY);
        this._shortcut.text = accelerator;
    }

    _applyShortcut() {
        const {Gtk, settings, _} = this._deps;
        const checked = checkShortcut(this._shortcut.text, {
            parse: text => Gtk.accelerator_parse(text), name: (key, mods) => Gtk.accelerator_name(key, mods), _,
        });
        if (checked.error !== undefined) {
            this._shortcutMessage.show(checked.error, true);
            this._shortcut.add_css_class('error');
            return;
        }
        this._shortcut.remove_css_class('error');
        settings.set_strv(SHORTCUT_KEY, [checked.accelerator]);
        const [, key, mods] = Gtk.accelerator_parse(checked.accelerator);
        this._shortcutMessage.show(format(_('The shortcut is %s, pressed three times within a second.'),
            Gtk.accelerator_get_label(key, mods)), false);
    }

    destroy() {
        for (const id of this._settingIds)
            this._deps.settings.disconnect(id);
    }
}
