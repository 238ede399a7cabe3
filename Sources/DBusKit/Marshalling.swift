// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc

/// Thrown when a value cannot be written into a message: libdbus would
/// abort on it, so it is refused here with a reason.
public struct MarshallingError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Writes `DBusValue`s into a libdbus message in one pass, checking each
/// value just before libdbus sees it: libdbus aborts the process on an
/// invalid string or a value that does not fit its container's signature.
/// On a refusal the caller discards the half-built message.
struct MessageWriter {
    /// Containers (arrays, structs, dictionary entries, variants) nested
    /// deeper than this are refused: the bus drops messages past libdbus's
    /// recursion limit of 32, and takes the sender's connection with them.
    static let maximumDepth = 32

    private var depth = 0
    /// Element signatures already checked in this message; a reply of
    /// thousands of `a{sv}` checks each distinct one once.
    private var checkedElements: [String] = []

    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        var writer = MessageWriter()
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values {
            // Key types, empty structs, the 255-byte limit and the per-kind
            // nesting limits all show in the signature.
            let signature = value.signature.rawValue
            guard (try? Signature(validating: signature)) != nil else {
                throw MarshallingError(description: "a value of type '\(signature)' cannot be sent: libdbus rejects that signature")
            }
            try writer.write(value, into: &iter)
        }
    }

    private mutating func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
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
        case .string(let s):
            try validateDBusString(s)
            ok = Self.appendString(s, type: CDBUS_TYPE_STRING, into: &iter)
        case .objectPath(let p): ok = Self.appendString(p.rawValue, type: CDBUS_TYPE_OBJECT_PATH, into: &iter)
        case .signature(let g): ok = Self.appendString(g.rawValue, type: CDBUS_TYPE_SIGNATURE, into: &iter)
        case .array(let element, let items):
            try checkElement(element)
            ok = try container(CDBUS_TYPE_ARRAY, element.rawValue, &iter) { writer, sub in
                for item in items {
                    guard item.fits(element.rawValue) else {
                        throw MarshallingError(description: "array of '\(element)' holds a value of type '\(item.signature)'")
                    }
                    try writer.write(item, into: &sub)
                }
            }
        case .dictionary(let key, let valueSignature, let entries):
            guard key.rawValue.utf8.count == 1, let code = key.rawValue.utf8.first, Self.basicTypeCodes.contains(code) else {
                throw MarshallingError(description: "dictionary key type '\(key)' is not a basic type")
            }
            try checkElement(valueSignature)
            ok = try container(CDBUS_TYPE_ARRAY, "{" + key.rawValue + valueSignature.rawValue + "}", &iter) { writer, sub in
                for entry in entries {
                    guard entry.key.fits(key.rawValue), entry.value.fits(valueSignature.rawValue) else {
                        throw MarshallingError(description: "dictionary a{\(key)\(valueSignature)} holds an entry of type {\(entry.key.signature)\(entry.value.signature)}")
                    }
                    guard try writer.container(CDBUS_TYPE_DICT_ENTRY, nil, &sub, { writer, pair in
                        try writer.write(entry.key, into: &pair)
                        try writer.write(entry.value, into: &pair)
                    }) else { throw Self.outOfMemory }
                }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw MarshallingError(description: "a struct needs at least one field") }
            ok = try container(CDBUS_TYPE_STRUCT, nil, &iter) { writer, sub in
                for field in fields { try writer.write(field, into: &sub) }
            }
        case .variant(let inner):
            let signature = inner.signature
            // A variant starts a new signature; a container's must be valid on its own.
            if signature.rawValue.utf8.count > 1 { try checkElement(signature) }
            ok = try container(CDBUS_TYPE_VARIANT, signature.rawValue, &iter) { writer, sub in
                try writer.write(inner, into: &sub)
            }
        }
        if !ok { throw Self.outOfMemory }
    }

    /// Type codes that may be dictionary keys.
    private static let basicTypeCodes = Set("ybnqiuxtdsogh".utf8)

    /// Checks that `signature` is one valid complete type, once per message.
    private mutating func checkElement(_ signature: Signature) throws {
        if checkedElements.contains(signature.rawValue) { return }
        guard libdbusAccepts(signature.rawValue, dbus_signature_validate_single) else {
            throw MarshallingError(description: "element signature '\(signature)' is not one complete type")
        }
        if checkedElements.count < 16 { checkedElements.append(signature.rawValue) }
    }

    private static let outOfMemory = MarshallingError(description: "libdbus ran out of memory while building a message")

    private static func appendString(_ s: String, type: Int32, into iter: inout DBusMessageIter) -> Bool {
        s.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, type, &pointer) != 0
        }
    }

    private mutating func container(_ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
                                    _ body: (inout MessageWriter, inout DBusMessageIter) throws -> Void) throws -> Bool {
        guard depth < Self.maximumDepth else {
            throw MarshallingError(description: "containers nested more than \(Self.maximumDepth) deep")
        }
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        depth += 1
        defer { depth -= 1 }
        do {
            try body(&self, &sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }
}

extension DBusValue {
    /// Whether this value has the complete type `signature`, checked
    /// without building signature strings. Arrays and dictionaries are
    /// compared by their declared element types; their items are checked
    /// against those as they are written.
    func fits(_ signature: String) -> Bool {
        if let code = singleTypeCode {
            // Most values checked are strings and variants in a{sv}: one byte to compare.
            return signature.utf8.count == 1 && signature.utf8.first == code
        }
        var utf8 = signature.utf8[...]
        return fits(&utf8) && utf8.isEmpty
    }

    /// The one-character signature of a basic value or a variant; `nil` for other containers.
    private var singleTypeCode: UInt8? {
        switch self {
        case .array, .dictionary, .structure: nil
        default: signature.rawValue.utf8.first
        }
    }

    private func fits(_ rest: inout Substring.UTF8View) -> Bool {
        func take(_ text: String) -> Bool {
            guard rest.starts(with: text.utf8) else { return false }
            rest.removeFirst(text.utf8.count)
            return true
        }
        func take(_ code: Unicode.Scalar) -> Bool {
            guard rest.first == UInt8(ascii: code) else { return false }
            rest.removeFirst()
            return true
        }
        switch self {
        case .byte: return take("y")
        case .bool: return take("b")
        case .int16: return take("n")
        case .uint16: return take("q")
        case .int32: return take("i")
        case .uint32: return take("u")
        case .int64: return take("x")
        case .uint64: return take("t")
        case .double: return take("d")
        case .string: return take("s")
        case .objectPath: return take("o")
        case .signature: return take("g")
        case .unixFD: return take("h")
        case .variant: return take("v")
        case .array(let element, _): return take("a") && take(element.rawValue)
        case .dictionary(let key, let value, _): return take("a") && take("{") && take(key.rawValue) && take(value.rawValue) && take("}")
        case .structure(let fields): return take("(") && fields.allSatisfy { $0.fits(&rest) } && take(")")
        }
    }
}

/// How large a received message's body is, read in place with libdbus's
/// iterators: strings are measured where they lie, arrays of fixed-size
/// values by their count, so sizing even a huge message allocates nothing.
/// Alignment padding and a variant's own signature are not counted.
enum MessageSize {
    static func body(of message: OpaquePointer, upTo limit: Int) -> Int {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return 0 }
        var total = 0
        add(&iter, to: &total, upTo: limit)
        return total
    }

    /// Adds the values from `iter` to the end of its container, stopping once past `limit`.
    private static func add(_ iter: inout DBusMessageIter, to total: inout Int, upTo limit: Int) {
        repeat {
            let type = dbus_message_iter_get_arg_type(&iter)
            switch type {
            case CDBUS_TYPE_INVALID:
                return
            case CDBUS_TYPE_STRING, CDBUS_TYPE_OBJECT_PATH, CDBUS_TYPE_SIGNATURE:
                var pointer: UnsafePointer<CChar>? = nil
                dbus_message_iter_get_basic(&iter, &pointer)
                total += 5 + (pointer.map { strlen($0) } ?? 0)  // length, bytes, nul
            case CDBUS_TYPE_ARRAY:
                var items = DBusMessageIter()
                let element = dbus_message_iter_get_element_type(&iter)
                dbus_message_iter_recurse(&iter, &items)
                total += 4
                if let width = fixedWidth(element) {
                    var values: UnsafeMutableRawPointer? = nil
                    var count: Int32 = 0
                    dbus_message_iter_get_fixed_array(&items, &values, &count)
                    total += Int(count) * width
                } else {
                    add(&items, to: &total, upTo: limit)
                }
            case CDBUS_TYPE_VARIANT, CDBUS_TYPE_STRUCT, CDBUS_TYPE_DICT_ENTRY:
                var fields = DBusMessageIter()
                dbus_message_iter_recurse(&iter, &fields)
                add(&fields, to: &total, upTo: limit)
            default:
                total += fixedWidth(type) ?? 8
            }
        } while total <= limit && dbus_message_iter_next(&iter) != 0
    }

    /// Bytes of a value of a fixed-size type that libdbus hands out as an
    /// array in place; nil for the others (file descriptors included).
    private static func fixedWidth(_ type: Int32) -> Int? {
        switch type {
        case CDBUS_TYPE_BYTE: 1
        case CDBUS_TYPE_INT16, CDBUS_TYPE_UINT16: 2
        case CDBUS_TYPE_BOOLEAN, CDBUS_TYPE_INT32, CDBUS_TYPE_UINT32: 4
        case CDBUS_TYPE_INT64, CDBUS_TYPE_UINT64, CDBUS_TYPE_DOUBLE: 8
        default: nil
        }
    }
}

/// Reads the values of a message; libdbus has already checked them.
struct MessageReader {
    /// `a{KV}` signatures split into key and value, once per message: a
    /// reply of thousands of `a{sv}` splits each distinct one once.
    private var dictionaryTypes: [String: (key: Signature, value: Signature)] = [:]

    static func values(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var reader = MessageReader()
        return reader.readAll(&iter)
    }

    private mutating func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var result: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            result.append(read(&iter))
            dbus_message_iter_next(&iter)
        }
        return result
    }

    private static func basic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func signatureOfCurrent(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    /// Reads the value at `iter`. `signature`, when the caller knows it
    /// (an array's items share one), saves asking libdbus for it.
    private mutating func read(_ iter: inout DBusMessageIter, signature: String? = nil) -> DBusValue {
        switch dbus_message_iter_get_arg_type(&iter) {
        case CDBUS_TYPE_BYTE: return .byte(Self.basic(&iter, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .bool(Self.basic(&iter, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(Self.basic(&iter, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(Self.basic(&iter, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(Self.basic(&iter, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(Self.basic(&iter, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(Self.basic(&iter, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(Self.basic(&iter, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(Self.basic(&iter, Double(0)))
        case CDBUS_TYPE_UNIX_FD: return .unixFD(Self.basic(&iter, Int32(-1)))
        case CDBUS_TYPE_STRING: return .string(Self.string(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(ObjectPath(unchecked: Self.string(&iter)))
        case CDBUS_TYPE_SIGNATURE: return .signature(Signature(unchecked: Self.string(&iter)))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(read(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        case CDBUS_TYPE_ARRAY:
            return readArray(&iter, signature: signature ?? Self.signatureOfCurrent(&iter))
        default:
            // libdbus validated the message, so no other type can appear.
            preconditionFailure("unexpected D-Bus type code \(dbus_message_iter_get_arg_type(&iter))")
        }
    }

    private mutating func readArray(_ iter: inout DBusMessageIter, signature whole: String) -> DBusValue {
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        guard whole.hasPrefix("a{") else {
            let element = String(whole.dropFirst())
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
                items.append(read(&sub, signature: element))
                dbus_message_iter_next(&sub)
            }
            return .array(element: Signature(unchecked: element), items)
        }
        let types = dictionaryTypes(whole)
        var entries: [DBusValue.DictionaryEntry] = []
        while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
            var pair = DBusMessageIter()
            dbus_message_iter_recurse(&sub, &pair)
            let key = read(&pair)
            dbus_message_iter_next(&pair)
            entries.append(.init(key: key, value: read(&pair, signature: types.value.rawValue)))
            dbus_message_iter_next(&sub)
        }
        return .dictionary(key: types.key, value: types.value, entries)
    }

    private mutating func dictionaryTypes(_ whole: String) -> (key: Signature, value: Signature) {
        if let known = dictionaryTypes[whole] { return known }
        let parts = Signature(unchecked: String(whole.dropFirst(2).dropLast())).completeTypes
        let types = (key: parts[0], value: parts[1])
        dictionaryTypes[whole] = types
        return types
    }
}

extension ObjectPath {
    init(unchecked: String) { rawValue = unchecked }
}
