// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// Wrong types, bad values and quotas: each gets a named error, the daemon
/// stays up, and nothing changes.
@Suite("Bad input", .timeLimit(.minutes(2)))
struct BadInputTests {
    static let megabyte = String(repeating: "x", count: 1 << 20)

    /// What the service shows; must be equal before and after bad calls.
    static func snapshot(_ client: Connection) async throws -> String {
        let session = try await client.ga("org.freedesktop.DBus.Properties", "GetAll", [.string(ServiceInterface.session.rawValue)])
        let features = try await client.ga("org.freedesktop.DBus.Properties", "GetAll", [.string(ServiceInterface.features.rawValue)])
        let list = try await client.list()
        // TimeRemaining and StartedAt are 0 while inactive, so the dump is stable.
        return "\(session)\n\(features)\n\(list.sorted { $0.identifier < $1.identifier })"
    }

    @Test("Every method with wrong argument types gets InvalidArgs (DBusKit, dbus-send, busctl)",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func wrongSignatures() async throws {
        try await withHarness { h in
            let client = try h.connect()
            _ = try await client.ga(.restrictions, "Register", [declarations([("com.example.app.kept", "Kept", "")])])
            let before = try await Self.snapshot(client)

            let empty = options([:])
            let invalidArgs = ErrorName.invalidArgs.rawValue
            let cases: [(InterfaceName, String, [DBusValue])] = [
                (.session, "Start", []),
                (.session, "Start", [.string("org.example.Kiosk")]),
                (.session, "Start", [.uint32(1), empty]),
                (.session, "Start", [.string("org.example.Kiosk"), stringMap([:])]),
                (.session, "Start", [.string("org.example.Kiosk"), empty, .string("extra")]),
                (.session, "End", []),
                (.session, "End", [.string("2468")]),
                (.session, "End", [stringMap(["passcode": "2468"])]),
                (.session, "RequestSession", [.string("yes"), empty]),
                (.session, "RequestSession", [.bool(true)]),
                (.session, "SetPasscode", [.uint32(2468)]),
                (.session, "SetPasscode", []),
                (.session, "ExtendTimeLimit", [.uint32(5)]),
                (.session, "ExtendTimeLimit", [.int64(5)]),
                (.session, "ExtendTimeLimit", [.string("5")]),
                (.session, "GetLastOptions", []),
                (.session, "GetLastOptions", [.uint32(1)]),
                (.session, "GetLastOptions", [.string("org.example.Kiosk"), empty]),
                (.features, "SetFeature", [.string("Zoom")]),
                (.features, "SetFeature", [.string("Zoom"), .string("true")]),
                (.features, "ConfigureForGuidedAccess", [.string("zoom"), .bool(true)]),
                (.features, "ConfigureForGuidedAccess", [strings(["zoom"])]),
                (.restrictions, "Register", [strings(["com.example.app.x"])]),
                (.restrictions, "Register", [.array(element: "(ss)", [.structure([.string("com.example.app.x"), .string("X")])])]),
                (.restrictions, "Register", [.structure([.string("com.example.app.x"), .string("X"), .string("")])]),
                (.restrictions, "Unregister", [.string("com.example.app.kept")]),
                (.restrictions, "GetState", [.int32(1)]),
                (.restrictions, "GetState", []),
                (.restrictions, "IsAllowed", [.bool(true)]),
                (.restrictions, "SetState", [.string("com.example.app.kept")]),
                (.restrictions, "SetState", [.string("com.example.app.kept"), .bool(false)]),
                (.restrictions, "Reset", [.string("com.example.app.kept")]),
                (.restrictions, "List", [.string("all")]),
                ("org.freedesktop.DBus.Properties", "Get", [.string(ServiceInterface.session.rawValue)]),
                ("org.freedesktop.DBus.Properties", "GetAll", [.uint32(1)]),
            ]
            for (interface, member, arguments) in cases {
                let error = await client.gaError(interface, member, arguments)
                #expect(error == invalidArgs, "\(member)(\(arguments.map(\.signature.rawValue).joined(separator: ",")))")
            }

            // The same through dbus-send and busctl.
            for (member, argument) in [("Start", "uint32:1"), ("SetPasscode", "int32:2468"), ("End", "string:2468"),
                                       ("ExtendTimeLimit", "string:ten")] {
                let result = try await h.dbusSend(.session, member, [argument])
                #expect(result.errorName == invalidArgs, "\(member): \(result)")
            }
            let getState = try await h.dbusSend(.restrictions, "GetState", ["boolean:true"])
            #expect(getState.errorName == invalidArgs, "\(getState)")
            let busctl = try await h.busctlCall(.session, "ExtendTimeLimit", ["s", "ten"])
            #expect(!busctl.ok && busctl.stderr.contains("Call failed"), "\(busctl)")
            let busctlFeature = try await h.busctlCall(.features, "SetFeature", ["s", "Zoom"])
            #expect(!busctlFeature.ok, "\(busctlFeature)")

            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await Self.snapshot(client) == before)
        }
    }

    @Test("Bad values get named org.guidedaccess.Error.* errors before any authorization (no polkit needed)",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func badValues() async throws {
        try await withHarness(.init(polkit: .absent)) { h in
            let client = try h.connect()
            _ = try await client.ga(.restrictions, "Register", [declarations([("com.example.app.kept", "Kept", "")])])
            let before = try await Self.snapshot(client)
            let invalid = ServiceErrorName.invalidArgument.rawValue
            let mb = Self.megabyte
            let kiosk = DBusValue.string("org.example.Kiosk")
            let region = { (x: Int32, y: Int32, w: Int32, h: Int32) in DBusValue.structure([.int32(x), .int32(y), .int32(w), .int32(h)]) }
            let cases: [(InterfaceName, String, [DBusValue], String)] = [
                // Start: app ids
                (.session, "Start", [.string(""), options([:])], invalid),
                (.session, "Start", [.string(mb), options([:])], invalid),
                (.session, "Start", [.string("org.example\u{07}bell"), options([:])], invalid),
                (.session, "Start", [.string("org.example.Kiosk\n"), options([:])], invalid),
                // Start: options
                (.session, "Start", [kiosk, options(["colour": .string("red")])], invalid),
                (.session, "Start", [kiosk, options([mb: .bool(true)])], invalid),
                (.session, "Start", [kiosk, options(["time-limit": .string("600")])], invalid),
                (.session, "Start", [kiosk, options(["time-limit": .uint32(600)])], invalid),
                (.session, "Start", [kiosk, options(["time-limit": .uint64(.max)])], invalid),
                (.session, "Start", [kiosk, options(["system-restrictions": stringMap(["teleporter": "deny"])])], invalid),
                (.session, "Start", [kiosk, options(["system-restrictions": stringMap(["touch": "maybe"])])], invalid),
                (.session, "Start", [kiosk, options(["system-restrictions": options(["touch": .string("deny")])])], invalid),
                (.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(iiii)", [region(0, 0, -5, 10)])])], invalid),
                (.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(iiii)",
                                                                                  Array(repeating: region(0, 0, 1, 1), count: 65))])], invalid),
                (.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(ii)", [.structure([.int32(1), .int32(1)])])])], invalid),
                (.session, "Start", [kiosk, options(["restrictions": stringMap(["not an identifier": "deny"])])], invalid),
                (.session, "Start", [kiosk, options(["restrictions": stringMap(["com.example.app.kept": "nope"])])], invalid),
                (.session, "Start", [kiosk, options(["presentation": .string("stretched")])], invalid),
                (.session, "Start", [kiosk, options(["presentation": .string("")])], invalid),
                (.session, "Start", [kiosk, options(["presentation": .string("Fullscreen")])], invalid),
                (.session, "Start", [kiosk, options(["presentation": .uint32(1)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .int64(-2)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .int64(86_401)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .int64(.min)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .int64(.max)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .uint64(300)])], invalid),
                (.session, "Start", [kiosk, options(["auto-lock": .int32(300)])], invalid),
                (.session, "Start", [kiosk, options(["interactive": .string("yes")])], invalid),
                (.session, "GetLastOptions", [.string("")], invalid),
                (.session, "GetLastOptions", [.string("bin/kiosk")], invalid),
                (.session, "GetLastOptions", [.string(mb)], invalid),
                (.session, "GetLastOptions", [.string("org.example\u{07}bell")], invalid),
                // End / RequestSession options
                (.session, "End", [options(["pass": .string("2468")])], invalid),
                (.session, "End", [options(["passcode": .uint32(2468)])], invalid),
                (.session, "End", [options(["interactive": .string("yes")])], invalid),
                (.session, "RequestSession", [.bool(true), options(["reason": .uint32(1)])], invalid),
                (.session, "RequestSession", [.bool(true), options(["why": .string("because")])], invalid),
                // Passcodes
                (.session, "SetPasscode", [.string("")], invalid),
                (.session, "SetPasscode", [.string("12")], invalid),
                (.session, "SetPasscode", [.string(String(repeating: "7", count: 65))], invalid),
                (.session, "SetPasscode", [.string(mb)], invalid),
                (.session, "ExtendTimeLimit", [.uint64(.max)], ServiceErrorName.notActive.rawValue),
                // Features
                (.features, "SetFeature", [.string("Teleport"), .bool(true)], ServiceErrorName.unknownFeature.rawValue),
                (.features, "SetFeature", [.string(""), .bool(true)], ServiceErrorName.unknownFeature.rawValue),
                (.features, "SetFeature", [.string("zoom"), .bool(true)], ServiceErrorName.unknownFeature.rawValue),
                (.features, "SetFeature", [.string(mb), .bool(true)], ServiceErrorName.unknownFeature.rawValue),
                (.features, "SetFeature", [.string("Zo\u{301}om"), .bool(true)], ServiceErrorName.unknownFeature.rawValue),
                (.features, "ConfigureForGuidedAccess", [strings(["teleport"]), .bool(true)], ServiceErrorName.failed.rawValue),
                // Restriction identifiers and texts
                (.restrictions, "Register", [declarations([("", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("ab", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("nodots", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com..example", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.exa mple.x", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.exämple.x", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.\u{1F6D2}", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example/x.y", "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com." + String(repeating: "a", count: 253), "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([(mb, "Text", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", "", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", " \t\n", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", "\u{3000}\u{2003}\u{A0}", "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", String(repeating: "a", count: 4000), "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", mb, "")])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", "Text", mb)])], invalid),
                (.restrictions, "Register", [declarations([("com.example.app.x", "Text", ""), ("com.example.app.y", "", "")])], invalid),
                (.restrictions, "GetState", [.string("")], invalid),
                (.restrictions, "GetState", [.string(mb)], invalid),
                (.restrictions, "IsAllowed", [.string("x")], invalid),
                (.restrictions, "IsAllowed", [.string("com.exämple.x")], invalid),
                (.restrictions, "SetState", [.string("not valid"), .string("deny")], invalid),
                (.restrictions, "SetState", [.string("com.example.app.kept"), .string("maybe")], invalid),
                (.restrictions, "SetState", [.string("com.example.app.kept"), .string("DENY")], invalid),
                (.restrictions, "SetState", [.string("com.example.app.kept"), .string(mb)], invalid),
                (.restrictions, "Reset", [strings(["com.example.app.kept", "bad"])], invalid),
                (.restrictions, "Unregister", [strings(["bad"])], invalid),
            ]
            for (interface, member, arguments, expected) in cases {
                let error = await client.gaError(interface, member, arguments)
                let shown = arguments.map { "\($0)".prefix(80) }.joined(separator: ", ")
                #expect(error == expected, "\(member)(\(shown))")
            }

            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await Self.snapshot(client) == before)
            #expect(try await client.state() == "inactive")

            // Odd but valid Unicode in texts is accepted and kept as sent.
            let odd = "Kaufen 🛒 — e\u{301} \u{202E}txet\u{202C} 👩‍👩‍👧 \u{FEFF}漢字"
            let other = try h.connect()
            _ = try await other.ga(.restrictions, "Register", [declarations([("com.example.app.odd", odd, odd)])])
            let row = try await client.list().first { $0.identifier == "com.example.app.odd" }
            #expect(row?.text == odd && row?.detail == odd)
            let busctl = try await h.busctl(getProperty(.restriction, "Text", path: try #require(ObjectPath.restriction("com.example.app.odd")).rawValue))
            #expect(busctl.ok, "\(busctl)")
        }
    }

    @Test("The 257th registration of one connection is QuotaExceeded; the daemon is still up and nothing changed",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func registrationQuota() async throws {
        try await withHarness { h in
            let client = try h.connect()
            let entries = (0..<256).map { ("com.example.quota.r\($0)", "Restriction \($0)", "") }
            let paths = try await client.ga(.restrictions, "Register", [declarations(entries)])
            guard case .array(_, let returned)? = paths.first else { Issue.record("Register gave \(paths)"); return }
            #expect(returned.count == 256)
            let before = try await Self.snapshot(client)

            #expect(await client.gaError(.restrictions, "Register", [declarations([("com.example.quota.r256", "One more", "")])])
                    == ServiceErrorName.quotaExceeded.rawValue)
            // Same through python on its own connection: 257 in one call.
            let python = try await h.python("""
                bus = connect()
                r = iface(bus, RESTRICTIONS)
                many = dbus.Array([("com.example.python.r%d" % i, "R", "") for i in range(257)], signature="(sss)")
                done(result=attempt(r.Register, many), count=len(r.List()))
                """)
            #expect(python["result"] as? [String] == ["error", ServiceErrorName.quotaExceeded.rawValue], "\(python.raw)")
            #expect(python["count"] as? Int == 256)

            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await Self.snapshot(client) == before)
            // Another connection has its own quota.
            let other = try h.connect()
            #expect(await other.gaError(.restrictions, "Register", [declarations([("com.example.other.r0", "Other", "")])]) == nil)
        }
    }
}
