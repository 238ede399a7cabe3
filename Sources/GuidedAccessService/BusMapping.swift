// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import GuidedAccessCore

// The core's words put into the bus's names: the only place that knows both.
// Each switch is exhaustive, so a new error or session property in the core
// does not compile until it has its name in the contract.

extension DomainError: DBusErrorConvertible {
    /// Travels under its name in the contract's error table, with its message.
    public var dbusError: DBusError { DBusError(kind.dbusName, message) }
}

extension SessionProperty {
    /// The property of `org.guidedaccess.GuidedAccess1` that shows it.
    var memberName: MemberName {
        let session = Contract.Session.self
        return switch self {
        case .enabled: session.enabled.name
        case .state: session.state.name
        case .app: session.app.name
        case .startedAt: session.startedAt.name
        case .timeLimit: session.timeLimit.name
        case .systemRestrictions: session.systemRestrictions.name
        case .disabledRegions: session.disabledRegions.name
        case .passcodeSet: session.passcodeSet.name
        case .allowedApplications: session.allowedApplications.name
        case .presentation: session.presentation.name
        case .autoLock: session.autoLock.name
        case .mode: session.mode.name
        case .alsoAllowed: session.alsoAllowed.name
        case .accessibilityShortcut: session.accessibilityShortcut.name
        case .assessment: session.assessment.name
        }
    }
}
