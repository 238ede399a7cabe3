// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit

/// Every member of the service's interfaces, declared once. The daemon
/// implements these declarations and the client library calls through them,
/// so a changed argument fails to compile on both sides; `dbus/*.xml` is
/// generated from what the daemon serves (`scripts/generate-interfaces`).
public enum Contract {
    /// `org.guidedaccess.GuidedAccess1` on the service object: the session.
    public enum Session {
        static let name = ServiceInterface.session.name

        public static let version = PropertyDeclaration<UInt32>(name, "Version", changes: .const)
        public static let enabled = property(.enabled, Bool.self)
        public static let state = property(.state, String.self)
        public static let app = property(.app, String.self)
        public static let startedAt = property(.startedAt, UInt64.self)
        public static let timeLimit = property(.timeLimit, UInt64.self)
        /// Computed on every read, so never signalled.
        public static let timeRemaining = PropertyDeclaration<UInt64>(name, "TimeRemaining", changes: .none)
        public static let systemRestrictions = property(.systemRestrictions, [String: String].self)
        /// The desktop backend's keys, and the enforcers registered now.
        public static let systemRestrictionSources = PropertyDeclaration<[String: String]>(name, "SystemRestrictionSources")
        /// Enforcer name → what it enforces.
        public static let enforcers = PropertyDeclaration<[String: [String]]>(name, "Enforcers")
        public static let disabledRegions = property(.disabledRegions, [WireRegion].self)
        public static let passcodeSet = property(.passcodeSet, Bool.self)
        public static let allowedApplications = property(.allowedApplications, [String].self)
        /// A ``Presentation`` raw value; `as-is` without a session.
        public static let presentation = property(.presentation, String.self)
        /// Seconds before the screen blanks during the session, 0 = never; -1 (``AutoLock/desktop``) without a session.
        public static let autoLock = property(.autoLock, Int64.self)

        public static let start = MethodDeclaration<String, [String: Variant], Void>(name, "Start", in: ["app", "options"])
        public static let end = MethodDeclaration<[String: Variant], Void>(name, "End", in: ["options"])
        public static let requestSession = MethodDeclaration<Bool, [String: Variant], Bool>(
            name, "RequestSession", in: ["enable", "options"], out: "granted")
        public static let setPasscode = MethodDeclaration<String, Void>(name, "SetPasscode", in: ["passcode"])
        public static let extendTimeLimit = MethodDeclaration<UInt64, Void>(name, "ExtendTimeLimit", in: ["seconds"])
        public static let getAppIds = MethodDeclaration<UInt32, [String]>(name, "GetAppIds", in: ["pid"], out: "ids")
        public static let registerEnforcer = MethodDeclaration<String, [String], Void>(
            name, "RegisterEnforcer", in: ["name", "restrictions"])
        /// The options of the last `Start` for an app, keyed by ``StartOption``; `{}` when none.
        public static let getLastOptions = MethodDeclaration<String, [String: Variant]>(
            name, "GetLastOptions", in: ["app"], out: "options")

        public static let statusChanged = SignalDeclaration<Bool>(name, "StatusChanged", ["enabled"])
        public static let timeLimitWarning = SignalDeclaration<UInt64>(name, "TimeLimitWarning", ["seconds_left"])
        public static let timeExpired = SignalDeclaration< >(name, "TimeExpired")

        /// The D-Bus type of each `Start` option (and of each `GetLastOptions` entry).
        public static func signature(of option: StartOption) -> Signature {
            switch option {
            case .timeLimit: UInt64.dbusSignature
            case .systemRestrictions, .restrictions: [String: String].dbusSignature
            case .disabledRegions: [WireRegion].dbusSignature
            case .presentation: String.dbusSignature
            case .autoLock: Int64.dbusSignature
            case .interactive: Bool.dbusSignature
            }
        }

        /// The member name of a session property the model reports changed.
        public static func name(of property: SessionProperty) -> MemberName { memberName(property.propertyName) }

        private static func property<T: DBusType>(_ property: SessionProperty, _: T.Type) -> PropertyDeclaration<T> {
            PropertyDeclaration(name, name(of: property))
        }
    }

    /// `org.guidedaccess.Features1` on the service object.
    public enum Features {
        static let name = ServiceInterface.features.name

        /// One `b` property per feature, named by its raw value.
        public static func enabled(_ feature: AccessibilityFeature) -> PropertyDeclaration<Bool> {
            PropertyDeclaration(name, memberName(feature.propertyName))
        }
        /// Where each feature's value lives on this desktop (e.g. a GSettings key).
        public static let sources = PropertyDeclaration<[String: String]>(name, "Sources")

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

private func memberName(_ raw: String) -> MemberName { checked(raw, MemberName.init(validating:)) }
