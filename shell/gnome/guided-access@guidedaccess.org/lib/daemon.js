// SPDX-License-Identifier: GPL-2.0-or-later
// guided-accessd as the extension and its settings window reach it. The
// proxies are built by gjs (Gio.DBusProxy.makeProxyWrapper) from the
// interface XML the daemon's build writes (dbus/*.xml in the repository),
// installed with the extension in dbus-interfaces/ (../../install; why
// there and not the system's interfaces directory: ../../README.md). Every
// method, property and signal of the daemon that the extension uses is
// reached in this file and only here, through the members gjs generates
// from that XML: `session.StartAsync(…)`, `session.Enabled`,
// `session.connectSignal('TimeLimitWarning', …)`. tests/unit.js runs this
// class against stand-ins made from the repository's dbus/*.xml, so a
// member renamed or retyped in the daemon fails there, not on a screen.
//
// Like every module in lib/, this one imports no GNOME module: the entry
// point passes Gio and GLib in.

import {BUS_NAME, INTERFACES, OBJECT_PATH} from '../common/contract.js';
import {sessionFrom} from '../common/session.js';

export {BUS_NAME, OBJECT_PATH};
export const SESSION_INTERFACE = INTERFACES.session;
export const RESTRICTIONS_INTERFACE = INTERFACES.restrictions;
export const FEATURES_INTERFACE = INTERFACES.features;
// The interface of each custom restriction's object (below OBJECT_PATH).
export const RESTRICTION_INTERFACE = INTERFACES.restriction;
// Beside lib/ in the installed extension: <dir>/dbus-interfaces/<interface>.xml.
export const INTERFACES_DIRECTORY = 'dbus-interfaces';

export const CALL_TIMEOUT_MS = 10000;
// The daemon gives an interactive polkit check 300 s (a person typing).
export const INTERACTIVE_TIMEOUT_MS = 310000;

const NOT_REACHABLE = 'guided-accessd is not reachable';

// One proxy constructor per interface and process, from its installed XML.
const wrappers = new Map();

export function proxyWrapper(Gio, iface) {
    if (!wrappers.has(iface)) {
        const extension = Gio.File.new_for_uri(import.meta.url).get_parent().get_parent();
        const [, bytes] = extension.get_child(INTERFACES_DIRECTORY).get_child(`${iface}.xml`).load_contents(null);
        wrappers.set(iface, Gio.DBusProxy.makeProxyWrapper(new TextDecoder().decode(bytes)));
    }
    return wrappers.get(iface);
}

// A proxy of `iface` on the daemon's object, made from the installed XML;
// resolves once it is initialised (for a proxy that loads properties: once
// they are loaded). Calls without a timeout of their own wait `timeout` ms.
export function makeDaemonProxy({Gio}, iface, connection, {flags, timeout, cancellable}) {
    const Proxy = proxyWrapper(Gio, iface);
    return new Promise((resolve, reject) => {
        // A class since gjs 1.90, which warns when it is called without `new`.
        const proxy = new Proxy(connection, BUS_NAME, OBJECT_PATH, (made, error) => {
            if (error) {
                reject(error);
            } else {
                addAsyncMethods(made);
                resolve(made);
            }
        }, cancellable, flags);
        proxy.g_default_timeout = timeout;
    });
}

// The promise-returning `METHODAsync` of each method, where the wrapper has
// only the callback-taking `METHODRemote` (Cinnamon's cjs, which the
// Cinnamon extension runs this module in; gjs makes both).
function addAsyncMethods(proxy) {
    for (const remote of Object.keys(proxy).filter(key => key.endsWith('Remote'))) {
        const name = `${remote.slice(0, -'Remote'.length)}Async`;
        if (typeof proxy[name] === 'function')
            continue;
        proxy[name] = (...args) => new Promise((resolve, reject) => {
            proxy[remote](...args, (result, error) => (error ? reject(error) : resolve(result)));
        });
    }
}

export class Daemon {
    // deps: {Gio, GLib}, and optionally makeProxy (makeDaemonProxy's
    // signature; tests/unit.js passes stand-ins). callbacks, each optional:
    // propertiesChanged(), ownerChanged(), timeLimitWarning(secondsLeft),
    // restrictionsChanged() (a restriction was registered, unregistered,
    // or changed its state or text), featuresChanged() (a property of
    // Features1 changed: an accessibility feature went on or off).
    constructor(deps, callbacks) {
        this._deps = deps;
        this._makeProxy = deps.makeProxy ?? makeDaemonProxy;
        this._callbacks = callbacks;
        this._cancellable = new deps.Gio.Cancellable();
        this._connection = null;
        this._proxies = null; // {session, restrictions, features, interactive: {session, restrictions}}
        this._signals = []; // [object, id, how it is disconnected]
        this._subscriptions = [];
    }

    // Makes the proxies on `connection` and follows them, once; makes the
    // session proxy without DO_NOT_AUTO_START, so this activates the
    // daemon. Rejects when they cannot be made.
    async connect(connection) {
        const {Gio, GLib} = this._deps;
        const make = (iface, flags, timeout) =>
            this._makeProxy(this._deps, iface, connection, {flags, timeout, cancellable: this._cancellable});
        // The session proxy activates the daemon; the others leave that to
        // it (their calls still activate a daemon that went away).
        const {DO_NOT_LOAD_PROPERTIES, DO_NOT_CONNECT_SIGNALS, DO_NOT_AUTO_START_AT_CONSTRUCTION} = Gio.DBusProxyFlags;
        const callsOnly = DO_NOT_LOAD_PROPERTIES | DO_NOT_AUTO_START_AT_CONSTRUCTION;
        // Calls that let polkit ask a person wait long; their own proxies
        // carry that timeout (gjs's generated methods take none per call).
        const interactive = callsOnly | DO_NOT_CONNECT_SIGNALS;
        const [session, restrictions, interactiveSession, interactiveRestrictions, features] = await Promise.all([
            make(SESSION_INTERFACE, Gio.DBusProxyFlags.NONE, CALL_TIMEOUT_MS),
            make(RESTRICTIONS_INTERFACE, callsOnly, CALL_TIMEOUT_MS),
            make(SESSION_INTERFACE, interactive, INTERACTIVE_TIMEOUT_MS),
            make(RESTRICTIONS_INTERFACE, interactive, INTERACTIVE_TIMEOUT_MS),
            // Its properties (the features' values) are followed.
            make(FEATURES_INTERFACE, DO_NOT_AUTO_START_AT_CONSTRUCTION, CALL_TIMEOUT_MS),
        ]);
        if (this._cancellable.is_cancelled()) // destroyed meanwhile
            throw new GLib.Error(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED, 'Operation was cancelled');
        this._connection = connection;
        this._proxies = {
            session, restrictions, features,
            interactive: {session: interactiveSession, restrictions: interactiveRestrictions},
        };
        this._follow();
    }

    get connected() {
        return this._proxies !== null;
    }

    // Whether the daemon's name has an owner (false before connect()).
    get reachable() {
        return this._proxies !== null && this._proxies.session.g_name_owner !== null;
    }

    _follow() {
        const {session, restrictions, features} = this._proxies;
        const callbacks = this._callbacks;
        const gobject = (object, signal, handler) =>
            this._signals.push([object, object.connect(signal, handler), 'disconnect']);
        const dbus = (proxy, signal, handler) =>
            this._signals.push([proxy, proxy.connectSignal(signal, handler), 'disconnectSignal']);
        if (callbacks.propertiesChanged)
            gobject(session, 'g-properties-changed', () => callbacks.propertiesChanged());
        if (callbacks.featuresChanged)
            gobject(features, 'g-properties-changed', () => callbacks.featuresChanged());
        if (callbacks.ownerChanged)
            gobject(session, 'notify::g-name-owner', () => callbacks.ownerChanged());
        if (callbacks.timeLimitWarning) {
            dbus(session, 'TimeLimitWarning', (_proxy, _sender, [secondsLeft]) =>
                callbacks.timeLimitWarning(secondsLeft));
        }
        if (callbacks.restrictionsChanged) {
            const changed = () => callbacks.restrictionsChanged();
            dbus(restrictions, 'RestrictionChanged', changed);
            this._followRestrictionObjects(changed);
        }
    }

    // The restriction objects come and go (ObjectManager) and change their
    // properties (`Registered`, the texts): standard interfaces, matched on
    // the bus rather than through a proxy per object.
    _followRestrictionObjects(changed) {
        const {Gio} = this._deps;
        const connection = this._connection;
        this._subscriptions = [
            connection.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.ObjectManager', null,
                OBJECT_PATH, null, Gio.DBusSignalFlags.NONE, changed),
            connection.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                null, RESTRICTION_INTERFACE, Gio.DBusSignalFlags.NONE, changed),
        ];
    }

    // Drops the proxies and what follows them (the daemon keeps running).
    destroy() {
        this._cancellable.cancel();
        for (const [object, id, disconnect] of this._signals)
            object[disconnect](id);
        this._signals = [];
        for (const id of this._subscriptions)
            this._connection.signal_unsubscribe(id);
        this._subscriptions = [];
        this._proxies = null;
        this._connection = null;
    }

    // -- the session's properties --------------------------------------------

    // The session as the daemon publishes it, or null while the name has no
    // owner (then nothing is known).
    session() {
        return this.reachable ? sessionFrom(this._proxies.session) : null;
    }

    get passcodeSet() {
        return this.reachable ? this._proxies.session.PasscodeSet ?? false : false;
    }

    get allowedApplications() {
        return this.reachable ? this._proxies.session.AllowedApplications ?? [] : [];
    }

    // Whether accessibility feature `name` (a property of Features1:
    // 'Zoom', 'ScreenReader', ...) is on, as the daemon reports it; null
    // while not known.
    feature(name) {
        return this.reachable ? this._proxies.features[name] ?? null : null;
    }

    // Reads `name` afresh from the daemon (Properties.Get) into the proxy's
    // cache (featuresChanged() follows) and resolves to it: after a toggle the daemon has answered, for
    // a feature whose change it does not announce with PropertiesChanged
    // (a desktop setting it wrote itself).
    async readFeature(name) {
        const {Gio, GLib} = this._deps;
        const {features, cancellable} = this._use(false);
        const reply = await new Promise((resolve, reject) => {
            features.call('org.freedesktop.DBus.Properties.Get', new GLib.Variant('(ss)', [FEATURES_INTERFACE, name]),
                Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS, cancellable, (proxy, result) => {
                    try {
                        resolve(proxy.call_finish(result));
                    } catch (error) {
                        reject(error);
                    }
                });
        });
        const value = reply.get_child_value(0).get_variant();
        features.set_cached_property(name, value);
        // The cache changed without g-properties-changed: told as that is.
        this._callbacks.featuresChanged?.();
        return value.unpack();
    }

    // -- methods ---------------------------------------------------------------
    // Each resolves to what the method returns and rejects with the GLib
    // error, its message the daemon's own words (written for people; the
    // D-Bus error name stripped). The interactive ones let polkit ask the
    // person for an administrator's password.

    async registerEnforcer(name, capabilities) {
        const {session, flags, cancellable} = this._use(false);
        await this._reply(session.RegisterEnforcerAsync(name, capabilities, flags, cancellable));
    }

    async appIds(pid) {
        const {session, flags, cancellable} = this._use(false);
        const [ids] = await this._reply(session.GetAppIdsAsync(pid, flags, cancellable));
        return ids;
    }

    // GetLastOptions: the a{sv} with its values still GLib.Variants.
    async lastOptions(app) {
        const {session, flags, cancellable} = this._use(false);
        const [options] = await this._reply(session.GetLastOptionsAsync(app, flags, cancellable));
        return options;
    }

    async start(app, options) {
        const {session, flags, cancellable} = this._use(true);
        await this._reply(session.StartAsync(app, options, flags, cancellable));
    }

    async end(options) {
        const {session, flags, cancellable} = this._use(false);
        await this._reply(session.EndAsync(options, flags, cancellable));
    }

    // During a session, a feature of AccessibilityShortcut on or off (for
    // the person, without a passcode: the daemon lets a registered enforcer).
    async toggleAccessibilityFeature(feature, enabled) {
        const {session, flags, cancellable} = this._use(false);
        await this._reply(session.ToggleAccessibilityFeatureAsync(feature, enabled, flags, cancellable));
    }

    async setPasscode(passcode) {
        const {session, flags, cancellable} = this._use(true);
        await this._reply(session.SetPasscodeAsync(passcode, flags, cancellable));
    }

    // List's rows: [identifier, text, detail, state, app, registered].
    async restrictionRows() {
        const {restrictions, flags, cancellable} = this._use(false);
        const [rows] = await this._reply(restrictions.ListAsync(flags, cancellable));
        return rows;
    }

    async setRestriction(identifier, state) {
        const {restrictions, flags, cancellable} = this._use(true);
        await this._reply(restrictions.SetStateAsync(identifier, state, flags, cancellable));
    }

    async resetRestrictions(identifiers) {
        const {restrictions, flags, cancellable} = this._use(true);
        await this._reply(restrictions.ResetAsync(identifiers, flags, cancellable));
    }

    // The proxies, message flags and cancellable for one call.
    _use(interactive) {
        if (this._proxies === null)
            throw new Error(NOT_REACHABLE);
        const {Gio} = this._deps;
        return {
            ...interactive ? this._proxies.interactive : this._proxies,
            flags: interactive ? Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION : Gio.DBusCallFlags.NONE,
            cancellable: this._cancellable,
        };
    }

    _reply(call) {
        const {Gio, GLib} = this._deps;
        return call.catch(error => {
            if (error instanceof GLib.Error)
                Gio.DBusError.strip_remote_error(error);
            throw error;
        });
    }
}
