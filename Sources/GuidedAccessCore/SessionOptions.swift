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

    /// The defaults: what a `Start` without options gives, and what an app
    /// that locks itself gets.
    public init() {}

    /// Parses and checks options as they arrive, names and states as text:
    /// throws `invalidArgument` naming the first bad one.
    public init(
        timeLimit: UInt64 = 0, systemRestrictions: [String: String] = [:], disabledRegions: [Region] = [],
        restrictions: [String: String] = [:], presentation: Presentation = .asIs, autoLock: Int64 = AutoLock.desktop
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
    }
}
