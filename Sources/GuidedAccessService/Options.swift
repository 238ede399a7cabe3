import DBusKit
import GuidedAccessContract
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

extension Region {
    /// Checks a region from the wire; one without area is an `InvalidArgument`.
    init(_ wire: WireRegion) throws(DomainError) {
        try self.init(x: wire.x, y: wire.y, width: wire.width, height: wire.height)
    }
}

extension WireRegion {
    init(_ region: Region) {
        self.init(x: region.x, y: region.y, width: region.width, height: region.height)
    }
}
