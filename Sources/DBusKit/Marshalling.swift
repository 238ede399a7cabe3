import CDBus
import Glibc

/// Thrown when a value cannot be written into a message: libdbus would
/// abort on it, so it is refused here with a reason.
public struct MarshallingError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Writes `DBusValue`s into a libdbus message, validating every string and
/// every container's element types first.
enum MessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        // Validate everything before touching the message so a bad value
        // leaves no half-written message behind.
        for value in values {
            try validate(value)
            // Nesting depth and the 255-byte limit show in the signature.
            _ = try Signature(validating: value.signature.rawValue)
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try write(value, into: &iter) }
    }

    /// Signatures that may be dictionary keys (a set: this check runs for every dictionary sent).
    private static let basicTypeCodes: Set<String> = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h"]

    static func validate(_ value: DBusValue) throws {
        switch value {
        case .string(let s):
            try validateDBusString(s)
        case .array(let element, let items):
            guard element.completeTypes.count == 1 else { throw MarshallingError(description: "array element signature '\(element)' is not one complete type") }
            for item in items {
                guard item.signature == element else {
                    throw MarshallingError(description: "array of '\(element)' holds a value of type '\(item.signature)'")
                }
                try validate(item)
            }
        case .dictionary(let key, let valueSignature, let entries):
            guard basicTypeCodes.contains(key.rawValue) else {
                throw MarshallingError(description: "dictionary key type '\(key)' is not a basic type")
            }
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == valueSignature else {
                    throw MarshallingError(description: "dictionary a{\(key)\(valueSignature)} holds an entry of type {\(entry.key.signature)\(entry.value.signature)}")
                }
                try validate(entry.key)
                try validate(entry.value)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw MarshallingError(description: "a struct needs at least one field") }
            for field in fields { try validate(field) }
        case .variant(let inner):
            try validate(inner)
        default:
            break
        }
    }

    private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
        let ok: Bool
        switch value {
        case .byte(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_BYTE, &v) != 0
        case .bool(let b): var v: dbus_bool_t = b ? 1 : 0; ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_BOOLEAN, &v) != 0
        case .int16(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT16, &v) != 0
        case .uint16(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT16, &v) != 0
        case .int32(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT32, &v) != 0
        case .uint32(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT32, &v) != 0
        case .int64(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT64, &v) != 0
        case .uint64(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT64, &v) != 0
        case .double(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_DOUBLE, &v) != 0
        case .unixFD(var v): ok = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UNIX_FD, &v) != 0
        case .string(let s): ok = appendString(s, type: CDBUS_TYPE_STRING, into: &iter)
        case .objectPath(let p): ok = appendString(p.rawValue, type: CDBUS_TYPE_OBJECT_PATH, into: &iter)
        case .signature(let g): ok = appendString(g.rawValue, type: CDBUS_TYPE_SIGNATURE, into: &iter)
        case .array(let element, let items):
            ok = try container(CDBUS_TYPE_ARRAY, element.rawValue, &iter) { sub in
                for item in items { try write(item, into: &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            ok = try container(CDBUS_TYPE_ARRAY, "{\(key)\(valueSignature)}", &iter) { sub in
                for entry in entries {
                    guard try container(CDBUS_TYPE_DICT_ENTRY, nil, &sub, { pair in
                        try write(entry.key, into: &pair)
                        try write(entry.value, into: &pair)
                    }) else { throw outOfMemory }
                }
            }
        case .structure(let fields):
            ok = try container(CDBUS_TYPE_STRUCT, nil, &iter) { sub in
                for field in fields { try write(field, into: &sub) }
            }
        case .variant(let inner):
            ok = try container(CDBUS_TYPE_VARIANT, inner.signature.rawValue, &iter) { sub in
                try write(inner, into: &sub)
            }
        }
        if !ok { throw outOfMemory }
    }

    private static let outOfMemory = MarshallingError(description: "libdbus ran out of memory while building a message")

    private static func appendString(_ s: String, type: Int32, into iter: inout DBusMessageIter) -> Bool {
        s.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, type, &pointer) != 0
        }
    }

    private static func container(_ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
                                  _ body: (inout DBusMessageIter) throws -> Void) throws -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }
}

/// Reads the values of a message; libdbus has already checked them.
enum MessageReader {
    static func values(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var result: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            result.append(read(&iter))
            dbus_message_iter_next(&iter)
        }
        return result
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func signatureOfCurrent(_ iter: inout DBusMessageIter) -> Signature {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return .empty }
        defer { dbus_free(raw) }
        return Signature(unchecked: String(cString: raw))
    }

    private static func read(_ iter: inout DBusMessageIter) -> DBusValue {
        switch dbus_message_iter_get_arg_type(&iter) {
        case CDBUS_TYPE_BYTE: return .byte(basic(&iter, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(basic(&iter, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(basic(&iter, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(basic(&iter, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(basic(&iter, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(basic(&iter, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(basic(&iter, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(basic(&iter, Double(0)))
        case CDBUS_TYPE_UNIX_FD: return .unixFD(basic(&iter, Int32(-1)))
        case CDBUS_TYPE_STRING: return .string(string(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(ObjectPath(unchecked: string(&iter)))
        case CDBUS_TYPE_SIGNATURE: return .signature(Signature(unchecked: string(&iter)))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(read(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        case CDBUS_TYPE_ARRAY:
            return readArray(&iter)
        default:
            // libdbus validated the message, so no other type can appear.
            preconditionFailure("unexpected D-Bus type code \(dbus_message_iter_get_arg_type(&iter))")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter) -> DBusValue {
        let whole = signatureOfCurrent(&iter).rawValue
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if whole.hasPrefix("a{") {
            let inner = Signature(unchecked: String(whole.dropFirst(2).dropLast()))
            let parts = inner.completeTypes
            var entries: [DBusValue.DictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let key = read(&pair)
                dbus_message_iter_next(&pair)
                entries.append(.init(key: key, value: read(&pair)))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: parts[0], value: parts[1], entries)
        }
        return .array(element: Signature(unchecked: String(whole.dropFirst())), readAll(&sub))
    }
}

extension ObjectPath {
    init(unchecked: String) { rawValue = unchecked }
}
