// SPDX-License-Identifier: GPL-2.0-or-later
// The settings window's view of guided-accessd on the session bus: the
// passcode (PasscodeSet, SetPasscode), the managed AllowedApplications, and
// the custom restrictions (Restrictions1: List, SetState, Reset), followed
// through their change signals. Runs in the preferences process (GTK), not
// in the shell; imports no GNOME module (the entry point passes Gio, GLib).
//
// Admin calls carry the message flag ALLOW_INTERACTIVE_AUTHORIZATION, which
// is how SetPasscode and SetState take `interactive` (they have no options
// argument): polkit may then ask for a password, so they wait long.

import {
    BUS_NAME, CALL_TIMEOUT_MS, INTERACTIVE_TIMEOUT_MS, OBJECT_PATH,
    INTERFACE as SESSION_INTERFACE, RESTRICTIONS_INTERFACE,
} from './service.js';

const RESTRICTION_INTERFACE = 'org.guidedaccess.Restriction1';
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
        this._session = null;
        this._restrictions = null;
        this._subscriptions = [];
        this._proxySignals = [];
        this._refreshSource = 0;
        this.error = null; // why the daemon cannot be reached, or null
    }

    get reachable() {
        return this._session !== null && this._session.g_name_owner !== null;
    }

    // Asks the bus to start the daemon (bus activation), then follows it.
    // Called again by "Try Again".
    async connect() {
        const {Gio, GLib} = this;
        this._disconnect();
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
            await this._call(this._connection, 'org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'StartServiceByName', new GLib.Variant('(su)', [BUS_NAME, 0]),
                Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS);
            [this._session, this._restrictions] = await Promise.all([
                this._proxy(SESSION_INTERFACE, Gio.DBusProxyFlags.NONE),
                this._proxy(RESTRICTIONS_INTERFACE, Gio.DBusProxyFlags.DO_NOT_LOAD_PROPERTIES),
            ]);
        } catch (error) {
            if (error.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                return;
            this.error = error.message;
            this._session = this._restrictions = null;
            this._callbacks.changed();
            return;
        }
        this._follow();
        this._callbacks.changed();
        this._scheduleRefresh();
    }

    get Gio() {
        return this._Gio;
    }

    get GLib() {
        return this._GLib;
    }

    _proxy(iface, flags) {
        const {Gio} = this;
        return new Promise((resolve, reject) =>
            Gio.DBusProxy.new(this._connection, flags, null, BUS_NAME, OBJECT_PATH, iface,
                this._cancellable, (_source, result) => {
                    try {
                        resolve(Gio.DBusProxy.new_finish(result));
                    } catch (error) {
                        reject(error);
                    }
                }));
    }

    _follow() {
        const {Gio} = this;
        this._proxySignals = [
            [this._session, this._session.connect('g-properties-changed', () => this._callbacks.changed())],
            [this._session, this._session.connect('notify::g-name-owner', () => {
                if (!this.reachable)
                    this.error = null; // gone; a call activates it again
                this._callbacks.changed();
                this._scheduleRefresh();
            })],
            [this._restrictions, this._restrictions.connect('g-signal', () => this._scheduleRefresh())],
        ];
        // Registrations and unregistrations: the restriction objects come
        // and go (ObjectManager) and change `Registered` (Properties).
        const refresh = () => this._scheduleRefresh();
        this._subscriptions = [
            this._connection.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.ObjectManager', null,
                OBJECT_PATH, null, Gio.DBusSignalFlags.NONE, refresh),
            this._connection.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                null, RESTRICTION_INTERFACE, Gio.DBusSignalFlags.NONE, refresh),
        ];
    }

    _disconnect() {
        for (const [object, id] of this._proxySignals)
            object.disconnect(id);
        this._proxySignals = [];
        for (const id of this._subscriptions)
            this._connection.signal_unsubscribe(id);
        this._subscriptions = [];
        if (this._refreshSource) {
            this.GLib.source_remove(this._refreshSource);
            this._refreshSource = 0;
        }
        this._session = this._restrictions = null;
    }

    destroy() {
        this._cancellable.cancel();
        this._disconnect();
    }

    _property(name, fallback) {
        const value = this.reachable ? this._session.get_cached_property(name) : null;
        return value === null ? fallback : value.deepUnpack();
    }

    get passcodeSet() {
        return this._property('PasscodeSet', false);
    }

    get allowedApplications() {
        return this._property('AllowedApplications', []);
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

    async _refresh() {
        if (!this.reachable) {
            this._callbacks.restrictionsChanged([]);
            return;
        }
        try {
            const [rows] = await this._restrictionsCall('List', null, false);
            this._callbacks.restrictionsChanged(rows);
        } catch (error) {
            if (!error.matches?.(this.Gio.IOErrorEnum, this.Gio.IOErrorEnum.CANCELLED))
                log(`Guided Access settings: List failed: ${error.message}`);
        }
    }

    // Resolve to the unpacked reply; reject with the error, its message the
    // daemon's own words (written for people; the D-Bus error name stripped).
    setPasscode(passcode) {
        return this._proxyCall(this._session, 'SetPasscode', new this.GLib.Variant('(s)', [passcode]), true);
    }

    setRestriction(identifier, allowed) {
        return this._restrictionsCall('SetState',
            new this.GLib.Variant('(ss)', [identifier, allowed ? 'allow' : 'deny']), true);
    }

    resetRestrictions(identifiers) {
        return this._restrictionsCall('Reset', new this.GLib.Variant('(as)', [identifiers]), true);
    }

    _restrictionsCall(method, parameters, interactive) {
        return this._proxyCall(this._restrictions, method, parameters, interactive);
    }

    _proxyCall(proxy, method, parameters, interactive) {
        const {Gio} = this;
        if (proxy === null)
            return Promise.reject(new Error(this.error ?? 'guided-accessd is not reachable'));
        return this._call(this._connection, BUS_NAME, OBJECT_PATH, proxy.g_interface_name, method, parameters,
            interactive ? Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION : Gio.DBusCallFlags.NONE,
            interactive ? INTERACTIVE_TIMEOUT_MS : CALL_TIMEOUT_MS);
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
