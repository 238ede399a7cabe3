// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window's view of guided-accessd on the session bus: the
// passcode (PasscodeSet, SetPasscode), the managed AllowedApplications, and
// the custom restrictions (Restrictions1: List, SetState, Reset), followed
// through their change signals. Runs in the preferences process (GTK), not
// in the shell; imports no GNOME module (the entry point passes Gio, GLib).
// The daemon's members are reached through daemon.js.
//
// Admin calls carry the message flag ALLOW_INTERACTIVE_AUTHORIZATION, which
// is how SetPasscode and SetState take `interactive` (they have no options
// argument): polkit may then ask for a password, so they wait long.

import {BUS_NAME, CALL_TIMEOUT_MS, Daemon} from './daemon.js';

// Several change signals in a row (a registration of many restrictions,
// a Reset) are read back with one List.
const REFRESH_DELAY_MS = 50;

export class SettingsBus {
    // callbacks: changed() when reachability or a session property changed,
    // restrictionsChanged(rows) with the new List rows.
    constructor({Gio, GLib}, callbacks) {
        this._Gio = Gio;
        this._GLib = GLib;
        this._callbacks = callbacks;
        this._cancellable = new Gio.Cancellable();
        this._connection = null;
        this._daemon = null; // a Daemon per connect()
        this._refreshSource = 0;
        this.error = null; // why the daemon cannot be reached, or null
    }

    get reachable() {
        return this._daemon?.reachable ?? false;
    }

    // Asks the bus to start the daemon (bus activation), then follows it.
    // Called again by "Try Again".
    async connect() {
        const {Gio, GLib} = this;
        this._forgetDaemon();
        this.error = null;
        try {
            this._connection ??= await new Promise((resolve, reject) =>
                Gio.bus_get(Gio.BusType.SESSION, this._cancellable, (_source, result) => {
                    try {
                        resolve(Gio.bus_get_finish(result));
                    } catch (error) {
                        reject(error);
                    }
                }));
            // A daemon already on the bus is used as it is (it may have been
            // started by hand, without an activation file); otherwise the
            // bus is asked to start it first, so that a failure says why
            // (the proxies would only find the name without an owner).
            const [running] = await this._call(this._connection, 'org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'NameHasOwner', new GLib.Variant('(s)', [BUS_NAME]),
                Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS);
            if (!running) {
                await this._call(this._connection, 'org.freedesktop.DBus', '/org/freedesktop/DBus',
                    'org.freedesktop.DBus', 'StartServiceByName', new GLib.Variant('(su)', [BUS_NAME, 0]),
                    Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS);
            }
            this._daemon = this._newDaemon();
            await this._daemon.connect(this._connection);
        } catch (error) {
            if (error.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                return;
            this._forgetDaemon();
            this.error = error.message;
            this._callbacks.changed();
            return;
        }
        this._callbacks.changed();
        this._scheduleRefresh();
    }

    get Gio() {
        return this._Gio;
    }

    get GLib() {
        return this._GLib;
    }

    _newDaemon() {
        return new Daemon({Gio: this.Gio, GLib: this.GLib}, {
            propertiesChanged: () => this._callbacks.changed(),
            ownerChanged: () => {
                if (!this.reachable)
                    this.error = null; // gone; a call activates it again
                this._callbacks.changed();
                this._scheduleRefresh();
            },
            restrictionsChanged: () => this._scheduleRefresh(),
        });
    }

    _forgetDaemon() {
        this._daemon?.destroy();
        this._daemon = null;
        this._stopRefresh();
    }

    destroy() {
        this._cancellable.cancel();
        this._forgetDaemon();
    }

    get passcodeSet() {
        return this._daemon?.passcodeSet ?? false;
    }

    get allowedApplications() {
        return this._daemon?.allowedApplications ?? [];
    }

    _scheduleRefresh() {
        const {GLib} = this;
        if (this._refreshSource)
            return;
        this._refreshSource = GLib.timeout_add(GLib.PRIORITY_DEFAULT, REFRESH_DELAY_MS, () => {
            this._refreshSource = 0;
            this._refresh();
            return GLib.SOURCE_REMOVE;
        });
    }

    _stopRefresh() {
        if (this._refreshSource) {
            this.GLib.source_remove(this._refreshSource);
            this._refreshSource = 0;
        }
    }

    async _refresh() {
        if (!this.reachable) {
            this._callbacks.restrictionsChanged([]);
            return;
        }
        try {
            this._callbacks.restrictionsChanged(await this._daemon.restrictionRows());
        } catch (error) {
            if (!error.matches?.(this.Gio.IOErrorEnum, this.Gio.IOErrorEnum.CANCELLED))
                log(`Guided Access settings: List failed: ${error.message}`);
        }
    }

    // Resolve once done; reject with the error, its message the daemon's own
    // words (written for people; the D-Bus error name stripped), or why the
    // daemon could not be reached.
    setPasscode(passcode) {
        return this._whenConnected(() => this._daemon.setPasscode(passcode));
    }

    setRestriction(identifier, allowed) {
        return this._whenConnected(() => this._daemon.setRestriction(identifier, allowed ? 'allow' : 'deny'));
    }

    resetRestrictions(identifiers) {
        return this._whenConnected(() => this._daemon.resetRestrictions(identifiers));
    }

    _whenConnected(call) {
        if (!this._daemon?.connected)
            return Promise.reject(new Error(this.error ?? 'guided-accessd is not reachable'));
        return call();
    }

    _call(connection, name, path, iface, method, parameters, flags, timeout) {
        const {Gio} = this;
        return new Promise((resolve, reject) =>
            connection.call(name, path, iface, method, parameters, null, flags, timeout, this._cancellable,
                (_source, result) => {
                    try {
                        resolve(connection.call_finish(result).deepUnpack());
                    } catch (error) {
                        Gio.DBusError.strip_remote_error(error);
                        reject(error);
                    }
                }));
    }
}
