// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus

/// Emits signals through plain libdbus: no DBusKit loop, no Swift
/// concurrency. The reference for fan-out is the bus delivering this
/// client's signal, so the figure shows what the daemon adds.
final class CEmitter {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: OpaquePointer

    init(address: String) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw Failure(description: "cannot connect to \(address): \(String(cString: error.message))")
        }
        guard dbus_bus_register(connection, &error) != 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw Failure(description: "cannot register on \(address): \(String(cString: error.message))")
        }
        self.connection = connection
    }

    /// Sends `member(u value)` and returns once libdbus has written it to the socket.
    /// The names are the benchmark's own constants, valid by construction.
    func emit(path: String, interface: String, member: String, value: UInt32) {
        let message = dbus_message_new_signal(path, interface, member)!
        defer { dbus_message_unref(message) }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        var argument = value
        dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_UINT32, &argument)
        dbus_connection_send(connection, message, nil)
        dbus_connection_flush(connection)
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }
}
