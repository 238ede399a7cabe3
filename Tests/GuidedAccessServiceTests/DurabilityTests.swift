// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing
import GuidedAccessCore
#if canImport(Glibc)
import Glibc
#endif

/// State survives crashes; a corrupt state file is kept aside, never trusted.
@Suite("Durability", .timeLimit(.minutes(2)))
struct DurabilityTests {
    @Test("kill -9 during an active session: after a restart on the same state dir the session and restriction states are back",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func killAndRestart() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            _ = try await h.python("""
                bus = connect()
                iface(bus, RESTRICTIONS).Register(dbus.Array([("com.example.shop.purchase", "Buy", "Pay money")], signature="(sss)"))
                done(ok=True)
                """)
            #expect(try await h.busctlCall(.restrictions, "SetState", ["ss", "com.example.shop.purchase", "deny"]).ok)
            #expect(try await h.gdbus(.session, "SetPasscode", ["'13579'"]).ok)
            let start = try await h.gdbus(.session, "Start", [
                "'org.example.Exam'",
                "{'time-limit': <uint64 3600>, 'system-restrictions': <{'touch': 'deny', 'power-menu': 'deny'}>, "
                    + "'disabled-regions': <[(10, 20, 30, 40)]>, 'restrictions': <{'com.example.shop.refund': 'deny'}>}",
            ])
            #expect(start.ok, "\(start)")
            h.stopPolkit()

            let names = ["Enabled", "State", "App", "StartedAt", "TimeLimit", "SystemRestrictions", "DisabledRegions", "PasscodeSet"]
            var before: [String: DBusValue] = [:]
            for name in names { before[name] = try await client.property(.session, name) }
            let listBefore = try await client.list()
            #expect(before["State"] == .string("active"))

            let oldPID = try #require(h.daemonPID)
            try await h.killDaemon()
            #expect(kill(oldPID, 0) != 0 || (try? String(contentsOfFile: "/proc/\(oldPID)/stat", encoding: .utf8))?.contains(") Z") == true)
            try await h.startDaemon()
            #expect(h.daemonPID != oldPID)

            for name in names {
                #expect(try await client.property(.session, name) == before[name], "\(name)")
            }
            let remaining = try await client.property(.session, "TimeRemaining", as: UInt64.self)
            #expect(remaining > 3500 && remaining <= 3600)
            #expect(try await client.list() == listBefore)
            #expect(try await h.gdbus(.restrictions, "GetState", ["'com.example.shop.purchase'"]).output == "('deny',)")
            #expect(try await h.gdbus(.restrictions, "GetState", ["'com.example.shop.refund'"]).output == "('deny',)")
            #expect(try await client.ga(.restrictions, "IsAllowed", [.string("com.example.shop.purchase")]) == [.bool(false)])
            // The restriction object is exported again.
            let path = try #require(ObjectPath.restriction("com.example.shop.purchase")).rawValue
            #expect(try await h.busctl(getProperty(.restriction, "State", path: path)).output == #"s "deny""#)
            #expect(try await h.busctl(getProperty(.restriction, "Registered", path: path)).output == "b false")
            // And only the passcode (polkit is gone) ends it.
            #expect(await client.gaError(.session, "End", [options([:])]) == ServiceErrorName.permissionDenied.rawValue)
            #expect(await client.gaError(.session, "End", [options(["passcode": .string("13579")])]) == nil)
            #expect(try await client.state() == "inactive")
        }
    }

    @Test("SIGTERM stops the daemon cleanly; the next start resumes the session",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func cleanStop() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Exam'", "{'time-limit': <uint64 600>}"]).ok)
            h.stopPolkit()
            h.stopDaemon()
            #expect(h.log().contains("stopped by SIGTERM"), "\(h.log())")
            try await h.waitUntilNameIsFree()
            try await h.startDaemon()
            #expect(try await client.state() == "active")
            #expect(try await client.property(.session, "App") == .string("org.example.Exam"))
        }
    }

    @Test("A passcode the PBKDF2 version stored still ends the session, then state.json holds it as yescrypt; --passcode-iterations works",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func pbkdf2PasscodeIsRehashed() async throws {
        try await withHarness(.init(polkit: .real(), startDaemon: false)) { h in
            let statePath = h.stateDirectory.appendingPathComponent("state.json")
            try Self.writePBKDF2State(to: statePath)
            // The PBKDF2-era name of --passcode-cost: its 1,000 rounds stand for cost 1.
            var argv = h.fixture.configuration.arguments(h.fixture)
            let cost = try #require(argv.firstIndex(of: "--passcode-cost"))
            argv.replaceSubrange(cost...cost + 1, with: ["--passcode-iterations", "1000"])
            try await h.fixture.startDaemon(argv)
            let client = try h.connect()
            #expect(try await client.property(.session, "PasscodeSet") == .bool(true))
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "org.example.Kiosk", "0"]).ok)

            let end: @Sendable (String) async -> String? = { code in
                await client.gaError(.session, "End", [options(["passcode": .string(code)])])
            }
            #expect(await end("1357") == ServiceErrorName.permissionDenied.rawValue)
            #expect(try Self.storedPasscode(statePath)["algorithm"] == "pbkdf2-sha256", "a wrong passcode replaces nothing")
            #expect(await end("2468") == nil)
            #expect(try await client.state() == "inactive")
            let stored = try Self.storedPasscode(statePath)
            #expect(stored["algorithm"] == "crypt")
            #expect(stored["crypt"]?.hasPrefix("$y$j75$") == true, "yescrypt at cost 1: \(stored)")

            // The new hash survives a crash and ends the next session.
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "org.example.Kiosk", "0"]).ok)
            h.stopPolkit()
            try await h.killDaemon()
            try await h.startDaemon()
            #expect(await end("1357") == ServiceErrorName.permissionDenied.rawValue)
            #expect(await end("2468") == nil)
            #expect(try Self.storedPasscode(statePath) == stored, "a yescrypt hash is kept as it is")
        }
    }

    /// A state.json holding the passcode "2468" as the swift-crypto PBKDF2 version wrote it (1,000 rounds).
    private static func writePBKDF2State(to path: URL) throws {
        var state = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(PersistentState())) as? [String: Any])
        state["passcode"] = ["backoff": ["consecutiveFailures": 0, "lockedUntilMicroseconds": 0],
                             "stored": ["algorithm": "pbkdf2-sha256", "iterations": 1000, "salt": "NIqDQRlMitiLr/nufMDo/w==",
                                        "hash": "TwUN2wgngZqq4mi1O5kX8dpF0UlZSx7HakVIh6iuiIY="]]
        try JSONSerialization.data(withJSONObject: state).write(to: path)
    }

    /// The `stored` object of state.json's passcode, its string values.
    private static func storedPasscode(_ path: URL) throws -> [String: String] {
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any]
        let stored = (state?["passcode"] as? [String: Any])?["stored"] as? [String: Any] ?? [:]
        return stored.compactMapValues { $0 as? String }
    }

    @Test("A corrupt state.json: the daemon starts fresh, keeps the file aside as state.json.corrupt-*, and warns on stderr",
          .enabled(if: Requirements.canRunDaemon, .daemonReason),
          arguments: ["{ this is not json", "[1, 2, 3]", "\u{0}\u{1}garbage\u{FF}"])
    func corruptState(_ garbage: String) async throws {
        try await withHarness(.init(startDaemon: false)) { h in
            let statePath = h.stateDirectory.appendingPathComponent("state.json")
            try Data(garbage.utf8).write(to: statePath)
            try await h.startDaemon()

            let client = try h.connect()
            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await client.state() == "inactive")
            #expect(try await client.list() == [])
            let files = try FileManager.default.contentsOfDirectory(atPath: h.stateDirectory.path)
            let aside = files.filter { $0.hasPrefix("state.json.corrupt-") }
            #expect(aside.count == 1, "\(files)")
            if let name = aside.first {
                let kept = try Data(contentsOf: h.stateDirectory.appendingPathComponent(name))
                #expect(kept == Data(garbage.utf8))
            }
            let warnings = h.log().split(separator: "\n").filter { $0.contains("level=warning") && $0.contains("state.json.corrupt-") }
            #expect(!warnings.isEmpty, "\(h.log())")

            // The fresh state works and is saved.
            _ = try await client.ga(.restrictions, "Register", [declarations([("com.example.app.fresh", "Fresh", "")])])
            #expect(try await client.list().count == 1)
        }
    }
}
