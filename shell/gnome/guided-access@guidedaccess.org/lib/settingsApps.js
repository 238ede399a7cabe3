// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window's Apps page: each app's custom restrictions and the
// apps the administrator lets lock themselves.

import {format} from './formatting.js';
import {restrictionsByApp} from './settingsModel.js';
import {MessageRow, accessibleLabel, switchRow} from './settingsRows.js';

const MANAGED_CONFIG = '/etc/guided-access/managed.json';

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

    // Each control (see PasscodeGroup.update in settingsGeneral.js).
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

export class AppsGroup {
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

export class AllowedAppsGroup {
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
