// SPDX-License-Identifier: LGPL-2.1-or-later
// The states and polkit action ids of the contract.

/// Whether a restriction lets the person do the thing (`allow`) or not (`deny`).
public enum RestrictionState: String, Codable, Sendable, CaseIterable {
    /// The default: the app behaves normally.
    case allow
    /// The app must not offer the restricted thing while a session is active.
    case deny
}

/// Where a session is in its life.
public enum SessionState: String, Codable, Sendable, CaseIterable {
    /// No session: the machine is unlocked.
    case inactive
    /// Locked to one app.
    case active
    /// The time limit ran out; still locked until someone ends the session.
    case expired
}

/// The polkit actions that guard admin requests; raw values are the action ids
/// in `polkit/org.guidedaccess.policy`.
public enum AdminAction: String, Codable, Sendable, CaseIterable {
    /// Start a session (`Start`).
    case startSession = "org.guidedaccess.start-session"
    /// End a session or loosen a running one (`End`, `ExtendTimeLimit`).
    case endSession = "org.guidedaccess.end-session"
    /// Let a non-allow-listed app lock itself (`RequestSession`).
    case requestSession = "org.guidedaccess.request-session"
    /// Set the session passcode (`SetPasscode`).
    case setPasscode = "org.guidedaccess.set-passcode"
    /// Switch accessibility features (`SetFeature`).
    case configureFeatures = "org.guidedaccess.configure-features"
    /// Set custom restriction states (`SetState`, `Reset`).
    case configureRestrictions = "org.guidedaccess.configure-restrictions"
}

/// How a session came to be (`Mode`): the four single-app modes of
/// DESIGN.md. Decides who may end it.
public enum SessionMode: String, Codable, Sendable, CaseIterable {
    /// A person started it (`Start`): the passcode or end-session authority ends it.
    case guided
    /// An app locked itself (`RequestSession`): that app, the passcode or end-session authority ends it.
    case autonomous
    /// The administrator's `SingleAppMode` in managed.json: only a change of that file ends it.
    case singleApp = "single-app"
    /// An exam app's assessment (`BeginAssessment`).
    case assessment
}

/// The keys of `Start`'s options, written once: the D-Bus contract declares
/// each with its type, and `managed.json`'s `SingleAppMode` takes the same
/// keys for the session it starts.
public enum StartOptionName: String, CaseIterable, Sendable {
    case timeLimit = "time-limit"
    case systemRestrictions = "system-restrictions"
    case disabledRegions = "disabled-regions"
    case restrictions
    case presentation
    case autoLock = "auto-lock"
    case alsoAllowed = "also-allowed"
    case accessibilityShortcut = "accessibility-shortcut"
    case features
    case interactive
}

/// The keys of `BeginAssessment`'s configuration (Apple's
/// `AEAssessmentConfiguration`), written once: the contract declares each
/// with its type, and the `Assessment` property answers under the same keys.
public enum AssessmentOptionName: String, CaseIterable, Sendable {
    /// Other apps the test-taker may use (a calculator): as `also-allowed`.
    case participants
    /// Screenshots, screencasts and remote desktop stay possible.
    case allowsScreenCapture = "allows-screen-capture"
    /// The clipboard is neither cleared nor kept from the assessment's apps.
    case allowsClipboard = "allows-clipboard"
    /// Notifications are shown.
    case allowsNotifications = "allows-notifications"
    /// Speak Screen and Speak Selection may be turned on.
    case allowsAccessibilitySpeech = "allows-accessibility-speech"
    /// Speech features the person had on before keep working (Apple's rule; default true).
    case keepAccessibility = "keep-accessibility"
    /// The desktop's spelling and emoji suggestions stay on.
    case allowsSpellCheck = "allows-spell-check"
    /// Seconds until the assessment's session expires, 0 for none.
    case timeLimit = "time-limit"
}
