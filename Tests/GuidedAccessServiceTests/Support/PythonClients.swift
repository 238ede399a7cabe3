// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Python

enum Python {
    /// The contract's names a script uses, from GuidedAccessContract.
    static let names = [
        ("NAME", GuidedAccessBus.name), ("PATH", GuidedAccessBus.objectPath),
        ("SESSION", ServiceInterface.session.rawValue), ("FEATURES", ServiceInterface.features.rawValue),
        ("RESTRICTIONS", ServiceInterface.restrictions.rawValue), ("RESTRICTION", ServiceInterface.restriction.rawValue),
    ].map { "\($0) = \"\($1)\"\n" }.joined()

    /// Helpers every python client script starts with.
    static let prelude = names + #"""
        import json, os, sys, time
        import dbus
        ADDRESS = os.environ["GA_ADDRESS"]
        PROPS = "org.freedesktop.DBus.Properties"

        def connect(mainloop=False):
            if mainloop:
                from dbus.mainloop.glib import DBusGMainLoop
                DBusGMainLoop(set_as_default=True)
            return dbus.bus.BusConnection(ADDRESS)

        def iface(bus, name, path=PATH):
            return dbus.Interface(bus.get_object(NAME, path, introspect=False), name)

        def send_without_waiting(bus, method):
            """Sends Start or RequestSession with empty options; no reply awaited."""
            msg = dbus.lowlevel.MethodCallMessage(NAME, PATH, SESSION, method)
            if method == "Start":
                msg.append("org.example.Kiosk", dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
            else:
                msg.append(True, dbus.Dictionary({}, signature="sv"), signature="ba{sv}")
            bus.send_message(msg)
            bus.flush()

        def attempt(fn, *args, **kwargs):
            """["ok", value] or ["error", error name]."""
            try:
                return ["ok", plain(fn(*args, **kwargs))]
            except dbus.exceptions.DBusException as e:
                return ["error", e.get_dbus_name()]

        def outcome(fn, *args):
            """["ok", value] or [error name, its message]."""
            try:
                return ["ok", plain(fn(*args))]
            except dbus.exceptions.DBusException as e:
                return [e.get_dbus_name(), e.get_dbus_message()]

        def plain(value):
            if isinstance(value, dbus.Boolean): return bool(value)
            if isinstance(value, (dbus.String, dbus.ObjectPath)): return str(value)
            if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)): return int(value)
            if isinstance(value, dict): return {str(k): plain(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)): return [plain(v) for v in value]
            return value

        def done(**result):
            print(json.dumps(result))
            sys.stdout.flush()

        """#
}

// MARK: - Reading tool output

extension ToolResult {
    /// The D-Bus error name reported by gdbus (`GDBus.Error:NAME: ...`),
    /// dbus-send (`Error NAME: ...`) or python; nil when there is none.
    var errorName: String? {
        let text = stderr + "\n" + stdout
        if let range = text.range(of: "GDBus.Error:") {
            return String(text[range.upperBound...].prefix { $0 != ":" && !$0.isWhitespace })
        }
        for line in text.split(separator: "\n") where line.hasPrefix("Error ") {
            return String(line.dropFirst(6).prefix { $0 != ":" && !$0.isWhitespace })
        }
        return nil
    }
}

/// The argument vector for `busctl get-property` of a service property.
func getProperty(_ interface: InterfaceName, _ name: String, path: String = GuidedAccessBus.objectPath) -> [String] {
    ["get-property", GuidedAccessBus.name, path, interface.rawValue, name]
}
