// SPDX-License-Identifier: LGPL-2.1-or-later
/// A Swift type with a fixed D-Bus signature, converted at compile time.
///
/// Platform-sized `Int` deliberately does not conform: every value on the
/// wire has an explicit width.
public protocol DBusType: Sendable {
    /// The complete D-Bus type of every value of this Swift type.
    static var dbusSignature: Signature { get }
    /// Converts from the wire form; throws `DBusError.invalidArgs` on a mismatch.
    init(dbusValue: DBusValue) throws
    /// Converts to the wire form.
    var dbusValue: DBusValue { get }
    /// The C++ type Qt's D-Bus binding uses for these values (`QString`,
    /// `QMap<QString,QString>`, ...): introspection names it where
    /// `qdbusxml2cpp` cannot tell it from the signature (see `QtTypeNames.swift`).
    static var qtTypeName: String { get }
}

/// A type that can be a dictionary key (D-Bus basic types only).
public protocol DBusBasicType: DBusType, Hashable {}

func typeMismatch(_ expected: Signature, _ value: DBusValue) -> DBusError {
    .invalidArgs("expected a value of type '\(expected)', got '\(value.signature)'")
}

private protocol SimpleDBusType: DBusBasicType {
    static var wrap: (Self) -> DBusValue { get }
    static func unwrap(_ value: DBusValue) -> Self?
}

extension SimpleDBusType {
    public static var qtTypeName: String { QtTypeName.basic(dbusSignature) }
    public init(dbusValue: DBusValue) throws {
        guard let value = Self.unwrap(dbusValue) else { throw typeMismatch(Self.dbusSignature, dbusValue) }
        self = value
    }
    public var dbusValue: DBusValue { Self.wrap(self) }
}

extension UInt8: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "y") }
    static var wrap: (UInt8) -> DBusValue { DBusValue.byte }
    static func unwrap(_ v: DBusValue) -> UInt8? { if case .byte(let x) = v { x } else { nil } }
}
extension Bool: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "b") }
    static var wrap: (Bool) -> DBusValue { DBusValue.bool }
    static func unwrap(_ v: DBusValue) -> Bool? { if case .bool(let x) = v { x } else { nil } }
}
extension Int16: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "n") }
    static var wrap: (Int16) -> DBusValue { DBusValue.int16 }
    static func unwrap(_ v: DBusValue) -> Int16? { if case .int16(let x) = v { x } else { nil } }
}
extension UInt16: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "q") }
    static var wrap: (UInt16) -> DBusValue { DBusValue.uint16 }
    static func unwrap(_ v: DBusValue) -> UInt16? { if case .uint16(let x) = v { x } else { nil } }
}
extension Int32: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "i") }
    static var wrap: (Int32) -> DBusValue { DBusValue.int32 }
    static func unwrap(_ v: DBusValue) -> Int32? { if case .int32(let x) = v { x } else { nil } }
}
extension UInt32: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "u") }
    static var wrap: (UInt32) -> DBusValue { DBusValue.uint32 }
    static func unwrap(_ v: DBusValue) -> UInt32? { if case .uint32(let x) = v { x } else { nil } }
}
extension Int64: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "x") }
    static var wrap: (Int64) -> DBusValue { DBusValue.int64 }
    static func unwrap(_ v: DBusValue) -> Int64? { if case .int64(let x) = v { x } else { nil } }
}
extension UInt64: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "t") }
    static var wrap: (UInt64) -> DBusValue { DBusValue.uint64 }
    static func unwrap(_ v: DBusValue) -> UInt64? { if case .uint64(let x) = v { x } else { nil } }
}
extension Double: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "d") }
    static var wrap: (Double) -> DBusValue { DBusValue.double }
    static func unwrap(_ v: DBusValue) -> Double? { if case .double(let x) = v { x } else { nil } }
}
extension String: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "s") }
    static var wrap: (String) -> DBusValue { DBusValue.string }
    static func unwrap(_ v: DBusValue) -> String? { if case .string(let x) = v { x } else { nil } }
}
extension ObjectPath: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "o") }
    static var wrap: (ObjectPath) -> DBusValue { DBusValue.objectPath }
    static func unwrap(_ v: DBusValue) -> ObjectPath? { if case .objectPath(let x) = v { x } else { nil } }
}
extension Signature: SimpleDBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "g") }
    static var wrap: (Signature) -> DBusValue { DBusValue.signature }
    static func unwrap(_ v: DBusValue) -> Signature? { if case .signature(let x) = v { x } else { nil } }
}

/// A file descriptor argument (`h`). A received one belongs to its message
/// and is closed with it: `dup` it to keep it past the call.
public struct UnixFileDescriptor: SimpleDBusType {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    public static var dbusSignature: Signature { Signature(unchecked: "h") }
    static var wrap: (UnixFileDescriptor) -> DBusValue { { .unixFD($0.rawValue) } }
    static func unwrap(_ v: DBusValue) -> UnixFileDescriptor? { if case .unixFD(let x) = v { .init(x) } else { nil } }
}

/// A variant (`v`): a value that carries its own type.
public struct Variant: DBusType, Hashable, CustomStringConvertible {
    /// The contained value.
    public var value: DBusValue
    public init(_ value: DBusValue) { self.value = value }
    /// Wraps a typed value.
    public init<T: DBusType>(_ value: T) { self.value = value.dbusValue }
    public static var dbusSignature: Signature { Signature(unchecked: "v") }
    public static var qtTypeName: String { QtTypeName.basic(dbusSignature) }
    public init(dbusValue: DBusValue) throws {
        guard case .variant(let inner) = dbusValue else { throw typeMismatch("v", dbusValue) }
        value = inner
    }
    public var dbusValue: DBusValue { .variant(value) }
    /// The contained value as `T`, or nil when it has another type.
    public func get<T: DBusType>(_ type: T.Type = T.self) -> T? { try? T(dbusValue: value) }
    public var description: String { value.description }
}

extension Array: DBusType where Element: DBusType {
    public static var dbusSignature: Signature { Signature(unchecked: "a" + Element.dbusSignature.rawValue) }
    public static var qtTypeName: String { QtTypeName.list(of: Element.self) }
    public init(dbusValue: DBusValue) throws {
        guard case .array(let element, let items) = dbusValue, element == Element.dbusSignature else {
            throw typeMismatch(Self.dbusSignature, dbusValue)
        }
        self = try items.map(Element.init(dbusValue:))
    }
    public var dbusValue: DBusValue { .array(element: Element.dbusSignature, map(\.dbusValue)) }
}

extension Dictionary: DBusType where Key: DBusBasicType, Value: DBusType {
    public static var dbusSignature: Signature {
        Signature(unchecked: "a{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}")
    }
    public static var qtTypeName: String { QtTypeName.map(key: Key.self, value: Value.self) }
    public init(dbusValue: DBusValue) throws {
        guard case .dictionary(let k, let v, let entries) = dbusValue, k == Key.dbusSignature, v == Value.dbusSignature else {
            throw typeMismatch(Self.dbusSignature, dbusValue)
        }
        self.init()
        for entry in entries { self[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value) }
    }
    /// Entries are sent sorted by key text so that output is stable.
    public var dbusValue: DBusValue {
        let entries = map { DBusValue.DictionaryEntry(key: $0.key.dbusValue, value: $0.value.dbusValue) }
            .sorted { $0.key.description < $1.key.description }
        return .dictionary(key: Key.dbusSignature, value: Value.dbusSignature, entries)
    }
}

/// A Swift struct that travels as a D-Bus struct `(...)`.
///
/// Conformers list their field types once in `fieldTypes`; the signature
/// follows from it. Each also names its C++ type, ``DBusType/qtTypeName``
/// (a struct a Qt client declares with `operator<<` and `operator>>` for
/// `QDBusArgument`): no name follows from the fields.
public protocol DBusStruct: DBusType {
    /// The D-Bus types of the fields, in order.
    static var fieldTypes: [any DBusType.Type] { get }
    /// Creates the value from exactly `fieldTypes.count` fields of the right types.
    init(fields: DBusStructFields) throws
    /// The fields, in order.
    var fields: [DBusValue] { get }
}

extension DBusStruct {
    public static var dbusSignature: Signature {
        Signature(unchecked: "(" + fieldTypes.map { $0.dbusSignature.rawValue }.joined() + ")")
    }
    public init(dbusValue: DBusValue) throws {
        guard case .structure(let values) = dbusValue, dbusValue.signature == Self.dbusSignature else {
            throw typeMismatch(Self.dbusSignature, dbusValue)
        }
        try self.init(fields: DBusStructFields(values))
    }
    public var dbusValue: DBusValue { .structure(fields) }
}

/// Reads a struct's fields in order with their Swift types.
public struct DBusStructFields {
    private var values: ArraySlice<DBusValue>
    init(_ values: [DBusValue]) { self.values = values[...] }
    /// The next field as `T`.
    public mutating func next<T: DBusType>(_ type: T.Type = T.self) throws -> T {
        guard let value = values.popFirst() else { throw DBusError.invalidArgs("struct has too few fields") }
        return try T(dbusValue: value)
    }
}
