// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessCore
@testable import GuidedAccessService
import Testing

/// The core's errors and session properties under their names on the bus.
/// Spelled out here on purpose: an independent check of the names on the wire.
@Suite("The core's words on the bus")
struct BusMappingTests {
    @Test func errorNamesMatchTheContract() {
        let names = [
            DomainError.permissionDenied(""), .failed(""), .invalidArgument(""), .notActive(""),
            .alreadyActive(""), .notOwner(""), .quotaExceeded(""), .passcodeBackOff(seconds: 1),
            .unknownFeature(""),
        ].map(\.dbusError.name.rawValue)
        #expect(names == [
            "PermissionDenied", "Failed", "InvalidArgument", "NotActive", "AlreadyActive", "NotOwner",
            "QuotaExceeded", "RateLimited", "UnknownFeature",
        ].map { "org.guidedaccess.Error." + $0 })
    }

    @Test func sessionPropertiesUnderTheirNames() {
        #expect(SessionProperty.allCases.map(\.memberName.rawValue) == [
            "Enabled", "State", "App", "StartedAt", "TimeLimit", "SystemRestrictions", "DisabledRegions",
            "PasscodeSet", "AllowedApplications", "Presentation", "AutoLock", "Mode", "AlsoAllowed", "AccessibilityShortcut", "Assessment",
        ])
    }
}
