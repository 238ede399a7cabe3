// SPDX-License-Identifier: GPL-2.0-or-later
// D-Bus calls on the session bus through KWin's DBusCall, the only way a
// declarative script reaches the bus (it cannot receive signals: see
// Enforcer.qml for how it learns of changes). What DBusCall sends: a JS
// object as a{sv}, a string as s, a boolean as b, a number as i (or d),
// an array as av; a string list Qt made (a "QmlSequence") as as, so
// stringList() builds one from Qt.fontFamilies(). It cannot send u; a
// failed call says no more than that it failed.
import QtQuick 2.15
import "../code/contract.js" as Contract
import "../code/session.js" as SessionState

QtObject {
    id: bus

    // Set when the script goes: replies that arrive later are dropped (their
    // handlers belong to objects being destroyed); calls still go out, which
    // is how the parts undo what they did.
    property bool closed: false
    property var inFlight: []
    // KWinApi's item: DBusCall comes from the running KWin's org.kde.kwin.
    property QtObject kwin

    readonly property string service: Contract.BUS_NAME
    readonly property string path: Contract.OBJECT_PATH

    // Calls `method`; done(values) with the reply's values, failed() on an
    // error reply. Both optional.
    function call(service, path, iface, method, args, done, failed) {
        // Not a child of the bus: a call made while the script is being
        // destroyed (an undo) must still go out. Kept in `inFlight` until
        // its reply, so that the garbage collector leaves it alone.
        var call = kwin.dbusCall.createObject(null);
        inFlight.push(call);
        var settle = function () {
            var index = bus && bus.inFlight ? bus.inFlight.indexOf(call) : -1;
            if (index >= 0)
                bus.inFlight.splice(index, 1);
            call.destroy();
        };
        call.service = service;
        call.path = path;
        call.dbusInterface = iface;
        call.method = method;
        call.arguments = args;
        call.finished.connect(function (values) {
            if (done && bus && !bus.closed)
                done(values);
            settle();
        });
        call.failed.connect(function () {
            if (failed && bus && !bus.closed)
                failed();
            settle();
        });
        call.call();
    }

    // A method of the daemon's session interface.
    function session(method, args, done, failed) {
        call(service, path, Contract.INTERFACES.session, method, args, done, failed);
    }

    // The session: done(session) with SessionState.sessionFrom of every
    // property of the daemon's session interface (GetAll).
    function readSession(done, failed) {
        call(service, path, 'org.freedesktop.DBus.Properties', 'GetAll', [Contract.INTERFACES.session], function (values) {
            done(SessionState.sessionFrom(values[0]));
        }, failed);
    }

    // The daemon's Features1: done(features) with each feature's value by
    // name (Properties GetAll).
    function readFeatures(done, failed) {
        call(service, path, 'org.freedesktop.DBus.Properties', 'GetAll', [Contract.INTERFACES.features], function (values) {
            done(values[0] || {});
        }, failed);
    }

    // A method of org.kde.KWin /Scripting.
    function scripting(method, args, done, failed) {
        call('org.kde.KWin', '/Scripting', 'org.kde.kwin.Scripting', method, args, done, failed);
    }

    // what() after `ms` milliseconds, on a timer of the bus's own: it also
    // serves a part that is gone (Magnifier's undo waits with it).
    function later(ms, what) {
        var timer = Qt.createQmlObject('import QtQuick 2.15; Timer {}', bus);
        timer.interval = ms;
        timer.triggered.connect(function () {
            timer.destroy();
            if (!bus.closed)
                what();
        });
        timer.start();
    }

    // `values` as a list DBusCall sends as `as`.
    function stringList(values) {
        var list = Qt.fontFamilies();
        list.length = 0;
        for (var i = 0; i < values.length; i++)
            list.push(String(values[i]));
        return list;
    }

    // The local path of a file of this package, from its URL.
    function localPath(url) {
        return decodeURIComponent(String(url).replace(/^file:\/\//, ''));
    }
}
