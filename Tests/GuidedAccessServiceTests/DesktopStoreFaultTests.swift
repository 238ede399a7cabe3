// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The desktop's store fails (issue 29): dconf-service cannot be started on
/// the session bus. Nothing it did not keep may be acknowledged or published.
@Suite("Desktop store faults", .serialized)
struct DesktopStoreFaultTests {
    static var canRun: Bool { DesktopSettingsTests.canRun && Requirements.canRunPolkit }

    /// A harness whose bus cannot activate dconf-service (its .service file
    /// is removed before the bus starts); reads still work from the database file.
    private func withoutDconfService(_ body: (Harness) async throws -> Void) async throws {
        try await withHarness(.init(polkit: .real(), startDaemon: false)) { h in
            try FileManager.default.removeItem(at: h.desktop.serviceDirectory.appendingPathComponent("ca.desrt.dconf.service"))
            _ = try await h.busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig"])
            try await h.startDaemon()
            try await body(h)
        }
    }

    @Test("dconf unreachable: SetFeature of a GSettings feature is Failed naming the store and key; nothing published; nothing lost after kill -9",
          .enabled(if: canRun, .polkitReason))
    func unreachableStoreFails() async throws {
        try await withoutDconfService { h in
            let watcher = try h.connect()
            let changes = try await watcher.signals(MatchRule(
                path: ObjectPath(validating: GuidedAccessBus.objectPath), interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
            for feature in ["Zoom", "VisualBell"] {
                let set = try await h.gdbus(.features, "SetFeature", ["'\(feature)'", "true"])
                #expect(!set.ok)
                #expect(set.stderr.contains("org.guidedaccess.Error.Failed"), "\(set)")
                #expect(set.stderr.contains("dconf") && set.stderr.contains("gsettings:org.gnome"), "\(set)")
                #expect(try await watcher.property(.features, feature) == .bool(false))
            }
            #expect(await collect(changes, for: .milliseconds(500)).isEmpty, "no signal for a value the store did not keep")
            let audit = h.auditRecords().filter { ($0["action"] as? String) == "set-feature" }
            #expect(audit.count == 2 && audit.allSatisfy { ($0["result"] as? String) == "Failed" }, "\(audit)")
            // BoldText is the service's: it is acknowledged and must survive.
            #expect(try await h.gdbus(.features, "SetFeature", ["'BoldText'", "true"]).ok)
            try await h.killDaemon()
            try await h.startDaemon()
            let restarted = try h.connect()
            #expect(try await restarted.property(.features, "Zoom") == .bool(false))
            #expect(try await restarted.property(.features, "VisualBell") == .bool(false))
            #expect(try await restarted.property(.features, "BoldText") == .bool(true))
        }
    }

    @Test("dconf unreachable: a session still starts; SystemRestrictionSources stops naming the keys that did not stick, logged once",
          .enabled(if: canRun, .polkitReason))
    func sessionStartsWithoutItsKeys() async throws {
        try await withoutDconfService { h in
            let start = try await h.gdbus(.session, "Start", ["'org.example.Reader'", DesktopSettingsTests.allDenied])
            #expect(start.ok, "\(start)")
            #expect(try await h.connect().enabled())
            let sources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(sources["notifications"] == "published", "\(sources)")
            #expect(sources["power-menu"] == "published", "\(sources)")
            let logged = h.log().components(separatedBy: "cannot deny notifications through").count - 1
            #expect(logged == 1, "\(h.log())")
        }
    }
}
