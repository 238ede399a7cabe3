// SPDX-License-Identifier: GPL-2.0-or-later
// The extension's view of guided-accessd on the session bus.
//
// It uses a bus connection of its own rather than the shell's shared one:
// the daemon keeps a RegisterEnforcer registration for as long as the
// registering connection lives, so closing this connection in destroy()
// (the extension's disable()) is what withdraws the registration. The
// daemon's members are reached through daemon.js.
//
// Like every module in lib/, this one imports no GNOME module: the entry
// point (extension.js for GNOME 43/44, extension.esm.js for 45+) passes the
// libraries in, so the same files serve both shells (see ../../README.md).

import {BUS_NAME, CALL_TIMEOUT_MS, Daemon} from './daemon.js';

// Re-activation attempts while the name has no owner during a session.
const REACTIVATE_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

export class ServiceClient {
    // callbacks: changed() when the session as seen on the bus may have
    // changed (also when the name owner comes or goes), appeared() when a
    // (new) owner has loaded its properties, timeLimitWarning(secondsLeft),
    // featuresChanged() (an accessibility feature went on or off).
    // `enforcer` is the name it registers as (the Cinnamon extension shares
    // this module). Nothing happens before start().
    constructor({Gio, GLib}, callbacks, enforcer = 'gnome-shell') {
        this._enforcer = enforcer;
        this._Gio = Gio;
        this._GLib = GLib;
        this._callbacks = callbacks;
        this._cancellable = new Gio.Cancellable();
        this._connection = null;
        // The daemon's methods, for the start sheet and the end dialog too.
        this.daemon = new Daemon({Gio, GLib}, {
            propertiesChanged: () => callbacks.changed(),
            ownerChanged: () => this._ownerChanged(),
            timeLimitWarning: secondsLeft => callbacks.timeLimitWarning(secondsLeft),
            featuresChanged: () => callbacks.featuresChanged?.(),
        });
        // "pid:starttime" → string[] (answered) or Promise (asked).
        this._appIds = new Map();
        this._turnKeys = new Map(); // pid → its _processKey, for one main-loop turn
        this._turnKeysSource = 0;
        this._keepAlive = false;
        this._reactivateSource = 0;
        this._reactivateAttempt = 0;
    }

    start() {
        const {Gio} = this;
        const address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, null);
        Gio.DBusConnection.new_for_address(address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            null, this._cancellable, (_source, result) => {
                try {
                    this._connection = Gio.DBusConnection.new_for_address_finish(result);
                } catch (error) {
                    if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        logError(error, 'Guided Access: cannot connect to the session bus');
                    return;
                }
                this._followDaemon();
            });
    }

    get Gio() {
        return this._Gio;
    }

    get GLib() {
        return this._GLib;
    }

    // The session proxy is made with auto-start, which activates the
    // daemon, so a session that survived a shell restart is applied again
    // at once.
    async _followDaemon() {
        try {
            await this.daemon.connect(this._connection);
        } catch (error) {
            if (!error.matches?.(this.Gio.IOErrorEnum, this.Gio.IOErrorEnum.CANCELLED))
                logError(error, 'Guided Access: cannot reach guided-accessd');
            return;
        }
        this._ownerChanged();
    }

    _ownerChanged() {
        if (this.hasOwner) {
            this._stopReactivating();
            this._callbacks.appeared();
        } else {
            this._maybeReactivate();
        }
        this._callbacks.changed();
    }

    get hasOwner() {
        return this.daemon.reachable;
    }

    // The session as the daemon publishes it, or null while the name has no
    // owner (then nothing is known and the caller keeps what it enforces).
    session() {
        return this.daemon.session();
    }

    // While the extension enforces a session, a vanished daemon is asked
    // back (bus activation) until it has an owner again; the lock stays
    // meanwhile (fail closed).
    setKeepAlive(keepAlive) {
        this._keepAlive = keepAlive;
        if (keepAlive)
            this._maybeReactivate();
        else
            this._stopReactivating();
    }

    _maybeReactivate() {
        if (!this._keepAlive || this.hasOwner || !this.daemon.connected || this._reactivateSource)
            return;
        const {Gio, GLib} = this;
        const delay = REACTIVATE_DELAYS_MS[
            Math.min(this._reactivateAttempt, REACTIVATE_DELAYS_MS.length - 1)];
        this._reactivateAttempt++;
        this._reactivateSource = GLib.timeout_add(GLib.PRIORITY_DEFAULT, delay, () => {
            this._reactivateSource = 0;
            this._connection.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'StartServiceByName',
                new GLib.Variant('(su)', [BUS_NAME, 0]), null, Gio.DBusCallFlags.NONE,
                CALL_TIMEOUT_MS, this._cancellable, (connection, result) => {
                    try {
                        connection.call_finish(result);
                    } catch (error) {
                        if (error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                            return;
                        log(`Guided Access: cannot reactivate guided-accessd: ${error.message}`);
                    }
                    this._maybeReactivate();
                });
            return GLib.SOURCE_REMOVE;
        });
    }

    _stopReactivating() {
        this._reactivateAttempt = 0;
        if (this._reactivateSource) {
            this.GLib.source_remove(this._reactivateSource);
            this._reactivateSource = 0;
        }
    }

    registerEnforcer(capabilities) {
        this.daemon.registerEnforcer(this._enforcer, capabilities)
            .catch(error => log(`Guided Access: RegisterEnforcer failed: ${error.message}`));
    }

    // A pid is reused after its process ends; keying the cache by pid and
    // the process start time (field 22 of /proc/PID/stat) keeps a new
    // process from inheriting an old one's ids. Each pid's is read once per
    // main-loop turn: a lock of fifty windows asks three times for each,
    // and each read takes some 30 µs.
    _processKey(pid) {
        let key = this._turnKeys.get(pid);
        if (key !== undefined)
            return key;
        key = this._readProcessKey(pid);
        if (this._turnKeysSource === 0) {
            const {GLib} = this;
            this._turnKeysSource = GLib.idle_add(GLib.PRIORITY_HIGH, () => {
                this._turnKeysSource = 0;
                this._turnKeys.clear();
                return GLib.SOURCE_REMOVE;
            });
        }
        this._turnKeys.set(pid, key);
        return key;
    }

    _readProcessKey(pid) {
        const {GLib} = this;
        try {
            const [, bytes] = GLib.file_get_contents(`/proc/${pid}/stat`);
            const text = new TextDecoder().decode(bytes);
            // The command name (field 2) may hold spaces and parentheses.
            const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
            return `${pid}:${fields[19]}`;
        } catch (_error) {
            return null;
        }
    }

    // The app ids the daemon gives process `pid` (GetAppIds), or undefined
    // when not answered yet. Never guessed locally: a window without a
    // process that can be told apart (pid 0, or gone) has none.
    cachedAppIds(pid) {
        const key = pid > 0 ? this._processKey(pid) : null;
        if (key === null)
            return [];
        const entry = this._appIds.get(key);
        return Array.isArray(entry) ? entry : undefined;
    }

    // Resolves to the app ids of `pid`; an unknown or vanished process, or an
    // unreachable daemon, resolves to [] (which matches no session: fail
    // closed). Failures are not cached, so the next window asks again.
    appIds(pid) {
        const key = pid > 0 ? this._processKey(pid) : null;
        if (key === null)
            return Promise.resolve([]);
        const entry = this._appIds.get(key);
        if (entry !== undefined)
            return Array.isArray(entry) ? Promise.resolve(entry) : entry;
        const asked = this.daemon.appIds(pid).then(ids => {
            if (this._appIds.get(key) === asked)
                this._appIds.set(key, ids);
            return ids;
        }, error => {
            if (this._appIds.get(key) === asked)
                this._appIds.delete(key);
            log(`Guided Access: GetAppIds(${pid}) failed: ${error.message}`);
            return [];
        });
        this._appIds.set(key, asked);
        return asked;
    }

    // Drops cache entries of processes that are gone.
    pruneAppIds(livePids) {
        for (const key of [...this._appIds.keys()]) {
            if (!livePids.has(Number(key.split(':')[0])))
                this._appIds.delete(key);
        }
    }

    destroy() {
        if (this._turnKeysSource)
            this.GLib.source_remove(this._turnKeysSource);
        this._turnKeysSource = 0;
        this._stopReactivating();
        this._cancellable.cancel();
        this.daemon.destroy();
        if (this._connection !== null) {
            this._connection.close(null, null);
            this._connection = null;
        }
        this._appIds.clear();
    }
}
