// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window (the extension's preferences, `gnome-extensions prefs
// guided-access@guidedaccess.org`), shared by the GNOME 43/44 entry
// (prefs.js) and the 45+ one (prefs.esm.js), which pass the libraries in:
//
//   General  the passcode (PasscodeSet, SetPasscode), time-limit alerts
//            (time-limit-sound, time-limit-speech), defaults (default-auto-lock,
//            end-shortcut, show-region-outlines, panel-menus-during-session)
//   Apps     each app's custom restrictions (Restrictions1: List, SetState,
//            Reset), the managed AllowedApplications (read only)
//
// Built from Adw rows like gnome-shell-extensions' auto-move-windows: each
// control is a row or in one, so Tab, Space and Enter work it and a title
// names it for assistive technology (a switch is its row's activatable
// widget, labelled by the title; a button is named by its label, Reset by
// an accessible label of its own). What needs the daemon is greyed out,
// with a message and "Try Again", while the daemon cannot be reached.

import {format} from './formatting.js';
import {SettingsBus} from './settingsBus.js';
import {autoLockChoices, checkShortcut, restrictionsByApp} from './settingsModel.js';
import {SOUND_KEY, SPEECH_KEY} from './timeAlerts.js';

const AUTO_LOCK_KEY = 'default-auto-lock';
const SHORTCUT_KEY = 'end-shortcut';
const OUTLINES_KEY = 'show-region-outlines';
const PANEL_MENUS_KEY = 'panel-menus-during-session';
const MANAGED_CONFIG = '/etc/guided-access/managed.json';

// deps: {Adw, Gtk, Gio, GLib, settings (the extension's Gio.Settings),
// _ and ngettext (gettext in the domain guided-access)}.
export function fillSettingsWindow(window, deps) {
    const view = new SettingsWindow(window, deps);
    window.connect('close-request', () => {
        view.destroy();
        return false;
    });
    return view;
}

function accessibleLabel({Gtk}, widget, text) {
    // A button's own label names it from GTK 4.12 on, before this property.
    widget.reset_relation(Gtk.AccessibleRelation.LABELLED_BY);
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text]);
}

// Names for the parts libadwaita builds without one, which a screen reader
// would read by their type ("GtkImage, button", "GtkSearchEntry",
// "GtkScrollbar"): the preferences window's search entry, each page's
// scroll bars and the password rows' "show" buttons. Found by walking the
// widgets, as these are inside libadwaita's own templates.
function nameToolkitParts(deps, window) {
    const {Adw, Gtk, _} = deps;
    const visit = (widget, page) => {
        if (widget instanceof Adw.PreferencesPage)
            page = widget.title;
        if (widget instanceof Gtk.SearchEntry) {
            accessibleLabel(deps, widget, _('Search settings'));
        } else if (widget instanceof Gtk.Scrollbar) {
            const vertical = widget.orientation === Gtk.Orientation.VERTICAL;
            const label = page
                ? format(vertical ? _('Scroll the %s page') : _('Scroll the %s page sideways'), page)
                : vertical ? _('Scroll the search results') : _('Scroll the search results sideways');
            accessibleLabel(deps, widget, label);
        } else if (widget instanceof Gtk.Button && !widget.label && isInside(widget, Adw.PasswordEntryRow)) {
            namePeekButton(deps, widget);
        }
        for (let child = widget.get_first_child(); child !== null; child = child.get_next_sibling())
            visit(child, page);
    };
    visit(window, '');
}

function isInside(widget, type) {
    for (let parent = widget.get_parent(); parent !== null; parent = parent.get_parent()) {
        if (parent instanceof type)
            return true;
    }
    return false;
}

// The eye button of a password row says what pressing it does, as its
// icon shows it (libadwaita changes the icon when the passcode is shown;
// some versions on the button, some on the image inside it).
function namePeekButton(deps, button) {
    const {Gtk, _} = deps;
    const icon = () => button.icon_name ?? (button.child instanceof Gtk.Image ? button.child.icon_name : null);
    const update = () => accessibleLabel(deps, button,
        icon() === 'view-conceal-symbolic' ? _('Hide the passcode') : _('Show the passcode'));
    button.connect('notify::icon-name', update);
    button.connect('clicked', update);
    update();
}

// An Adw.ActionRow with a switch. The row's title names the switch: as its
// activatable widget the switch is "labelled by" the title (which is also
// why a second, own label would make a screen reader say it twice).
function switchRow({Adw, Gtk}, title, subtitle = '') {
    const toggle = new Gtk.Switch({valign: Gtk.Align.CENTER});
    const row = new Adw.ActionRow({title, subtitle, use_markup: false, activatable_widget: toggle});
    row.add_suffix(toggle);
    return {row, toggle};
}

// A row that says what happened last (hidden until something did).
class MessageRow {
    constructor({Adw, Gtk}) {
        this._icon = new Gtk.Image({icon_name: 'dialog-information-symbolic'});
        this.row = new Adw.ActionRow({use_markup: false, visible: false});
        this.row.add_prefix(this._icon);
    }

    show(text, isError) {
        this._icon.icon_name = isError ? 'dialog-warning-symbolic' : 'emblem-ok-symbolic';
        this.row.title = text;
        this.row.visible = text !== '';
    }
}

// "The service cannot be reached" with Try Again, one per page.
class ServiceStatus {
    constructor(deps, retry) {
        const {Adw, Gtk, _} = deps;
        this._deps = deps;
        this.group = new Adw.PreferencesGroup({visible: false});
        this._row = new Adw.ActionRow({
            title: _('The Guided Access service cannot be reached'), use_markup: false,
        });
        this._row.add_prefix(new Gtk.Image({icon_name: 'dialog-warning-symbolic'}));
        const button = new Gtk.Button({label: _('Try Again'), valign: Gtk.Align.CENTER});
        button.connect('clicked', retry);
        this._row.add_suffix(button);
        this.group.add(this._row);
    }

    update(bus, connecting) {
        const {_} = this._deps;
        this.group.visible = !connecting && !bus.reachable;
        this._row.subtitle = bus.error !== null
            ? format(_('guided-accessd did not start: %s'), bus.error)
            : _('guided-accessd is not running. Try Again starts it.');
    }
}

class PasscodeGroup {
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

class TimeLimitGroup {
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

class DefaultsGroup {
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

function appLabel({Gio, GLib}, app) {
    if (app.startsWith('/'))
        return GLib.path_get_basename(app);
    try {
        const info = Gio.DesktopAppInfo.new(`${app}.desktop`);
        if (info !== null)
            return info.get_name();
    } catch (_error) {
        // no such desktop file
    }
    return app;
}

// One app's custom restrictions: an expander with a switch per restriction
// (on = allowed) and Reset in its header; open from the start when there
// are few apps, so that nothing needs opening to be seen.
const APPS_SHOWN_OPEN = 6;

class AppRestrictions {
    constructor(deps, bus, app, report, expanded) {
        const {Adw, Gtk, _} = deps;
        this._deps = deps;
        this._bus = bus;
        this._report = report;
        const label = appLabel(deps, app);
        this.app = app;
        this.row = new Adw.ExpanderRow({
            title: label, subtitle: label === app ? '' : app, use_markup: false, expanded,
        });
        const reset = new Gtk.Button({label: _('Reset'), valign: Gtk.Align.CENTER});
        reset.tooltip_text = _('Allow all of them again');
        accessibleLabel(deps, reset, format(_('Reset the restrictions of %s'), label));
        reset.connect('clicked', () => this._reset());
        this.row.add_action(reset);
        this._resetButton = reset;
        this._label = label;
        this._entries = new Map(); // identifier → {row, toggle, syncing, pending}
    }

    update(restrictions) {
        const seen = new Set();
        for (const restriction of restrictions) {
            seen.add(restriction.identifier);
            let entry = this._entries.get(restriction.identifier);
            if (entry === undefined) {
                entry = this._add(restriction.identifier, restriction.text);
                this._entries.set(restriction.identifier, entry);
            }
            entry.row.title = restriction.text;
            entry.row.subtitle = restriction.detail;
            if (!entry.pending)
                this._show(entry, restriction.allowed);
        }
        for (const [identifier, entry] of this._entries) {
            if (!seen.has(identifier)) {
                this.row.remove(entry.row);
                this._entries.delete(identifier);
            }
        }
        const {_} = this._deps;
        const running = restrictions.some(restriction => restriction.registered);
        this.row.subtitle = running ? this._appSubtitle() : [this._appSubtitle(), _('not running')]
            .filter(text => text !== '').join(' · ');
    }

    // Each control (see PasscodeGroup.update).
    setSensitive(sensitive) {
        this._resetButton.sensitive = sensitive;
        for (const entry of this._entries.values())
            entry.toggle.sensitive = sensitive;
    }

    _appSubtitle() {
        return this._label === this.app ? '' : this.app;
    }

    _add(identifier, text) {
        const entry = {...switchRow(this._deps, text), syncing: false, pending: false};
        entry.toggle.connect('state-set', (_toggle, allowed) => {
            if (entry.syncing)
                return false;
            this._set(identifier, entry, allowed);
            return true; // the switch shows the new state once the daemon took it
        });
        this.row.add_row(entry.row);
        return entry;
    }

    _show(entry, allowed) {
        entry.syncing = true;
        entry.toggle.active = allowed;
        entry.toggle.state = allowed;
        entry.syncing = false;
    }

    async _set(identifier, entry, allowed) {
        const {_} = this._deps;
        entry.pending = true;
        try {
            await this._bus.setRestriction(identifier, allowed);
            this._show(entry, allowed);
            this._report('', false);
        } catch (error) {
            this._show(entry, !allowed);
            this._report(format(_('“%s” was not changed: %s'), entry.row.title, error.message), true);
        } finally {
            entry.pending = false;
        }
    }

    async _reset() {
        const {_} = this._deps;
        try {
            await this._bus.resetRestrictions([...this._entries.keys()]);
            this._report(format(_('Everything %s declared is allowed again.'), this._label), false);
        } catch (error) {
            this._report(format(_('%s was not reset: %s'), this._label, error.message), true);
        }
    }
}

class AppsGroup {
    constructor(deps, bus) {
        const {Adw, _} = deps;
        this._deps = deps;
        this._bus = bus;
        this.group = new Adw.PreferencesGroup({
            title: _('App Restrictions'),
            description: _('What apps ask to be switched off during a session. On: the app may do it.'),
        });
        this._message = new MessageRow(deps);
        this.group.add(this._message.row);
        this._empty = new Adw.ActionRow({title: _('No app has declared restrictions'), use_markup: false});
        this.group.add(this._empty);
        this._apps = new Map(); // app → AppRestrictions
    }

    update(rows) {
        const apps = restrictionsByApp(rows);
        const seen = new Set();
        for (const {app, restrictions} of apps) {
            seen.add(app);
            let view = this._apps.get(app);
            if (view === undefined) {
                view = new AppRestrictions(this._deps, this._bus, app, (text, isError) =>
                    this._message.show(text, isError), this._apps.size < APPS_SHOWN_OPEN);
                this._apps.set(app, view);
                this.group.add(view.row);
            }
            view.update(restrictions);
        }
        for (const [app, view] of this._apps) {
            if (!seen.has(app)) {
                this.group.remove(view.row);
                this._apps.delete(app);
            }
        }
        this._empty.visible = this._apps.size === 0;
    }

    sync() {
        this.group.sensitive = this._bus.reachable;
        for (const view of this._apps.values())
            view.setSensitive(this._bus.reachable);
    }
}

class AllowedAppsGroup {
    constructor(deps, bus) {
        const {Adw, _} = deps;
        this._deps = deps;
        this._bus = bus;
        this.group = new Adw.PreferencesGroup({
            title: _('Apps That May Lock Themselves'),
            description: format(_('Set by the administrator in %s (AllowedApplications); change them there.'),
                MANAGED_CONFIG),
        });
        this._rows = [];
    }

    sync() {
        const {Adw, _} = this._deps;
        this.group.sensitive = this._bus.reachable;
        const apps = this._bus.allowedApplications;
        if (this._shown !== undefined && apps.join('\n') === this._shown)
            return; // rows kept, and with them the keyboard focus
        this._shown = apps.join('\n');
        for (const row of this._rows)
            this.group.remove(row);
        this._rows = apps.length === 0
            ? [new Adw.ActionRow({title: _('None'), use_markup: false})]
            : apps.map(app => {
                const label = appLabel(this._deps, app);
                return new Adw.ActionRow({title: label, subtitle: label === app ? '' : app, use_markup: false});
            });
        for (const row of this._rows)
            this.group.add(row);
    }
}

class SettingsWindow {
    constructor(window, deps) {
        const {Adw, _} = deps;
        this._connecting = true;
        this._bus = new SettingsBus(deps, {
            changed: () => this._sync(),
            restrictionsChanged: rows => this._apps.update(rows),
        });
        const retry = () => this._connect();

        const general = new Adw.PreferencesPage({title: _('General'), icon_name: 'preferences-system-symbolic'});
        this._statuses = [new ServiceStatus(deps, retry), new ServiceStatus(deps, retry)];
        this._passcode = new PasscodeGroup(deps, this._bus);
        this._defaults = new DefaultsGroup(deps);
        for (const group of [this._statuses[0].group, this._passcode.group, new TimeLimitGroup(deps).group,
            this._defaults.group])
            general.add(group);

        const apps = new Adw.PreferencesPage({title: _('Apps'), icon_name: 'view-app-grid-symbolic'});
        this._apps = new AppsGroup(deps, this._bus);
        this._allowed = new AllowedAppsGroup(deps, this._bus);
        for (const group of [this._statuses[1].group, this._apps.group, this._allowed.group])
            apps.add(group);

        window.add(general);
        window.add(apps);
        nameToolkitParts(deps, window);
        window.set_default_size(640, 760);
        this._connect();
    }

    async _connect() {
        this._connecting = true;
        this._sync();
        await this._bus.connect();
        this._connecting = false;
        this._sync();
    }

    _sync() {
        for (const status of this._statuses)
            status.update(this._bus, this._connecting);
        this._passcode.update();
        this._apps.sync();
        this._allowed.sync();
    }

    destroy() {
        this._bus.destroy();
        this._defaults.destroy();
    }
}
