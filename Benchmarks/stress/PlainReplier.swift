// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc
import Locking

/// The bus alone, for the limits case: a service on plain libdbus (no
/// DBusKit loop, no Swift concurrency) that answers every call with a copy
/// of one reply it keeps, as the daemon answers `List` from its cache. The
/// time a client waits for it is what moving those bytes over the bus costs
/// any service.
final class PlainReplier: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The name it serves under; any path, interface and member get the reply.
    static let name = "org.example.PlainReplier"

    /// The size of the reply it gives, as marshalled on the wire.
    let replyBytes: Int

    private let connection: OpaquePointer
    private let kept: OpaquePointer
    private var thread = pthread_t()
    private let stopped = Locked(false)

    /// Connects to `address`, takes the reply of `call` (destination, path,
    /// interface, member) as the one it gives, then serves on its own thread.
    init(address: String, copying call: (destination: String, path: String, interface: String, member: String)) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(address, &error), dbus_bus_register(connection, &error) != 0 else {
            throw Failure(description: "cannot connect to \(address): \(String(cString: error.message))")
        }
        self.connection = connection
        let request = dbus_message_new_method_call(call.destination, call.path, call.interface, call.member)!
        defer { dbus_message_unref(request) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, request, 25_000, &error),
              dbus_bus_request_name(connection, Self.name, CDBUS_NAME_FLAG_DO_NOT_QUEUE, &error) == 1 else {
            throw Failure(description: "cannot take the reply or the name: \(String(cString: error.message))")
        }
        kept = reply
        var marshalled: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        _ = dbus_message_marshal(reply, &marshalled, &length)
        free(marshalled)
        replyBytes = Int(length)
        pthread_create(&thread, nil, { context in
            Unmanaged<PlainReplier>.fromOpaque(context!).takeUnretainedValue().serve()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func serve() {
        while !stopped.withLock({ $0 }), dbus_connection_read_write(connection, 100) != 0 {
            while let call = dbus_connection_pop_message(connection) {
                if dbus_message_get_type(call) == CDBUS_MESSAGE_TYPE_METHOD_CALL, let reply = dbus_message_copy(kept) {
                    dbus_message_set_reply_serial(reply, dbus_message_get_serial(call))
                    dbus_message_set_destination(reply, dbus_message_get_sender(call))
                    dbus_connection_send(connection, reply, nil)
                    dbus_message_unref(reply)
                }
                dbus_message_unref(call)
            }
        }
    }

    /// Stops serving (within 0.1 s) and closes the connection.
    func stop() {
        stopped.withLock { $0 = true }
        pthread_join(thread, nil)
        dbus_message_unref(kept)
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }
}
