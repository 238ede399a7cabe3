// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import GuidedAccessCore

/// Reads an `a{sv}` options argument strictly: unknown keys and wrong types
/// are `InvalidArgument` errors that name the key and the expected type.
struct Options {
    private let values: [String: Variant]

    /// Checks `values` against `accepted`, the options the method takes (the contract's `…Options.all`).
    init(_ values: [String: Variant], accepting accepted: [any OptionKey]) throws {
        let types = Dictionary(uniqueKeysWithValues: accepted.map { ($0.key, $0.signature) })
        for (key, value) in values {
            guard let expected = types[key] else {
                throw DomainError.invalidArgument(
                    "unknown option '\(key)'; known options: \(types.keys.sorted().joined(separator: ", "))")
            }
            guard value.value.signature == expected else {
                throw DomainError.invalidArgument("option '\(key)' must have type '\(expected)', not '\(value.value.signature)'")
            }
        }
        self.values = values
    }

    /// The value of `option`, already type-checked in `init`; `nil` when not given.
    subscript<T>(option: OptionDeclaration<T>) -> T? { values[option] }
}

extension SessionOptions {
    /// `Start`'s options, parsed and checked once, here at the edge; a bad
    /// one is an `InvalidArgument` naming it.
    init(_ options: Options) throws {
        let option = Contract.Session.StartOptions.self
        try self.init(
            timeLimit: options[option.timeLimit] ?? 0, systemRestrictions: options[option.systemRestrictions] ?? [:],
            disabledRegions: try (options[option.disabledRegions] ?? []).map(Region.init),
            restrictions: options[option.restrictions] ?? [:],
            presentation: try options[option.presentation].map(Presentation.init(parsing:)) ?? .asIs,
            autoLock: options[option.autoLock] ?? AutoLock.desktop, alsoAllowed: options[option.alsoAllowed] ?? [],
            accessibilityShortcut: options[option.accessibilityShortcut], features: options[option.features] ?? [:])
    }

    /// `GetLastOptions`' answer: every option but `interactive`, under its `Start` key.
    var wireValue: [String: Variant] {
        let option = Contract.Session.StartOptions.self
        var wire: [String: Variant] = [:]
        wire[option.timeLimit] = timeLimit
        wire[option.systemRestrictions] = systemRestrictions.mapValues(\.rawValue)
        wire[option.disabledRegions] = disabledRegions.map(WireRegion.init)
        wire[option.restrictions] = restrictions.mapValues(\.rawValue)
        wire[option.presentation] = presentation.rawValue
        wire[option.autoLock] = autoLock
        if !alsoAllowed.isEmpty { wire[option.alsoAllowed] = alsoAllowed }
        if let accessibilityShortcut { wire[option.accessibilityShortcut] = accessibilityShortcut.map(\.name) }
        if !features.isEmpty { wire[option.features] = Dictionary(uniqueKeysWithValues: features.map { ($0.key.name, $0.value) }) }
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
