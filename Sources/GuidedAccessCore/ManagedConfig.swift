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
///  "AccessibilityShortcut": ["ScreenReader", "Zoom"],
///  "SingleAppMode": {"App": "org.example.Kiosk", "Options": {"also-allowed": ["org.gnome.Evince"]}},
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
    /// What every session's accessibility menu offers unless `Start` names its own.
    public var accessibilityShortcut: [Feature]?
    /// The session the administrator keeps running (Single App Mode), if any.
    public var singleAppMode: SingleAppMode?
    /// Apps that may begin an assessment (Apple's assessment entitlement).
    public var assessmentApplications: [String]

    /// Managed Single App Mode: the user's session stays locked to `app`
    /// with `options`, from log-in on, until the administrator changes the file.
    public struct SingleAppMode: Sendable, Equatable {
        /// The app the session is locked to, normalised as `Start` stores it.
        public var app: String
        /// The session's options, under `Start`'s keys in the file.
        public var options: SessionOptions

        public init(app: String, options: SessionOptions = SessionOptions()) {
            self.app = app
            self.options = options
        }
    }

    /// A config, empty by default (no policy, default limits).
    public init(
        allowedApplications: [String] = [], adminApplications: [String] = [],
        restrictions: [String: RestrictionState] = [:],
        lockedFeatures: [Feature: Bool] = [:], limits: RegistrationLimits = RegistrationLimits(),
        accessibilityShortcut: [Feature]? = nil, singleAppMode: SingleAppMode? = nil, assessmentApplications: [String] = []
    ) {
        self.allowedApplications = allowedApplications
        self.adminApplications = adminApplications
        self.restrictions = restrictions
        self.lockedFeatures = lockedFeatures
        self.limits = limits
        self.accessibilityShortcut = accessibilityShortcut
        self.singleAppMode = singleAppMode
        self.assessmentApplications = assessmentApplications
    }

    fileprivate enum CodingKeys: String, CodingKey, CaseIterable {
        case allowedApplications = "AllowedApplications"
        case adminApplications = "AdminApplications"
        case restrictions = "Restrictions"
        case lockedFeatures = "LockedFeatures"
        case limits = "Limits"
        case accessibilityShortcut = "AccessibilityShortcut"
        case singleAppMode = "SingleAppMode"
        case assessmentApplications = "AssessmentApplications"
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
        let shortcut = try container.decodeIfPresent([String].self, forKey: AnyKey(CodingKeys.accessibilityShortcut))
        let singleApp = try container.decodeIfPresent(SingleAppMode.self, forKey: AnyKey(CodingKeys.singleAppMode))
        let examApps = try container.decodeIfPresent([String].self, forKey: AnyKey(CodingKeys.assessmentApplications))
        self.init(
            allowedApplications: try Self.checkedApps(apps ?? []),
            adminApplications: try Self.checkedFlatpakIDs(admins ?? []),
            restrictions: try Self.checkedRestrictions(states ?? [:]),
            lockedFeatures: try Self.checkedFeatures(locked ?? [:]),
            limits: try RegistrationLimits(managed: limits ?? [:]),
            accessibilityShortcut: try shortcut.map { try $0.map { (name) throws(DomainError) in try Feature(parsing: name) } },
            singleAppMode: singleApp, assessmentApplications: try Self.checkedApps(examApps ?? []).map(AppIdentifier.normalized))
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
        try container.encodeIfPresent(accessibilityShortcut?.map(\.name), forKey: .accessibilityShortcut)
        try container.encodeIfPresent(singleAppMode, forKey: .singleAppMode)
        if !assessmentApplications.isEmpty { try container.encode(assessmentApplications, forKey: .assessmentApplications) }
    }
}

// MARK: - Single App Mode in the file

extension ManagedConfig.SingleAppMode: Codable {
    private enum CodingKeys: String, CodingKey {
        case app = "App"
        case options = "Options"
    }

    /// `{"App": …, "Options": {…}}`; the options are `Start`'s, checked the
    /// same way (``SessionOptions/init(timeLimit:systemRestrictions:disabledRegions:restrictions:presentation:autoLock:alsoAllowed:accessibilityShortcut:features:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let app = try container.decodeIfPresent(String.self, forKey: .app) else {
            throw DomainError.invalidArgument("SingleAppMode lacks App, the app the session is locked to")
        }
        try AppIdentifier.validate(app)
        self.app = AppIdentifier.normalized(app)
        options = try container.decodeIfPresent(ManagedStartOptions.self, forKey: .options)?.options ?? SessionOptions()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(ManagedStartOptions(options), forKey: .options)
    }
}

/// `Start`'s options as JSON, under their wire names (``StartOptionName``):
/// regions as `[x, y, width, height]`. `interactive` has no place here.
private struct ManagedStartOptions: Codable {
    let options: SessionOptions

    init(_ options: SessionOptions) { self.options = options }

    private struct Key: CodingKey {
        let name: StartOptionName
        var stringValue: String { name.rawValue }
        var intValue: Int? { nil }
        init(_ name: StartOptionName) { self.name = name }
        init?(stringValue: String) {
            guard let name = StartOptionName(rawValue: stringValue), name != .interactive else { return nil }
            self.name = name
        }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let present = Set(container.allKeys.map(\.stringValue))
        let unknown = try decoder.container(keyedBy: ManagedConfig.AnyKey.self).allKeys.map(\.stringValue).filter { !present.contains($0) }
        if let first = unknown.sorted().first {
            let known = StartOptionName.allCases.filter { $0 != .interactive }.map(\.rawValue)
            throw DomainError.invalidArgument("SingleAppMode.Options has an unknown key \"\(first)\"; the keys are \(known.joined(separator: ", "))")
        }
        func value<T: Decodable>(_ name: StartOptionName, _ type: T.Type) throws -> T? {
            try container.decodeIfPresent(type, forKey: Key(name))
        }
        let regions = try (value(.disabledRegions, [[Int32]].self) ?? []).map { (edges) throws -> Region in
            guard edges.count == 4 else {
                throw DomainError.invalidArgument("a disabled region is [x, y, width, height], not \(edges.count) numbers")
            }
            return try Region(x: edges[0], y: edges[1], width: edges[2], height: edges[3])
        }
        options = try SessionOptions(
            timeLimit: value(.timeLimit, UInt64.self) ?? 0,
            systemRestrictions: value(.systemRestrictions, [String: String].self) ?? [:],
            disabledRegions: regions,
            restrictions: value(.restrictions, [String: String].self) ?? [:],
            presentation: try value(.presentation, String.self).map { (raw) throws(DomainError) in try Presentation(parsing: raw) } ?? .asIs,
            autoLock: value(.autoLock, Int64.self) ?? AutoLock.desktop,
            alsoAllowed: value(.alsoAllowed, [String].self) ?? [],
            accessibilityShortcut: value(.accessibilityShortcut, [String].self),
            features: value(.features, [String: Bool].self) ?? [:])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(options.timeLimit, forKey: Key(.timeLimit))
        try container.encode(options.systemRestrictions.mapValues(\.rawValue), forKey: Key(.systemRestrictions))
        try container.encode(options.disabledRegions.map { [$0.x, $0.y, $0.width, $0.height] }, forKey: Key(.disabledRegions))
        try container.encode(options.restrictions.mapValues(\.rawValue), forKey: Key(.restrictions))
        try container.encode(options.presentation.rawValue, forKey: Key(.presentation))
        try container.encode(options.autoLock, forKey: Key(.autoLock))
        try container.encode(options.alsoAllowed, forKey: Key(.alsoAllowed))
        try container.encodeIfPresent(options.accessibilityShortcut?.map(\.name), forKey: Key(.accessibilityShortcut))
        try container.encode(Dictionary(uniqueKeysWithValues: options.features.map { ($0.key.name, $0.value) }), forKey: Key(.features))
    }
}


// MARK: - Checks

extension ManagedConfig {
    /// Any key at all, to find the ones a strict container does not know.
    fileprivate struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        fileprivate init(_ key: CodingKeys) { stringValue = key.rawValue }
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
            case .allowedApplications, .adminApplications, .assessmentApplications: return "a list of app ids, like [\"org.example.App\"]"
            case .restrictions: return "a map of restriction identifiers to \"allow\" or \"deny\""
            case .lockedFeatures: return "a map of feature names to true or false"
            case .limits: return "a map of limit names to whole numbers"
            case .accessibilityShortcut: return "a list of feature names, like [\"ScreenReader\", \"Zoom\"]"
            case .singleAppMode: return "an object with App (an app id) and Options (Start's options)"
            }
        }
        let appLists = [CodingKeys.allowedApplications, .adminApplications, .assessmentApplications].map(\.rawValue)
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
