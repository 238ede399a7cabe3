// SPDX-License-Identifier: LGPL-2.1-or-later
/// One D-Bus value of any type, as it travels in a message.
///
/// Containers carry their element signatures so that empty arrays and
/// dictionaries keep their type.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// A file descriptor. Sending duplicates it, so the sender keeps its own.
    /// In a received message it belongs to the message and is closed with
    /// it: `dup` it to keep it past the call.
    case unixFD(Int32)
    /// An array of values that all have signature `element`.
    case array(element: Signature, [DBusValue])
    /// A dictionary `a{KV}`; entries keep their wire order.
    case dictionary(key: Signature, value: Signature, [DictionaryEntry])
    case structure([DBusValue])
    /// Only this case needs a box: the containers above already hold their
    /// elements in arrays, and boxing every scalar would cost an allocation each.
    indirect case variant(DBusValue)

    /// One key/value pair of a dictionary.
    public struct DictionaryEntry: Hashable, Sendable {
        public var key: DBusValue
        public var value: DBusValue
        public init(key: DBusValue, value: DBusValue) { self.key = key; self.value = value }
    }

    /// The complete signature of this value. Built unchecked: these are
    /// fixed type codes, and this runs for every value sent.
    public var signature: Signature {
        switch self {
        case .byte: Signature(unchecked: "y")
        case .bool: Signature(unchecked: "b")
        case .int16: Signature(unchecked: "n")
        case .uint16: Signature(unchecked: "q")
        case .int32: Signature(unchecked: "i")
        case .uint32: Signature(unchecked: "u")
        case .int64: Signature(unchecked: "x")
        case .uint64: Signature(unchecked: "t")
        case .double: Signature(unchecked: "d")
        case .string: Signature(unchecked: "s")
        case .objectPath: Signature(unchecked: "o")
        case .signature: Signature(unchecked: "g")
        case .unixFD: Signature(unchecked: "h")
        case .array(let element, _): Signature(unchecked: "a" + element.rawValue)
        case .dictionary(let key, let value, _): Signature(unchecked: "a{" + key.rawValue + value.rawValue + "}")
        case .structure(let fields): Signature(unchecked: "(" + fields.map(\.signature.rawValue).joined() + ")")
        case .variant: Signature(unchecked: "v")
        }
    }
}

extension DBusValue: CustomStringConvertible {
    /// A GVariant-like text form, for logs and test failures.
    public var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "\(v)"
        case .string(let v): v.debugDescription
        case .objectPath(let v): "objectpath '\(v)'"
        case .signature(let v): "signature '\(v)'"
        case .unixFD(let v): "handle \(v)"
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): "<\(inner)>"
        }
    }
}
