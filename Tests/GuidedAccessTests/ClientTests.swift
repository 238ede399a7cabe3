// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The library against the real daemon on a private bus.
@Suite("GuidedAccessClient")
struct ClientTests {
    static let purchase = "org.example.test.purchase"
    static let export = "org.example.test.export-nodetail"

    @Test("without a service: defaults, false, .failed, no throw from registration",
          .enabled(if: ProcessRunner.findExecutable(named: "dbus-daemon") != nil, "needs dbus-daemon"))
    func serviceAbsent() async throws {
        let bus = try PrivateBus.startSession()
        defer { bus.stop() }
        let client = GuidedAccessClient(address: bus.address)
        try await client.setRestrictionDelegate(RecordingDelegate([Self.purchase]))
        await client.refresh()
        #expect(!client.isServiceRunning)
        #expect(!client.isGuidedAccessEnabled)
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .allow)
        #expect(AccessibilityFeature.allCases.allSatisfy { !client.isEnabled($0) })
        #expect(!client.isVoiceOverRunning && !client.isReduceMotionEnabled)
        #expect(await client.requestGuidedAccessSession(enabled: true) == false)
        await #expect(throws: GuidedAccessError.self) {
            try await client.configureForGuidedAccess(features: .zoom, enabled: true)
        }
        do {
            try await client.configureForGuidedAccess(features: [.zoom, .invertColors], enabled: true)
        } catch let error as GuidedAccessError {
            #expect(error.code == .failed)
        }
    }

    @Test("an unreachable bus is not an error either")
    func busUnreachable() async {
        let client = GuidedAccessClient(address: "unix:path=/nonexistent/bus")
        await client.refresh()
        #expect(!client.isGuidedAccessEnabled)
        #expect(await client.requestGuidedAccessSession(enabled: true) == false)
    }

    @Test("requestGuidedAccessSession: allow-listed app locks and unlocks itself; configureForGuidedAccess works while locked",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func requestSessionAllowListed() async throws {
        let fixture = try await ServiceFixture.start(polkit: false, allowedApplications: [Binaries.selfExecutable])
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        await client.refresh()
        #expect(client.isServiceRunning)
        #expect(!client.isGuidedAccessEnabled)
        let statuses = client.statusChanges
        let zoom = client.changes(of: .zoom)

        #expect(await client.requestGuidedAccessSession(enabled: true), "daemon log:\n\(fixture.daemonLog())")
        #expect(await next(statuses) == true)
        #expect(client.isGuidedAccessEnabled)
        let status = try await fixture.admin().status()
        #expect(status.app == Binaries.selfExecutable)

        try await client.configureForGuidedAccess(features: .zoom, enabled: true)
        #expect(await next(zoom) == true)
        #expect(client.isZoomEnabled)

        #expect(await client.requestGuidedAccessSession(enabled: false))
        #expect(await next(statuses) == false)
        #expect(!client.isGuidedAccessEnabled)
    }

    @Test("requestGuidedAccessSession is false for an app that is not allow-listed (polkit unreachable); configure without a session is .failed",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func requestSessionRefused() async throws {
        let fixture = try await ServiceFixture.start(polkit: false, allowedApplications: ["/usr/bin/some-other-app"])
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        #expect(await client.requestGuidedAccessSession(enabled: true) == false)
        #expect(!client.isGuidedAccessEnabled)
        do {
            try await client.configureForGuidedAccess(features: [.voiceOver, .grayscaleDisplay], enabled: true)
            Issue.record("configureForGuidedAccess succeeded without a session")
        } catch let error as GuidedAccessError {
            #expect(error.code == .failed)
            #expect(error.serviceErrorName?.hasPrefix("org.guidedaccess.Error.") == true)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a registration over the per-connection cap fails whole, and the app can switch on .quotaExceeded",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func tooManyRestrictionsIsQuotaExceeded() async throws {
        let fixture = try await ServiceFixture.start(polkit: false)
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        let identifiers = (0..<257).map { "org.example.many.r\($0)" }
        do {
            try await client.setRestrictionDelegate(RecordingDelegate(identifiers))
            Issue.record("257 restrictions were registered on one connection")
        } catch let error as GuidedAccessError {
            #expect(error.serviceError == .quotaExceeded, "\(error.serviceErrorName ?? ""): \(error.message)")
            #expect(error.serviceErrorName == ServiceErrorName.quotaExceeded.rawValue)
            #expect(error.code == .failed)
            #expect(error.message.contains("256"))
        }
        let admin = try fixture.admin()
        defer { admin.close() }
        #expect(try await admin.restrictions().isEmpty, "Register is all or nothing")
    }

    @Test("delegate registration, didChange after SetState from another connection, state query, feature streams",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func restrictionsAndFeatures() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        let delegate = RecordingDelegate([Self.purchase, Self.export])
        try await client.setRestrictionDelegate(delegate)
        #expect(client.restrictionDelegate === delegate)

        let admin = try fixture.admin()
        defer { admin.close() }
        let listed = try await admin.restrictions()
        let purchase = try #require(listed.first { $0.identifier == Self.purchase })
        #expect(purchase.text == "Text for \(Self.purchase)")
        #expect(purchase.detailText == "Detail for \(Self.purchase)")
        #expect(purchase.isRegistered)
        #expect(purchase.app == Binaries.selfExecutable)
        #expect(listed.first { $0.identifier == Self.export }?.detailText == "")
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .allow)

        let anyChange = client.restrictionChanges
        try await admin.setRestriction(Self.purchase, to: .deny)
        #expect(await next(delegate.changes) == GuidedAccessRestrictionChange(identifier: Self.purchase, state: .deny))
        #expect(await next(anyChange) == GuidedAccessRestrictionChange(identifier: Self.purchase, state: .deny))
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .deny)
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.export) == .allow)
        #expect(client.guidedAccessRestrictionState(forIdentifier: "org.example.never.declared") == .allow)

        try await admin.setRestriction(Self.purchase, to: .allow)
        #expect(await next(delegate.changes)?.state == .allow)

        let reduceMotion = client.changes(of: .reduceMotion)
        try await admin.setFeature(.reduceMotion, enabled: true)
        #expect(await next(reduceMotion) == true)
        #expect(client.isReduceMotionEnabled)
        #expect(!client.isBoldTextEnabled)
        try await admin.setFeature(.reduceMotion, enabled: false)
        #expect(await next(reduceMotion) == false)

        // A second client sees the feature state it was started with.
        try await admin.setFeature(.invertColors, enabled: true)
        let late = GuidedAccessClient(address: fixture.address)
        await late.refresh()
        #expect(late.isInvertColorsEnabled)

        // Replacing the delegate unregisters what it no longer declares.
        let smaller = RecordingDelegate([Self.export])
        try await client.setRestrictionDelegate(smaller)
        let after = try await admin.restrictions()
        #expect(after.first { $0.identifier == Self.purchase }?.isRegistered == false)
        #expect(after.first { $0.identifier == Self.export }?.isRegistered == true)
    }

    @Test("status stream follows Start and End by an administrator",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func statusStream() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        await client.refresh()
        let statuses = client.statusChanges
        let admin = try fixture.admin()
        defer { admin.close() }
        try await admin.start(app: "/usr/bin/other-app", options: .init(timeLimit: 600, systemRestrictions: ["touch": .deny]))
        #expect(await next(statuses) == true)
        #expect(client.isGuidedAccessEnabled)
        // Another app holds the session: this one may not take it.
        #expect(await client.requestGuidedAccessSession(enabled: true) == false)
        try await admin.end()
        #expect(await next(statuses) == false)
    }

    @Test("GuidedAccessAdmin: start with presentation and auto-lock, status shows them, lastOptions gives the Start back",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func lastOptionsRoundTrip() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let admin = try fixture.admin()
        defer { admin.close() }
        #expect(try await admin.lastOptions(for: "/usr/bin/kiosk") == nil)
        let options = GuidedAccessSessionOptions(
            timeLimit: 600, systemRestrictions: ["touch": .deny], disabledRegions: [.init(x: 1, y: 2, width: 3, height: 4)],
            restrictions: ["org.example.kiosk.buy": .deny, "org.example.kiosk.print": .allow],
            presentation: .maximized, autoLock: 300)
        try await admin.start(app: "/usr/bin/kiosk", options: options)
        let status = try await admin.status()
        #expect(status.presentation == "maximized" && status.autoLock == 300)
        try await admin.end()
        #expect(try await admin.status().presentation == "as-is")
        #expect(try await admin.status().autoLock == AutoLock.desktop)

        var expected = options
        for restriction in GuidedAccessSystemRestriction.allCases where restriction != .touch {
            expected.systemRestrictions[restriction.rawValue] = .allow
        }
        #expect(try await admin.lastOptions(for: "/usr/bin/kiosk") == expected)
        // What came back starts the same session again.
        try await admin.start(app: "/usr/bin/kiosk", options: try #require(try await admin.lastOptions(for: "/usr/bin/kiosk")))
        #expect(try await admin.lastOptions(for: "/usr/bin/kiosk") == expected)
        #expect(try await admin.status().presentation == "maximized")
    }

    @Test("configureForGuidedAccess is .permissionDenied for an app that is neither locked nor admin",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func configurePermissionDenied() async throws {
        // Root is always authorized by polkit, so: start the session for another
        // app as admin, then restart the daemon without polkit (the session
        // survives the restart) and ask again.
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let admin = try fixture.admin()
        defer { admin.close() }
        try await admin.start(app: "/usr/bin/other-app")
        fixture.stopDaemon()
        try await fixture.startDaemonWithoutPolkit()
        let client = GuidedAccessClient(address: fixture.address)
        await client.refresh()
        #expect(client.isGuidedAccessEnabled, "the session must survive a restart")
        do {
            try await client.configureForGuidedAccess(features: .zoom, enabled: true)
            Issue.record("configureForGuidedAccess succeeded for an app that is not locked")
        } catch let error as GuidedAccessError {
            #expect(error.code == .permissionDenied, "\(error.serviceErrorName ?? ""): \(error.message)")
        }
    }

    @Test("the client survives SIGKILL and restart: it re-registers, a denied restriction stays denied, changes made meanwhile arrive",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func survivesDaemonRestart() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        let delegate = RecordingDelegate([Self.purchase, Self.export])
        try await client.setRestrictionDelegate(delegate)
        do {
            let admin = try fixture.admin()
            defer { admin.close() }
            try await admin.setRestriction(Self.purchase, to: .deny)
            #expect(await next(delegate.changes)?.state == .deny)
        }

        try await fixture.killDaemon()
        #expect(await eventually { !client.isServiceRunning })
        // Absent service: reads still answer, nothing throws, the last state stays.
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .deny)
        #expect(await client.requestGuidedAccessSession(enabled: true) == false)

        try await fixture.startDaemon()
        let admin = try fixture.admin()
        defer { admin.close() }
        let reregistered = try await eventually {
            try await admin.restrictions().first { $0.identifier == Self.purchase }?.isRegistered == true
        }
        #expect(reregistered, "the client did not register again; log:\n\(fixture.daemonLog())")
        #expect(client.isServiceRunning)
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .deny)
        #expect(try await admin.restrictionState(Self.purchase) == .deny)

        // Signals flow from the new instance.
        try await admin.setRestriction(Self.export, to: .deny)
        #expect(await next(delegate.changes) == GuidedAccessRestrictionChange(identifier: Self.export, state: .deny))

        // A change made while the client could not hear it arrives on reconnect.
        try await fixture.killDaemon()
        #expect(await eventually { !client.isServiceRunning })
        try await Self.allow(Self.purchase, through: fixture)
        try await fixture.startDaemon()
        #expect(await next(delegate.changes) == GuidedAccessRestrictionChange(identifier: Self.purchase, state: .allow))
        #expect(client.guidedAccessRestrictionState(forIdentifier: Self.purchase) == .allow)
    }

    /// Runs a second daemon on the same state directory on another bus, allows
    /// `identifier` there, and stops it again.
    static func allow(_ identifier: String, through fixture: ServiceFixture) async throws {
        let second = try await fixture.startSecondDaemon()
        defer { second.stop() }
        let admin = try GuidedAccessAdmin(bus: .address(second.address))
        defer { admin.close() }
        try await admin.setRestriction(identifier, to: .allow)
    }
}
