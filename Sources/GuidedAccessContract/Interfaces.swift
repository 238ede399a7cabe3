// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit

/// Every member of the service's interfaces, and every option its methods
/// take, declared once. The daemon implements these declarations and the
/// client library calls through them, so a changed argument or option type
/// fails to compile on both sides; `dbus/*.xml` is generated from what the
/// daemon serves (`scripts/generate-interfaces`). Option keys are not in
/// the XML: the tests that send them spelled out are their check.
public enum Contract {
    /// `org.guidedaccess.GuidedAccess1` on the service object: the session.
    public enum Session {
        static let name = ServiceInterface.session.name

        public static let version = PropertyDeclaration<UInt32>(name, "Version", changes: .const)
        public static let enabled = PropertyDeclaration<Bool>(name, "Enabled")
        public static let state = PropertyDeclaration<String>(name, "State")
        public static let app = PropertyDeclaration<String>(name, "App")
        public static let startedAt = PropertyDeclaration<UInt64>(name, "StartedAt")
        public static let timeLimit = PropertyDeclaration<UInt64>(name, "TimeLimit")
        /// Computed on every read, so never signalled.
        public static let timeRemaining = PropertyDeclaration<UInt64>(name, "TimeRemaining", changes: .none)
        public static let systemRestrictions = PropertyDeclaration<[String: String]>(name, "SystemRestrictions")
        /// The desktop backend's keys, and the enforcers registered now.
        public static let systemRestrictionSources = PropertyDeclaration<[String: String]>(name, "SystemRestrictionSources")
        /// Enforcer name → what it enforces.
        public static let enforcers = PropertyDeclaration<[String: [String]]>(name, "Enforcers")
        public static let disabledRegions = PropertyDeclaration<[WireRegion]>(name, "DisabledRegions")
        public static let passcodeSet = PropertyDeclaration<Bool>(name, "PasscodeSet")
        public static let allowedApplications = PropertyDeclaration<[String]>(name, "AllowedApplications")
        /// A ``Presentation`` raw value; `as-is` without a session.
        public static let presentation = PropertyDeclaration<String>(name, "Presentation")
        /// Seconds before the screen blanks during the session, 0 = never; -1 (``AutoLock/desktop``) without a session.
        public static let autoLock = PropertyDeclaration<Int64>(name, "AutoLock")
        /// A ``SessionMode`` raw value; `""` without a session.
        public static let mode = PropertyDeclaration<String>(name, "Mode")
        /// Apps besides `App` the person may reach during the session.
        public static let alsoAllowed = PropertyDeclaration<[String]>(name, "AlsoAllowed")
        /// Features the person may switch during the session from the enforcer's accessibility menu;
        /// without one, what a `Start` without its own list would offer.
        public static let accessibilityShortcut = PropertyDeclaration<[String]>(name, "AccessibilityShortcut")
        /// What the running assessment allows, keyed as ``AssessmentOptions``; `{}` without one.
        public static let assessment = PropertyDeclaration<[String: Variant]>(name, "Assessment")

        public static let start = MethodDeclaration<String, [String: Variant], Void>(name, "Start", in: ["app", "options"])
        public static let end = MethodDeclaration<[String: Variant], Void>(name, "End", in: ["options"])
        public static let requestSession = MethodDeclaration<Bool, [String: Variant], Bool>(
            name, "RequestSession", in: ["enable", "options"], out: "granted")
        public static let setPasscode = MethodDeclaration<String, Void>(name, "SetPasscode", in: ["passcode"])
        public static let extendTimeLimit = MethodDeclaration<UInt64, Void>(name, "ExtendTimeLimit", in: ["seconds"])
        public static let getAppIds = MethodDeclaration<UInt32, [String]>(name, "GetAppIds", in: ["pid"], out: "ids")
        public static let registerEnforcer = MethodDeclaration<String, [String], Void>(
            name, "RegisterEnforcer", in: ["name", "restrictions"])
        /// An enforcer that cannot start programs (KWin's scripts) has the
        /// session's app launched again after it went away.
        public static let launchApp = MethodDeclaration<Void>(name, "LaunchApp")
        /// The options of the last `Start` for an app, keyed as ``StartOptions``; `{}` when none.
        /// The person switches a feature of `AccessibilityShortcut` during a
        /// session, through an enforcer or the locked app; put back at the end.
        public static let toggleAccessibilityFeature = MethodDeclaration<String, Bool, Void>(
            name, "ToggleAccessibilityFeature", in: ["feature", "enabled"])
        /// An exam app listed in managed.json's `AssessmentApplications` locks the desktop to itself.
        public static let beginAssessment = MethodDeclaration<[String: Variant], Void>(
            name, "BeginAssessment", in: ["configuration"])
        /// The assessment's own app ends it.
        public static let endAssessment = MethodDeclaration<Void>(name, "EndAssessment")
        public static let getLastOptions = MethodDeclaration<String, [String: Variant]>(
            name, "GetLastOptions", in: ["app"], out: "options")

        public static let statusChanged = SignalDeclaration<Bool>(name, "StatusChanged", ["enabled"])
        public static let timeLimitWarning = SignalDeclaration<UInt64>(name, "TimeLimitWarning", ["seconds_left"])
        public static let timeExpired = SignalDeclaration< >(name, "TimeExpired")
        public static let assessmentBegan = SignalDeclaration< >(name, "AssessmentBegan")
        public static let assessmentEnded = SignalDeclaration< >(name, "AssessmentEnded")
        /// Why: the app must stop showing its content; the lock stays.
        public static let assessmentInterrupted = SignalDeclaration<String>(name, "AssessmentInterrupted", ["reason"])

        /// `Start` and `End`: polkit may ask the person to authenticate.
        public static let interactive = OptionDeclaration<Bool>(StartOptionName.interactive.rawValue)

        /// The options `Start` takes; `GetLastOptions` answers with all of them but `interactive`.
        public enum StartOptions {
            /// Seconds until the session expires, 0 for none.
            public static let timeLimit = OptionDeclaration<UInt64>(StartOptionName.timeLimit.rawValue)
            /// System restriction name → `allow`/`deny`.
            public static let systemRestrictions = OptionDeclaration<[String: String]>(StartOptionName.systemRestrictions.rawValue)
            /// Regions where input is ignored.
            public static let disabledRegions = OptionDeclaration<[WireRegion]>(StartOptionName.disabledRegions.rawValue)
            /// Custom restriction identifier → `allow`/`deny`, for the session.
            public static let restrictions = OptionDeclaration<[String: String]>(StartOptionName.restrictions.rawValue)
            /// A ``Presentation`` raw value.
            public static let presentation = OptionDeclaration<String>(StartOptionName.presentation.rawValue)
            /// Seconds of inactivity before the screen blanks; see ``AutoLock``.
            public static let autoLock = OptionDeclaration<Int64>(StartOptionName.autoLock.rawValue)
            /// Other apps the person may reach during the session.
            public static let alsoAllowed = OptionDeclaration<[String]>(StartOptionName.alsoAllowed.rawValue)
            /// Feature names the person may switch during the session.
            public static let accessibilityShortcut = OptionDeclaration<[String]>(StartOptionName.accessibilityShortcut.rawValue)
            /// Feature name → value for the session, put back at its end.
            public static let features = OptionDeclaration<[String: Bool]>(StartOptionName.features.rawValue)
            /// Polkit may ask the person to authenticate.
            public static let interactive = Session.interactive
            /// Every option `Start` accepts.
            public static let all: [any OptionKey] = [
                timeLimit, systemRestrictions, disabledRegions, restrictions, presentation, autoLock, alsoAllowed,
                accessibilityShortcut, features, interactive,
            ]
        }

        /// The options `End` takes.
        public enum EndOptions {
            /// The session passcode: the right one is authority enough.
            public static let passcode = OptionDeclaration<String>("passcode")
            /// Polkit may ask the person to authenticate.
            public static let interactive = Session.interactive
            /// Every option `End` accepts.
            public static let all: [any OptionKey] = [passcode, interactive]
        }

        /// The configuration `BeginAssessment` takes (Apple's `AEAssessmentConfiguration`).
        public enum AssessmentOptions {
            public static let participants = OptionDeclaration<[String]>(AssessmentOptionName.participants.rawValue)
            public static let allowsScreenCapture = OptionDeclaration<Bool>(AssessmentOptionName.allowsScreenCapture.rawValue)
            public static let allowsClipboard = OptionDeclaration<Bool>(AssessmentOptionName.allowsClipboard.rawValue)
            public static let allowsNotifications = OptionDeclaration<Bool>(AssessmentOptionName.allowsNotifications.rawValue)
            public static let allowsAccessibilitySpeech = OptionDeclaration<Bool>(AssessmentOptionName.allowsAccessibilitySpeech.rawValue)
            public static let keepAccessibility = OptionDeclaration<Bool>(AssessmentOptionName.keepAccessibility.rawValue)
            public static let allowsSpellCheck = OptionDeclaration<Bool>(AssessmentOptionName.allowsSpellCheck.rawValue)
            public static let timeLimit = OptionDeclaration<UInt64>(AssessmentOptionName.timeLimit.rawValue)
            /// Every key `BeginAssessment` accepts.
            public static let all: [any OptionKey] = [
                participants, allowsScreenCapture, allowsClipboard, allowsNotifications, allowsAccessibilitySpeech,
                keepAccessibility, allowsSpellCheck, timeLimit,
            ]
        }

        /// The options `RequestSession` takes.
        public enum RequestSessionOptions {
            /// Why the app asks, for the audit log.
            public static let reason = OptionDeclaration<String>("reason")
            /// Every option `RequestSession` accepts: its own and `Start`'s
            /// that shape the session (not `interactive`: an app's lock asks nobody).
            public static let all: [any OptionKey] = [reason] + StartOptions.all.filter { $0.key != StartOptions.interactive.key }
        }
    }

    /// `org.guidedaccess.Features1` on the service object.
    public enum Features {
        static let name = ServiceInterface.features.name

        /// One `b` property per feature, named after the feature.
        public static func enabled(_ feature: AccessibilityFeature) -> PropertyDeclaration<Bool> {
            PropertyDeclaration(name, checked(feature.name, MemberName.init(validating:)))
        }
        /// Where each feature's value lives on this desktop (e.g. a GSettings key).
        public static let sources = PropertyDeclaration<[String: String]>(name, "Sources")
        /// Features nobody can switch, and who holds each: `managed` (the
        /// administrator's `LockedFeatures` in managed.json) or `desktop`
        /// (the desktop's settings store will not write it: a dconf lock).
        public static let locked = PropertyDeclaration<[String: String]>(name, "Locked")

        public static let setFeature = MethodDeclaration<String, Bool, Void>(name, "SetFeature", in: ["feature", "enabled"])
        public static let configureForGuidedAccess = MethodDeclaration<[String], Bool, Void>(
            name, "ConfigureForGuidedAccess", in: ["features", "enabled"])
    }

    /// `org.guidedaccess.Restrictions1` on the service object.
    public enum Restrictions {
        static let name = ServiceInterface.restrictions.name

        public static let register = MethodDeclaration<[RestrictionEntry], [ObjectPath]>(
            name, "Register", in: ["restrictions"], out: "objects")
        public static let unregister = MethodDeclaration<[String], Void>(name, "Unregister", in: ["identifiers"])
        public static let getState = MethodDeclaration<String, String>(name, "GetState", in: ["identifier"], out: "state")
        public static let isAllowed = MethodDeclaration<String, Bool>(name, "IsAllowed", in: ["identifier"], out: "allowed")
        public static let setState = MethodDeclaration<String, String, Void>(name, "SetState", in: ["identifier", "state"])
        public static let reset = MethodDeclaration<[String], Void>(name, "Reset", in: ["identifiers"])
        public static let list = MethodDeclaration<[RestrictionRow]>(name, "List", out: "restrictions")
        /// Identifiers whose state the administrator fixes in managed.json.
        public static let forced = PropertyDeclaration<[String]>(name, "Forced")

        public static let restrictionChanged = SignalDeclaration<String, String>(
            name, "RestrictionChanged", ["identifier", "state"])
    }

    /// `org.guidedaccess.Restriction1` on each `/restriction/<identifier>` object.
    public enum Restriction {
        static let name = ServiceInterface.restriction.name

        public static let identifier = PropertyDeclaration<String>(name, "Identifier", changes: .const)
        public static let text = PropertyDeclaration<String>(name, "Text")
        public static let detailText = PropertyDeclaration<String>(name, "DetailText")
        public static let state = PropertyDeclaration<String>(name, "State")
        public static let app = PropertyDeclaration<String>(name, "App")
        public static let registered = PropertyDeclaration<Bool>(name, "Registered")
    }
}
