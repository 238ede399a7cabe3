// SPDX-License-Identifier: LGPL-2.1-or-later
/// The options a session starts with, parsed and checked once where they
/// arrive (the service's `Start`) and then carried whole: the session
/// applies them, the per-app memory keeps them and `GetLastOptions`
/// answers them. A value made with
/// ``init(timeLimit:systemRestrictions:disabledRegions:restrictions:presentation:autoLock:)``
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
    /// Accessibility features set for the session.
    public private(set) var features: [Feature: Bool] = [:]

    /// The defaults: what a `Start` without options gives, and what an app
    /// that locks itself gets.
    public init() {}

    /// Parses and checks options as they arrive, names and states as text:
    /// throws `invalidArgument` naming the first bad one.
    public init(
        timeLimit: UInt64 = 0, systemRestrictions: [String: String] = [:], disabledRegions: [Region] = [],
        restrictions: [String: String] = [:], presentation: Presentation = .asIs, autoLock: Int64 = AutoLock.desktop,
        features: [String: Bool] = [:]
    ) throws(DomainError) {
        try GuidedAccessSession.checkTimeLimit(timeLimit)
        try GuidedAccessSession.checkRegions(disabledRegions)
        try GuidedAccessSession.checkAutoLock(autoLock)
        self.timeLimit = timeLimit
        for (name, state) in systemRestrictions.sorted(by: { $0.key < $1.key }) {
            self.systemRestrictions[try SystemRestriction(parsing: name).rawValue] = try RestrictionState(parsing: state)
        }
        self.disabledRegions = disabledRegions
        for (identifier, state) in restrictions.sorted(by: { $0.key < $1.key }) {
            _ = try RestrictionIdentifier(identifier)
            self.restrictions[identifier] = try RestrictionState(parsing: state)
        }
        self.presentation = presentation
        self.autoLock = autoLock
        for (name, value) in features.sorted(by: { $0.key < $1.key }) {
            self.features[try Feature(parsing: name)] = value
        }
    }

    private enum CodingKeys: String, CodingKey {
        case timeLimit, systemRestrictions, disabledRegions, restrictions, presentation, autoLock, features
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
        if !features.isEmpty { try container.encode(features, forKey: .features) }
    }
}
