// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// Policy an administrator fixes for the machine in `managed.json`:
/// which apps may lock themselves, which sandboxed apps may act as an
/// administrator, restriction states users cannot change, and features
/// whose value is locked.
///
/// ```json
/// {"AllowedApplications": ["org.example.Kiosk"],
///  "AdminApplications": ["org.example.KioskSetup"],
///  "Restrictions": {"com.example.app.purchase": "deny"},
///  "LockedFeatures": {"Zoom": true},
///  "Limits": {"PerApp": 2048}}
/// ```
/// Every key is optional. Unknown keys are rejected rather than ignored: a
/// misspelt key would otherwise silently drop a policy the admin relies on.
public struct ManagedConfig: Codable, Sendable, Equatable {
    /// Where the file lives unless a flag or environment variable says otherwise.
    public static let defaultPath = "/etc/guided-access/managed.json"

    /// Apps that may lock themselves with RequestSession without polkit.
    public var allowedApplications: [String]
    /// Flatpak ids of sandboxed apps that may ask for administrator actions
    /// (an administrator's own sandboxed tool). Any other sandboxed caller
    /// is refused them whatever polkit would say: code in a sandbox is
    /// untrusted. Being listed only lifts that refusal; polkit still decides.
    public var adminApplications: [String]
    /// Restriction states nobody can change, by identifier.
    public var restrictions: [String: RestrictionState]
    /// Feature values nobody can change.
    public var lockedFeatures: [Feature: Bool]
    /// Caps on custom restrictions (see ``RegistrationLimits``).
    public var limits: RegistrationLimits

    /// A config, empty by default (no policy, default limits).
    public init(
        allowedApplications: [String] = [], adminApplications: [String] = [],
        restrictions: [String: RestrictionState] = [:],
        lockedFeatures: [Feature: Bool] = [:], limits: RegistrationLimits = RegistrationLimits()
    ) {
        self.allowedApplications = allowedApplications
        self.adminApplications = adminApplications
        self.restrictions = restrictions
        self.lockedFeatures = lockedFeatures
        self.limits = limits
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case allowedApplications = "AllowedApplications"
        case adminApplications = "AdminApplications"
        case restrictions = "Restrictions"
        case lockedFeatures = "LockedFeatures"
        case limits = "Limits"
    }
}

/// Why `managed.json` could not be used; the daemon should refuse to start
/// rather than run without the admin's policy.
public struct ManagedConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file that was read.
    public let path: String
    /// What is wrong with it.
    public let problem: String

    /// `PATH: problem; fix it`, for the daemon's log.
    public var description: String {
        "managed config \(path) is unusable: \(problem); fix or remove the file"
    }
}

// MARK: - Loading

extension ManagedConfig {
    /// Reads the config at `path`. A missing file is an empty config; an
    /// unreadable or malformed one throws ``ManagedConfigError``.
    public static func load(from path: String = defaultPath) throws(ManagedConfigError) -> ManagedConfig {
        let data: Data?
        do {
            data = try FileSystem.readFile(path)
        } catch {
            throw ManagedConfigError(path: path, problem: "cannot read it (\(error.message))")
        }
        guard let data else { return ManagedConfig() }
        return try parse(data, path: path)
    }

    /// Parses config text; `path` only names the source in errors.
    public static func parse(_ data: Data, path: String) throws(ManagedConfigError) -> ManagedConfig {
        do {
            return try JSONDecoder().decode(ManagedConfig.self, from: data)
        } catch let error as DecodingError {
            throw ManagedConfigError(path: path, problem: describe(error))
        } catch let error as DomainError {
            throw ManagedConfigError(path: path, problem: error.message)
        } catch {
            throw ManagedConfigError(path: path, problem: "\(error)")
        }
    }

    /// Decodes and checks every value, so a bad entry names itself at start-up
    /// instead of surfacing later as a confusing refusal.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try Self.rejectUnknownKeys(container)
        let apps = try container.decodeIfPresent([String].self, forKey: AnyKey(CodingKeys.allowedApplications))
        let admins = try container.decodeIfPresent([String].self, forKey: AnyKey(CodingKeys.adminApplications))
        let states = try container.decodeIfPresent([String: String].self, forKey: AnyKey(CodingKeys.restrictions))
        let locked = try container.decodeIfPresent([String: Bool].self, forKey: AnyKey(CodingKeys.lockedFeatures))
        let limits = try container.decodeIfPresent([String: Int].self, forKey: AnyKey(CodingKeys.limits))
        self.init(
            allowedApplications: try Self.checkedApps(apps ?? []),
            adminApplications: try Self.checkedFlatpakIDs(admins ?? []),
            restrictions: try Self.checkedRestrictions(states ?? [:]),
            lockedFeatures: try Self.checkedFeatures(locked ?? [:]),
            limits: try RegistrationLimits(managed: limits ?? [:]))
    }

    /// Writes the same shape that ``init(from:)`` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(allowedApplications, forKey: .allowedApplications)
        try container.encode(adminApplications, forKey: .adminApplications)
        try container.encode(restrictions.mapValues(\.rawValue), forKey: .restrictions)
        let features = Dictionary(uniqueKeysWithValues: lockedFeatures.map { ($0.key.name, $0.value) })
        try container.encode(features, forKey: .lockedFeatures)
        try container.encode(limits.managed, forKey: .limits)
    }
}

// MARK: - Checks

extension ManagedConfig {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        init(_ key: CodingKeys) { stringValue = key.rawValue }
    }

    private static func rejectUnknownKeys(_ container: KeyedDecodingContainer<AnyKey>) throws {
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = container.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DomainError.invalidArgument(
                "unknown key \"\(unknown.stringValue)\"; the keys are \(known.sorted().joined(separator: ", "))")
        }
    }

    private static func checkedApps(_ apps: [String]) throws -> [String] {
        for app in apps { try AppIdentifier.validate(app) }
        return apps
    }

    /// Only sandboxed callers are held to this list, and they are known by
    /// their Flatpak id alone: a path here could never match, so it is
    /// refused rather than left to look like a grant.
    private static func checkedFlatpakIDs(_ apps: [String]) throws -> [String] {
        for app in apps {
            try AppIdentifier.validate(app)
            if app.hasPrefix("/") {
                throw DomainError.invalidArgument(
                    "AdminApplications lists \(app), but it holds Flatpak ids (such as org.example.KioskSetup), not paths; unsandboxed programs need no entry")
            }
        }
        return apps
    }

    private static func checkedRestrictions(_ raw: [String: String]) throws -> [String: RestrictionState] {
        var states: [String: RestrictionState] = [:]
        for (identifier, state) in raw {
            _ = try RestrictionIdentifier(identifier)
            states[identifier] = try RestrictionState(parsing: state)
        }
        return states
    }

    private static func checkedFeatures(_ raw: [String: Bool]) throws -> [Feature: Bool] {
        var features: [Feature: Bool] = [:]
        for (name, value) in raw { features[try Feature(parsing: name)] = value }
        return features
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            return "not valid JSON (\(context.underlyingError.map { "\($0)" } ?? context.debugDescription)); `python3 -m json.tool` shows where"
        case .typeMismatch(let type, let context):
            return "\(location(context)) should be \(expected(type, at: context))"
        case .valueNotFound(let type, let context):
            return "\(location(context)) should be \(expected(type, at: context)), not null"
        case .keyNotFound(let key, let context):
            return "\(location(context)) lacks \(key.stringValue)"
        @unknown default:
            return "\(error)"
        }
    }

    /// What a value should be, in the words of docs/administrators.md
    /// rather than a Swift type's: each key's whole value, else its parts.
    private static func expected(_ type: Any.Type, at context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue)
        if path.count == 1, let key = CodingKeys(rawValue: path[0]) {
            switch key {
            case .allowedApplications, .adminApplications: return "a list of app ids, like [\"org.example.App\"]"
            case .restrictions: return "a map of restriction identifiers to \"allow\" or \"deny\""
            case .lockedFeatures: return "a map of feature names to true or false"
            case .limits: return "a map of limit names to whole numbers"
            }
        }
        let appLists = [CodingKeys.allowedApplications.rawValue, CodingKeys.adminApplications.rawValue]
        switch type {
        case is String.Type where path.first == CodingKeys.restrictions.rawValue: return "\"allow\" or \"deny\""
        case is String.Type where appLists.contains(path.first ?? ""): return "an app id (a string)"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type: return "a whole number"
        default: return path.isEmpty ? "a JSON object (a map of the keys in docs/administrators.md)" : "a JSON value of another kind"
        }
    }

    /// `AllowedApplications[0]`, `Restrictions.com.example.a`, or the top level.
    private static func location(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        return path.isEmpty ? "the top level" : String(path.drop { $0 == "." })
    }
}
