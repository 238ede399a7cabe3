// SPDX-License-Identifier: LGPL-2.1-or-later
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

    /// Options keyed by the contract's `Start` options, each of its declared type.
    init(_ values: [String: Variant], allowed: [StartOption]) throws {
        try self.init(values, allowed: Dictionary(uniqueKeysWithValues: allowed.map {
            ($0.rawValue, Contract.Session.signature(of: $0))
        }))
    }

    /// The value of `key`, already type-checked in `init`.
    func get<T: DBusType>(_ key: String, _ type: T.Type = T.self) -> T? {
        values[key]?.get(T.self)
    }

    /// The value of a `Start` option, already type-checked in `init`.
    func get<T: DBusType>(_ option: StartOption, _ type: T.Type = T.self) -> T? {
        get(option.rawValue, type)
    }
}

extension SessionOptions {
    /// `GetLastOptions`' answer: every option but `interactive`, under its `Start` key.
    var wireValue: [String: Variant] {
        var wire: [String: Variant] = [:]
        for option in StartOption.allCases {
            switch option {
            case .timeLimit: wire[option.rawValue] = Variant(timeLimit)
            case .systemRestrictions: wire[option.rawValue] = Variant(systemRestrictions.mapValues(\.rawValue))
            case .disabledRegions: wire[option.rawValue] = Variant(disabledRegions.map(WireRegion.init))
            case .restrictions: wire[option.rawValue] = Variant(restrictions.mapValues(\.rawValue))
            case .presentation: wire[option.rawValue] = Variant(presentation.rawValue)
            case .autoLock: wire[option.rawValue] = Variant(autoLock)
            case .interactive: continue
            }
        }
        return wire
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
