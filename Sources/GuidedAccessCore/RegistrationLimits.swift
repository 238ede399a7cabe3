// SPDX-License-Identifier: LGPL-2.1-or-later
/// How much one connection, one app and the whole user may make the service
/// hold in custom restrictions. Each cap has a default here and can be set by
/// an administrator in `managed.json`:
///
/// ```json
/// {"Limits": {"PerConnection": 256, "PerApp": 1024, "Total": 16384, "RememberedTitles": 4096}}
/// ```
public struct RegistrationLimits: Sendable, Equatable {
    /// Live registrations one connection may hold (DESIGN: 256).
    public static let defaultPerConnection = 256
    /// Live registrations one app may hold across all its connections.
    public static let defaultPerApp = 1_024
    /// Live registrations of the whole registry, which belongs to one user:
    /// 50 apps × 256 fit, with room to spare.
    public static let defaultTotal = 16_384
    /// Records kept for apps that left, when nobody decided anything about
    /// them (state `allow`, nothing forced): only their titles. Past this
    /// many, the least recently registered are forgotten. Records that carry
    /// a decision are never forgotten.
    public static let defaultRememberedTitles = 4_096

    public var perConnection = defaultPerConnection
    public var perApp = defaultPerApp
    public var total = defaultTotal
    public var rememberedTitles = defaultRememberedTitles

    /// The defaults.
    public init() {}

    /// The largest body, in bytes on the wire, of a `Register` call these
    /// limits allow: `perConnection` entries, each of the longest identifier,
    /// text and detail text. No other call of the contract comes near it,
    /// so the service refuses anything larger before decoding it.
    public var largestRegisterBytes: Int {
        let string = { (bytes: Int) in 4 + bytes + 1 }  // length, bytes, nul
        let entry = 8 + string(RestrictionIdentifier.maximumByteCount) + 2 * string(PurposeText.byteLimit - 1)
        return 4 + perConnection * entry
    }

    /// Each cap by its key in `managed.json`'s `Limits`: the one table that
    /// reading, writing and error messages use.
    static var keys: [(name: String, value: WritableKeyPath<RegistrationLimits, Int>)] {
        [("PerConnection", \.perConnection), ("PerApp", \.perApp), ("Total", \.total), ("RememberedTitles", \.rememberedTitles)]
    }

    /// Reads `Limits` from `managed.json`: absent keys keep their default;
    /// unknown keys and values below 1 are refused.
    public init(managed raw: [String: Int]) throws(DomainError) {
        let names = Self.keys.map(\.name)
        for (key, value) in raw {
            guard names.contains(key) else {
                throw .invalidArgument("Limits has no key \"\(key)\"; the keys are \(names.joined(separator: ", "))")
            }
            guard value >= 1 else { throw .invalidArgument("Limits.\(key) must be at least 1, not \(value)") }
        }
        for (name, field) in Self.keys { if let value = raw[name] { self[keyPath: field] = value } }
    }

    /// The `Limits` object as `managed.json` spells it.
    public var managed: [String: Int] {
        Dictionary(uniqueKeysWithValues: Self.keys.map { ($0.name, self[keyPath: $0.value]) })
    }
}
