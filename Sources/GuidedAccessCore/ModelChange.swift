// SPDX-License-Identifier: LGPL-2.1-or-later
/// Something observable that a model call changed, for the service to turn
/// into signals. Only real changes are reported: setting a value to what it
/// already was reports nothing.
public enum ModelChange: Sendable, Equatable {
    /// A session started (`true`) or ended (`false`).
    case statusChanged(enabled: Bool)
    /// These session properties have new values; re-read them through the getters.
    case sessionPropertiesChanged([SessionProperty])
    /// An identifier became known (registered, pre-set or forced): export its object.
    case restrictionAdded(identifier: String)
    /// An identifier is no longer known (a pre-set state was reset): remove its object.
    case restrictionRemoved(identifier: String)
    /// Text, detail, app or registered flag of a restriction changed.
    case restrictionRecordChanged(identifier: String)
    /// The effective state of a restriction changed.
    case restrictionChanged(identifier: String, state: RestrictionState)
    /// A feature's value changed.
    case featureChanged(Feature, Bool)
    /// This many seconds are left before the time limit.
    case timeLimitWarning(secondsLeft: UInt64)
    /// The time limit was reached; the session is now `expired`.
    case timeExpired
    /// An assessment began (Apple's `assessmentSessionDidBegin`).
    case assessmentBegan
    /// The assessment ended (`assessmentSessionDidEnd`).
    case assessmentEnded
    /// Something broke the assessment's promises (`wasInterrupted`); the lock stays.
    case assessmentInterrupted(reason: String)
}

/// What the model shows about the session, each read through its own
/// getter; ``ModelChange/sessionPropertiesChanged(_:)`` names those a call
/// changed, and the service publishes each under its name on the bus.
public enum SessionProperty: Sendable, CaseIterable {
    /// Whether the machine is locked (``GuidedAccessModel/enabled``).
    case enabled
    /// ``SessionState``.
    case state
    /// The locked app.
    case app
    /// When the session started.
    case startedAt
    /// The session's length.
    case timeLimit
    /// The built-in restrictions' states.
    case systemRestrictions
    /// Where input is ignored.
    case disabledRegions
    /// Whether a passcode is set.
    case passcodeSet
    /// The apps that may lock themselves, from managed config.
    case allowedApplications
    /// How the locked app is shown.
    case presentation
    /// When the screen blanks.
    case autoLock
    /// How the session came to be.
    case mode
    /// The other apps the person may reach.
    case alsoAllowed
    /// The features the person may switch.
    case accessibilityShortcut
    /// What the running assessment allows.
    case assessment
}
