import DBusKit
import GuidedAccessCore

/// Reads an `a{sv}` options argument strictly: unknown keys and wrong types
/// are `InvalidArgument` errors that name the key and the expected type.
struct Options {
    private let values: [String: Variant]

    init(_ values: [String: Variant], allowed: [String: Signature]) throws {
        for (key, value) in values {
            guard let expected = allowed[key] else {
                throw DomainError.invalidArgument(
                    "unknown option '\(key)'; known options: \(allowed.keys.sorted().joined(separator: ", "))")
            }
            guard value.value.signature == expected else {
                throw DomainError.invalidArgument("option '\(key)' must have type '\(expected)', not '\(value.value.signature)'")
            }
        }
        self.values = values
    }

    /// The value of `key`, already type-checked in `init`.
    func get<T: DBusType>(_ key: String, _ type: T.Type = T.self) -> T? {
        values[key]?.get(T.self)
    }
}

/// A screen region travels as `(iiii)`.
extension Region: DBusStruct {
    public static let fieldTypes: [any DBusType.Type] = [Int32.self, Int32.self, Int32.self, Int32.self]
    public init(fields: DBusStructFields) throws {
        var fields = fields
        try self.init(x: try fields.next(), y: try fields.next(), width: try fields.next(), height: try fields.next())
    }
    public var fields: [DBusValue] { [.int32(x), .int32(y), .int32(width), .int32(height)] }
}
