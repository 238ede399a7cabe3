// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The person's side of a session, as the start sheet uses it: the options
/// remembered per app (`GetLastOptions`), and `Presentation` and `AutoLock`
/// with their change signals. Against the real daemon and a real polkitd.
@Suite("Per-app memory, presentation and auto-lock", .timeLimit(.minutes(3)))
struct LastOptionsTests {
    /// A Start with every option the sheet sets, as the extension sends it.
    static let sheetOptions = "{'time-limit': <uint64 900>, 'system-restrictions': <{'touch': 'deny', 'notifications': 'deny'}>, "
        + "'disabled-regions': <[(10, 20, 300, 200), (0, 0, 50, 50)]>, 'restrictions': <{'com.example.kiosk.buy': 'deny'}>, "
        + "'presentation': <'fullscreen'>, 'auto-lock': <int64 0>, 'interactive': <true>}"

    @Test("GetLastOptions: {} before any Start; after one, every option as accepted (never interactive); kept across a kill -9",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func lastOptionsAfterStart() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            #expect(try await Self.lastOptions(client, "org.example.Kiosk").isEmpty)
            // The extension's call through Gio: '(s)' → '(a{sv})'.
            #expect(try await h.gdbus(.session, "GetLastOptions", ["'org.example.Kiosk'"]).output == "(@a{sv} {},)")

            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.sheetOptions])
            #expect(start.ok, "\(start)")
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)

            let expected: [String: DBusValue] = [
                "time-limit": .uint64(900),
                "system-restrictions": stringMap(Dictionary(uniqueKeysWithValues: Self.systemRestrictions.map {
                    ($0, $0 == "touch" || $0 == "notifications" ? "deny" : "allow")
                })),
                "disabled-regions": .array(element: "(iiii)", [Self.region(10, 20, 300, 200), Self.region(0, 0, 50, 50)]),
                "restrictions": stringMap(["com.example.kiosk.buy": "deny"]),
                "presentation": .string("fullscreen"),
                "auto-lock": .int64(0),
            ]
            #expect(try await Self.lastOptions(client, "org.example.Kiosk") == expected)
            #expect(try await Self.lastOptions(client, "org.example.Other").isEmpty, "another app has none")

            // The state file keeps them: a killed daemon answers the same.
            try await h.killDaemon()
            try await h.startDaemon()
            #expect(try await Self.lastOptions(client, "org.example.Kiosk") == expected)

            // A read: no polkit needed.
            h.stopPolkit()
            let python = try await h.python("""
                bus = connect()
                done(options=plain(iface(bus, SESSION).GetLastOptions("org.example.Kiosk")))
                """)
            let options = try #require(python["options"] as? [String: Any], "\(python.raw)")
            #expect(options["presentation"] as? String == "fullscreen" && options["auto-lock"] as? Int == 0)
            #expect(options["disabled-regions"] as? [[Int]] == [[10, 20, 300, 200], [0, 0, 50, 50]])
            #expect(Set(options.keys) == Set(expected.keys))
        }
    }

    @Test("GetLastOptions normalises the app as Start does: /usr/bin/python3 and its resolved path are one app",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func normalisedApp() async throws {
        let resolved = Paths.pythonAppID
        try #require(resolved != Paths.python, "/usr/bin/python3 is expected to be a symlink")
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            #expect(await client.gaError(.session, "Start", [.string(Paths.python), options(["time-limit": .uint64(60)])]) == nil)
            #expect(try await client.property(.session, "App") == .string(resolved))
            #expect(await client.gaError(.session, "End", [options([:])]) == nil)
            for spelling in [Paths.python, resolved, "/usr/bin/../bin/python3"] {
                #expect(try await Self.lastOptions(client, spelling)["time-limit"] == .uint64(60), "\(spelling)")
            }
            // Started under its resolved name, asked for under the symlink: the same record, replaced.
            #expect(await client.gaError(.session, "Start", [.string(resolved), options(["time-limit": .uint64(120)])]) == nil)
            #expect(try await Self.lastOptions(client, Paths.python)["time-limit"] == .uint64(120))
        }
    }

    @Test("the 65th app locked drops the least recently locked one; locking an app again keeps it",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func leastRecentlyLockedIsDropped() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            func lock(_ app: String, _ seconds: UInt64) async throws {
                #expect(await client.gaError(.session, "Start", [.string(app), options(["time-limit": .uint64(seconds)])]) == nil)
                #expect(await client.gaError(.session, "End", [options([:])]) == nil)
            }
            for index in 0..<64 { try await lock("org.example.App\(index)", UInt64(index + 1)) }
            #expect(try await Self.lastOptions(client, "org.example.App0")["time-limit"] == .uint64(1))
            try await lock("org.example.App0", 500)   // App1 is now the least recently locked
            try await lock("org.example.App64", 65)
            #expect(try await Self.lastOptions(client, "org.example.App1").isEmpty)
            #expect(try await Self.lastOptions(client, "org.example.App0")["time-limit"] == .uint64(500))
            #expect(try await Self.lastOptions(client, "org.example.App2")["time-limit"] == .uint64(3))
            #expect(try await Self.lastOptions(client, "org.example.App64")["time-limit"] == .uint64(65))
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: h.stateDirectory.appendingPathComponent("state.json")))
            #expect(((state as? [String: Any])?["lastOptions"] as? [Any])?.count == 64)
        }
    }

    @Test("Presentation and AutoLock: published with PropertiesChanged at Start, republished after a restart, defaults at End",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func propertiesAndSignals() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            let changes = try await client.gaSignals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            #expect(try await h.busctl(getProperty(.session, "Presentation")).output == #"s "as-is""#)
            #expect(try await h.busctl(getProperty(.session, "AutoLock")).output == "x -1")

            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'presentation': <'maximized'>, 'auto-lock': <int64 300>}"])
            #expect(start.ok, "\(start)")
            let started = await Self.nextSessionChange(changes)
            #expect(started["Presentation"] == .string("maximized"), "\(started)")
            #expect(started["AutoLock"] == .int64(300))
            #expect(try await h.busctl(getProperty(.session, "Presentation")).output == #"s "maximized""#)
            #expect(try await h.busctl(getProperty(.session, "AutoLock")).output == "x 300")

            try await h.killDaemon()
            try await h.startDaemon()
            #expect(try await client.property(.session, "Presentation") == .string("maximized"))
            #expect(try await client.property(.session, "AutoLock") == .int64(300))

            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            let ended = await Self.nextSessionChange(changes)
            #expect(ended["Presentation"] == .string("as-is"), "\(ended)")
            #expect(ended["AutoLock"] == .int64(-1))

            // A Start that leaves them at their defaults announces neither.
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <int64 -1>}"]).ok)
            let plain = await Self.nextSessionChange(changes)
            #expect(plain["Enabled"] == .bool(true) && plain["Presentation"] == nil && plain["AutoLock"] == nil, "\(plain)")
        }
    }

    @Test("bad presentation and auto-lock values are InvalidArgument saying what is allowed; nothing starts",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func badValuesAreNamed() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let presentation = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'presentation': <'stretched'>}"])
            #expect(presentation.errorName == ServiceErrorName.invalidArgument.rawValue, "\(presentation)")
            #expect(presentation.stderr.contains("as-is, maximized, fullscreen"), "\(presentation)")
            for seconds in ["-2", "86401", "-9223372036854775808"] {
                let autoLock = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <int64 \(seconds)>}"])
                #expect(autoLock.errorName == ServiceErrorName.invalidArgument.rawValue, "\(autoLock)")
                #expect(autoLock.stderr.contains("-1 for the desktop's own, 0 for never"), "\(autoLock)")
            }
            let wrongType = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <300>}"])
            #expect(wrongType.errorName == ServiceErrorName.invalidArgument.rawValue && wrongType.stderr.contains("'x'"), "\(wrongType)")
            #expect(try await h.connect().state() == "inactive")
            #expect(try await Self.lastOptions(h.connect(), "org.example.Kiosk").isEmpty, "a refused Start is not remembered")
        }
    }

    // MARK: Helpers

    static let systemRestrictions = ["sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch",
                                     "notifications", "app-switching", "power-menu"]

    static func region(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) -> DBusValue {
        .structure([.int32(x), .int32(y), .int32(width), .int32(height)])
    }

    /// `GetLastOptions(app)`, variants unwrapped.
    static func lastOptions(_ client: Connection, _ app: String) async throws -> [String: DBusValue] {
        let reply = try await client.ga(.session, "GetLastOptions", [.string(app)])
        guard case .dictionary(_, _, let entries)? = reply.first else { throw HarnessError("GetLastOptions gave \(reply)") }
        var options: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else {
                throw HarnessError("GetLastOptions entry \(entry)")
            }
            options[key] = sortedEntries(value)
        }
        return options
    }

    /// `value` with every dictionary's entries in key order, so replies compare as values.
    static func sortedEntries(_ value: DBusValue) -> DBusValue {
        guard case .dictionary(let key, let valueType, let entries) = value else { return value }
        return .dictionary(key: key, value: valueType, entries.sorted { "\($0.key)" < "\($1.key)" })
    }

    /// The changed values of the next PropertiesChanged for the session interface.
    static func nextSessionChange(_ stream: SignalStream) async -> [String: DBusValue] {
        while let message = await next(stream, timeout: .seconds(5)) {
            guard message.arguments.first == .string(ServiceInterface.session.rawValue),
                  case .dictionary(_, _, let entries)? = message.arguments.dropFirst().first else { continue }
            var changed: [String: DBusValue] = [:]
            for entry in entries {
                if case .string(let name) = entry.key, case .variant(let value) = entry.value { changed[name] = value }
            }
            return changed
        }
        return [:]
    }
}
