// SPDX-License-Identifier: LGPL-2.1-or-later
/// The options a session starts with, parsed and checked once where they
/// arrive (the service's `Start`) and then carried whole: the session
/// applies them, the per-app memory keeps them and `GetLastOptions`
/// answers them. A value made with
/// ``init(timeLimit:systemRestrictions:disabledRegions:restrictions:presentation:autoLock:alsoAllowed:accessibilityShortcut:features:)``
/// is valid, so nothing downstream checks it again.
///
/// All eight system restrictions are held (those not named are `allow`).
/// Never holds `interactive` or a passcode: only what shapes the session.
public struct SessionOptions: Codable, Sendable, Equatable {
    /// Seconds, 0 = none.
    public private(set) var timeLimit: UInt64 = 0
    /// Every system restriction by wire name.
    public private(set) var systemRestrictions: [String: RestrictionState] = SystemRestriction.allAllowed
    /// Regions where input is ignored.
    public private(set) var disabledRegions: [Region] = []
    /// Custom restriction states the session starts with (the per-app
    /// memory keeps at most ``PerAppMemory/maximumRestrictionsPerApp``).
    public internal(set) var restrictions: [String: RestrictionState] = [:]
    /// How the app's windows are shown.
    public private(set) var presentation: Presentation = .asIs
    /// Seconds before the screen blanks, 0 = never, ``AutoLock/desktop`` = the desktop's own.
    public private(set) var autoLock: Int64 = AutoLock.desktop
    /// Other apps the person may reach, normalised like the session's app.
    public private(set) var alsoAllowed: [String] = []
    /// Features the person may switch during the session; `nil`: managed.json's, else ``Feature/defaultShortcut``.
    public private(set) var accessibilityShortcut: [Feature]?
    /// Accessibility features set for the session and put back at its end.
    public private(set) var features: [Feature: Bool] = [:]

    /// Most apps `also-allowed` may name.
    public static let maximumAlsoAllowed = 32

    /// The defaults: what a `Start` without options gives, and what an app
    /// that locks itself gets.
    public init() {}

    /// Parses and checks options as they arrive, names and states as text:
    /// throws `invalidArgument` naming the first bad one.
    public init(
        timeLimit: UInt64 = 0, systemRestrictions: [String: String] = [:], disabledRegions: [Region] = [],
        restrictions: [String: String] = [:], presentation: Presentation = .asIs, autoLock: Int64 = AutoLock.desktop,
        alsoAllowed: [String] = [], accessibilityShortcut: [String]? = nil, features: [String: Bool] = [:]
    ) throws(DomainError) {
        try GuidedAccessSession.checkTimeLimit(timeLimit)
        try GuidedAccessSession.checkRegions(disabledRegions)
        try GuidedAccessSession.checkAutoLock(autoLock)
        self.timeLimit = timeLimit
        for (restriction, state) in try GuidedAccessModel.parseSystemRestrictions(systemRestrictions) {
            self.systemRestrictions[restriction.rawValue] = state
        }
        self.disabledRegions = disabledRegions
        for (identifier, state) in restrictions.sorted(by: { $0.key < $1.key }) {
            _ = try RestrictionIdentifier(identifier)
            self.restrictions[identifier] = try RestrictionState(parsing: state)
        }
        self.presentation = presentation
        self.autoLock = autoLock
        self.alsoAllowed = try Self.checkedApps(alsoAllowed)
        self.accessibilityShortcut = try accessibilityShortcut.map { (names) throws(DomainError) in
            var parsed: [Feature] = []
            for name in names { parsed.append(try Feature(parsing: name)) }
            return Feature.allCases.filter(parsed.contains)
        }
        for (name, value) in features.sorted(by: { $0.key < $1.key }) {
            self.features[try Feature(parsing: name)] = value
        }
    }

    /// `also-allowed` (or `key`, a list of apps like it) as stored: each id
    /// checked and normalised, in the order given, without repeats.
    static func checkedApps(_ apps: [String], key: String = StartOptionName.alsoAllowed.rawValue) throws(DomainError) -> [String] {
        guard apps.count <= maximumAlsoAllowed else {
            throw .invalidArgument("\(key) names \(apps.count) apps; name at most \(maximumAlsoAllowed)")
        }
        var checked: [String] = []
        for app in apps {
            let normalized = AppIdentifier.normalized(app)
            do throws(DomainError) { try AppIdentifier.validate(normalized) } catch {
                throw .invalidArgument("\(key): \(error.message)")
            }
            if !checked.contains(normalized) { checked.append(normalized) }
        }
        return checked
    }

    private enum CodingKeys: String, CodingKey {
        case timeLimit, systemRestrictions, disabledRegions, restrictions, presentation, autoLock, alsoAllowed
        case accessibilityShortcut, features
    }

    /// Reads options as saved; a file written before an option existed gives its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeLimit = try container.decode(UInt64.self, forKey: .timeLimit)
        systemRestrictions = try container.decode([String: RestrictionState].self, forKey: .systemRestrictions)
        disabledRegions = try container.decode([Region].self, forKey: .disabledRegions)
        restrictions = try container.decode([String: RestrictionState].self, forKey: .restrictions)
        presentation = try container.decode(Presentation.self, forKey: .presentation)
        autoLock = try container.decode(Int64.self, forKey: .autoLock)
        alsoAllowed = try container.decodeIfPresent([String].self, forKey: .alsoAllowed) ?? []
        accessibilityShortcut = try container.decodeIfPresent([Feature].self, forKey: .accessibilityShortcut)
        features = try container.decodeIfPresent([Feature: Bool].self, forKey: .features) ?? [:]
    }

    /// Leaves out what an older file would not have held when it is at its
    /// default, so a state file round-trips unchanged.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeLimit, forKey: .timeLimit)
        try container.encode(systemRestrictions, forKey: .systemRestrictions)
        try container.encode(disabledRegions, forKey: .disabledRegions)
        try container.encode(restrictions, forKey: .restrictions)
        try container.encode(presentation, forKey: .presentation)
        try container.encode(autoLock, forKey: .autoLock)
        if !alsoAllowed.isEmpty { try container.encode(alsoAllowed, forKey: .alsoAllowed) }
        try container.encodeIfPresent(accessibilityShortcut, forKey: .accessibilityShortcut)
        if !features.isEmpty { try container.encode(features, forKey: .features) }
    }
}
