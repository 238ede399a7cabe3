// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc
import Locking

/// A D-Bus message (method call, reply, error or signal).
///
/// The body of an incoming message is decoded once, on first read, under a
/// lock, so reading it from any task is safe, and a message nobody reads
/// (a signal no one matches, a reply only awaited) costs no decoding.
public final class Message: @unchecked Sendable {
    /// What kind of message this is.
    public enum Kind: Sendable { case methodCall, methodReturn, error, signal }

    let raw: OpaquePointer

    public let kind: Kind
    public let path: ObjectPath?
    public let interface: InterfaceName?
    public let member: MemberName?
    public let sender: BusName?
    public let destination: BusName?
    public let errorName: ErrorName?
    public let signature: Signature
    /// The body's size on the wire, counted in place (nothing is copied out
    /// of libdbus), and no further than `limit`: a body larger than that
    /// gives a number above it.
    public func bodyByteCount(upTo limit: Int) -> Int {
        MessageSize.body(of: raw, upTo: limit)
    }

    /// The body, decoded.
    public var arguments: [DBusValue] {
        decoded.withLock { decoded in
            if let decoded { return decoded }
            let values = MessageReader.values(of: raw)
            decoded = values
            return values
        }
    }
    private let decoded: Locked<[DBusValue]?>
    /// The caller does not want a reply.
    public let noReplyExpected: Bool
    /// The caller is prepared to wait for interactive authorization (polkit).
    public let allowsInteractiveAuthorization: Bool

    /// A message built here: its fields are known, so nothing is read back
    /// from libdbus (that would cost as much as building it).
    private init(built raw: OpaquePointer, kind: Kind, path: ObjectPath? = nil, interface: InterfaceName? = nil,
                 member: MemberName? = nil, destination: BusName? = nil, arguments: [DBusValue]) {
        self.raw = raw
        self.kind = kind
        self.path = path
        self.interface = interface
        self.member = member
        sender = nil
        self.destination = destination
        errorName = nil
        var text = ""
        for argument in arguments { text += argument.signature.rawValue }
        signature = Signature(unchecked: text)
        decoded = Locked(arguments)
        isReceived = false
        noReplyExpected = false
        allowsInteractiveAuthorization = dbus_message_get_allow_interactive_authorization(raw) != 0
    }

    /// Takes over one reference to a received `raw` and decodes it.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
        switch dbus_message_get_type(raw) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case CDBUS_MESSAGE_TYPE_ERROR: kind = .error
        default: kind = .signal
        }
        // libdbus validated every header field of a received message.
        path = dbus_message_get_path(raw).map { ObjectPath(unchecked: String(cString: $0)) }
        interface = dbus_message_get_interface(raw).map { InterfaceName(unchecked: String(cString: $0)) }
        member = dbus_message_get_member(raw).map { MemberName(unchecked: String(cString: $0)) }
        sender = dbus_message_get_sender(raw).map { BusName(unchecked: String(cString: $0)) }
        destination = dbus_message_get_destination(raw).map { BusName(unchecked: String(cString: $0)) }
        errorName = dbus_message_get_error_name(raw).map { ErrorName(unchecked: String(cString: $0)) }
        signature = Signature(unchecked: String(cString: dbus_message_get_signature(raw)))
        decoded = Locked(nil)
        isReceived = true
        noReplyExpected = dbus_message_get_no_reply(raw) != 0
        allowsInteractiveAuthorization = dbus_message_get_allow_interactive_authorization(raw) != 0
    }

    deinit {
        if receivedDescriptors { closeDescriptors() }
        dbus_message_unref(raw)
    }

    /// Whether this message was received and may carry `h` values (in a
    /// variant, too): decoding one gives a duplicate that this message owns.
    private var receivedDescriptors: Bool {
        isReceived && signature.rawValue.contains { $0 == "h" || $0 == "v" }
    }
    private let isReceived: Bool

    /// Closes the descriptors that decoding duplicated, once, with the
    /// message: a handler that keeps one past the call must `dup` it.
    private func closeDescriptors() {
        func close(_ value: DBusValue) {
            switch value {
            case .unixFD(let fd) where fd >= 0: _ = Glibc.close(fd)
            case .array(_, let values), .structure(let values): values.forEach(close)
            case .dictionary(_, _, let entries): entries.forEach { close($0.key); close($0.value) }
            case .variant(let inner): close(inner)
            default: break
            }
        }
        decoded.withLock { $0?.forEach(close) }
    }

    /// The serial the sender gave this message.
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    /// For replies: the serial of the call answered.
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// A method call. Every name is a checked type, and every value is
    /// validated before libdbus sees it. With `noReplyExpected`, the
    /// callee must not answer (send it, do not `call` it). Without
    /// `autoStart`, the bus does not start a service for `destination`: a
    /// call meant only for a program that runs anyway starts nothing.
    public static func methodCall(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                                  arguments: [DBusValue] = [], allowInteractiveAuthorization: Bool = false,
                                  noReplyExpected: Bool = false, autoStart: Bool = true) throws -> Message {
        guard let raw = dbus_message_new_method_call(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue) else {
            throw MarshallingError(description: "out of memory")
        }
        if allowInteractiveAuthorization { dbus_message_set_allow_interactive_authorization(raw, 1) }
        if noReplyExpected { dbus_message_set_no_reply(raw, 1) }
        if !autoStart { dbus_message_set_auto_start(raw, 0) }
        try append(arguments, to: raw)
        return Message(built: raw, kind: .methodCall, path: path, interface: interface, member: member,
                       destination: destination, arguments: arguments)
    }

    /// A signal from `path`.
    public static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [DBusValue] = []) throws -> Message {
        guard let raw = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue) else {
            throw MarshallingError(description: "out of memory")
        }
        try append(arguments, to: raw)
        return Message(built: raw, kind: .signal, path: path, interface: interface, member: member, arguments: arguments)
    }

    /// The successful reply to this call.
    public func makeReply(_ arguments: [DBusValue]) throws -> Message {
        guard let raw = dbus_message_new_method_return(self.raw) else { throw MarshallingError(description: "out of memory") }
        try Message.append(arguments, to: raw)
        return Message(built: raw, kind: .methodReturn, destination: sender, arguments: arguments)
    }

    /// A copy of this reply, answering `call` instead. The body is copied as
    /// it is, already marshalled (see ``ReplyCache``).
    func copy(replyingTo call: Message) -> Message? {
        guard let raw = dbus_message_copy(self.raw) else { return nil }
        dbus_message_set_reply_serial(raw, call.serial)
        dbus_message_set_destination(raw, call.sender?.rawValue)
        return Message(built: raw, kind: .methodReturn, destination: call.sender, arguments: decoded.withLock { $0 ?? [] })
    }

    /// The error reply to this call. Messages are sanitised so a reply can
    /// always be built.
    public func makeErrorReply(_ error: DBusError) -> Message {
        let text = (try? validateDBusString(error.message)) != nil ? error.message : error.message.debugDescription
        return Message(adopting: dbus_message_new_error(raw, error.name.rawValue, text))
    }

    /// Writes the body; on failure the half-built message is released.
    private static func append(_ arguments: [DBusValue], to raw: OpaquePointer) throws {
        do {
            try MessageWriter.append(arguments, to: raw)
        } catch {
            dbus_message_unref(raw)
            throw error
        }
    }

    /// Throws the error this message carries, if it is an error reply.
    public func throwIfError() throws {
        guard kind == .error, let errorName else { return }
        let text: String = if case .string(let s)? = arguments.first { s } else { "" }
        throw DBusError(errorName, text)
    }

    /// Decodes the body as the given Swift types; with `int32AsUInt32`, a
    /// non-negative `i` is read where a `u` is expected.
    public func decode<each T: DBusType>(_ types: repeat (each T).Type, int32AsUInt32: Bool = false) throws -> (repeat each T) {
        var reader = ArgumentReader(int32AsUInt32 ? try arguments.map(Self.asUInt32) : arguments)
        let result = (repeat try reader.next((each T).self))
        try reader.finish()
        return result
    }
}

extension Message {
    /// An `i` argument as the `u` it stands for.
    fileprivate static func asUInt32(_ value: DBusValue) throws -> DBusValue {
        guard case .int32(let number) = value else { return value }
        guard let unsigned = UInt32(exactly: number) else {
            throw DBusError.invalidArgs("\(number) is negative where an unsigned number (u) is expected")
        }
        return .uint32(unsigned)
    }
}

/// Reads arguments one by one as typed values.
struct ArgumentReader {
    private var values: ArraySlice<DBusValue>
    init(_ values: [DBusValue]) { self.values = values[...] }

    mutating func next<T: DBusType>(_ type: T.Type) throws -> T {
        guard let value = values.popFirst() else { throw DBusError.invalidArgs("too few arguments: expected one of type '\(T.dbusSignature)'") }
        return try T(dbusValue: value)
    }

    func finish() throws {
        if !values.isEmpty { throw DBusError.invalidArgs("\(values.count) unexpected extra arguments") }
    }
}

extension InterfaceName { init(unchecked: String) { rawValue = unchecked } }
extension MemberName { init(unchecked: String) { rawValue = unchecked } }
extension BusName { init(unchecked: String) { rawValue = unchecked } }
extension ErrorName { init(unchecked: String) { rawValue = unchecked } }
