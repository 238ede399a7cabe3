// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract

/// A snapshot of `org.guidedaccess.GuidedAccess1`'s properties.
public struct GuidedAccessStatus: Sendable, Hashable {
    /// Interface version.
    public var version: UInt32
    /// A session is active.
    public var isEnabled: Bool
    /// `inactive`, `active` or `expired`.
    public var state: String
    /// The locked app's id, "" when inactive.
    public var app: String
    /// Microseconds since the epoch, 0 when inactive.
    public var startedAt: UInt64
    /// Seconds, 0 for none.
    public var timeLimit: UInt64
    /// Seconds left.
    public var timeRemaining: UInt64
    /// Built-in restriction name → `allow`/`deny`.
    public var systemRestrictions: [String: String]
    /// Built-in restriction name → where it is enforced: `shell:NAME` for each
    /// registered enforcer, then `gsettings:SCHEMA/KEY` entries, joined by
    /// commas; `published` when nothing enforces it yet.
    public var systemRestrictionSources: [String: String]
    /// Shells enforcing the session on screen: name → what each enforces.
    public var enforcers: [String: [String]]
    /// Regions where input is ignored.
    public var disabledRegions: [GuidedAccessRegion]
    /// A passcode is configured.
    public var isPasscodeSet: Bool
    /// Apps that may lock themselves.
    public var allowedApplications: [String]
    /// How the enforcer shows the app's windows: `as-is`, `maximized`, `fullscreen`.
    public var presentation: String
    /// Seconds before the screen blanks during the session, 0 = never, -1 = the desktop's own.
    public var autoLock: Int64
    /// How the session came to be: `guided`, `autonomous`, `single-app`, `assessment`; "" when inactive.
    public var mode: String
    /// Apps besides ``app`` the person may reach.
    public var alsoAllowed: [String]
    /// Features the person may switch during the session; without one,
    /// those a session started without its own list would offer.
    public var accessibilityShortcut: [String]
    /// What the running assessment allows; nil unless ``mode`` is `assessment`.
    public var assessment: AssessmentConfiguration?

    init(_ properties: [String: Variant]) {
        let session = Contract.Session.self
        version = session.version.value(in: properties) ?? 0
        isEnabled = session.enabled.value(in: properties) ?? false
        state = session.state.value(in: properties) ?? ""
        app = session.app.value(in: properties) ?? ""
        startedAt = session.startedAt.value(in: properties) ?? 0
        timeLimit = session.timeLimit.value(in: properties) ?? 0
        timeRemaining = session.timeRemaining.value(in: properties) ?? 0
        systemRestrictions = session.systemRestrictions.value(in: properties) ?? [:]
        systemRestrictionSources = session.systemRestrictionSources.value(in: properties) ?? [:]
        enforcers = session.enforcers.value(in: properties) ?? [:]
        disabledRegions = (session.disabledRegions.value(in: properties) ?? []).map(GuidedAccessRegion.init)
        isPasscodeSet = session.passcodeSet.value(in: properties) ?? false
        allowedApplications = session.allowedApplications.value(in: properties) ?? []
        presentation = session.presentation.value(in: properties) ?? Presentation.asIs.rawValue
        autoLock = session.autoLock.value(in: properties) ?? AutoLock.desktop
        mode = session.mode.value(in: properties) ?? ""
        alsoAllowed = session.alsoAllowed.value(in: properties) ?? []
        accessibilityShortcut = session.accessibilityShortcut.value(in: properties) ?? []
        assessment = AssessmentConfiguration(session.assessment.value(in: properties) ?? [:])
    }
}
