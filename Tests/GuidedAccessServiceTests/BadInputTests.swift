// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import Testing

/// Wrong types, bad values and quotas: each gets a named error, the daemon
/// stays up, and nothing changes.
@Suite("Bad input", .timeLimit(.minutes(2)))
struct BadInputTests {
    static let megabyte = String(repeating: "x", count: 1 << 20)

    /// What the service shows; must be equal before and after bad calls.
    static func snapshot(_ client: Connection) async throws -> String {
        let session = try await client.ga("org.freedesktop.DBus.Properties", "GetAll", [.string(GA.session)])
        let features = try await client.ga("org.freedesktop.DBus.Properties", "GetAll", [.string(GA.features)])
        let list = try await client.list()
        // TimeRemaining and StartedAt are 0 while inactive, so the dump is stable.
        return "\(session)\n\(features)\n\(list.sorted { $0.identifier < $1.identifier })"
    }

    @Test("Every method with wrong argument types gets InvalidArgs (DBusKit, dbus-send, busctl)",
          .enabled(if: Requirements.canRunDaemon, Requirements.daemonReason))
    func wrongSignatures() async throws {
        try await withHarness { h in
            let client = try h.connect()
            _ = try await client.ga(GA.restrictions, "Register", [declarations([("com.example.app.kept", "Kept", "")])])
            let before = try await Self.snapshot(client)

            let empty = options([:])
            let cases: [(String, String, [DBusValue])] = [
                (GA.session, "Start", []),
                (GA.session, "Start", [.string("org.example.Kiosk")]),
                (GA.session, "Start", [.uint32(1), empty]),
                (GA.session, "Start", [.string("org.example.Kiosk"), stringMap([:])]),
                (GA.session, "Start", [.string("org.example.Kiosk"), empty, .string("extra")]),
                (GA.session, "End", []),
                (GA.session, "End", [.string("2468")]),
                (GA.session, "End", [stringMap(["passcode": "2468"])]),
                (GA.session, "RequestSession", [.string("yes"), empty]),
                (GA.session, "RequestSession", [.bool(true)]),
                (GA.session, "SetPasscode", [.uint32(2468)]),
                (GA.session, "SetPasscode", []),
                (GA.session, "ExtendTimeLimit", [.uint32(5)]),
                (GA.session, "ExtendTimeLimit", [.int64(5)]),
                (GA.session, "ExtendTimeLimit", [.string("5")]),
                (GA.session, "GetLastOptions", []),
                (GA.session, "GetLastOptions", [.uint32(1)]),
                (GA.session, "GetLastOptions", [.string("org.example.Kiosk"), empty]),
                (GA.features, "SetFeature", [.string("Zoom")]),
                (GA.features, "SetFeature", [.string("Zoom"), .string("true")]),
                (GA.features, "ConfigureForGuidedAccess", [.string("zoom"), .bool(true)]),
                (GA.features, "ConfigureForGuidedAccess", [strings(["zoom"])]),
                (GA.restrictions, "Register", [strings(["com.example.app.x"])]),
                (GA.restrictions, "Register", [.array(element: "(ss)", [.structure([.string("com.example.app.x"), .string("X")])])]),
                (GA.restrictions, "Register", [.structure([.string("com.example.app.x"), .string("X"), .string("")])]),
                (GA.restrictions, "Unregister", [.string("com.example.app.kept")]),
                (GA.restrictions, "GetState", [.int32(1)]),
                (GA.restrictions, "GetState", []),
                (GA.restrictions, "IsAllowed", [.bool(true)]),
                (GA.restrictions, "SetState", [.string("com.example.app.kept")]),
                (GA.restrictions, "SetState", [.string("com.example.app.kept"), .bool(false)]),
                (GA.restrictions, "Reset", [.string("com.example.app.kept")]),
                (GA.restrictions, "List", [.string("all")]),
                ("org.freedesktop.DBus.Properties", "Get", [.string(GA.session)]),
                ("org.freedesktop.DBus.Properties", "GetAll", [.uint32(1)]),
            ]
            for (interface, member, arguments) in cases {
                let error = await client.gaError(interface, member, arguments)
                #expect(error == GA.invalidArgs, "\(member)(\(arguments.map(\.signature.rawValue).joined(separator: ",")))")
            }

            // The same through dbus-send and busctl.
            for (member, argument) in [("Start", "uint32:1"), ("SetPasscode", "int32:2468"), ("End", "string:2468"),
                                       ("ExtendTimeLimit", "string:ten")] {
                let result = try await h.dbusSend(GA.session, member, [argument])
                #expect(result.errorName == GA.invalidArgs, "\(member): \(result)")
            }
            let getState = try await h.dbusSend(GA.restrictions, "GetState", ["boolean:true"])
            #expect(getState.errorName == GA.invalidArgs, "\(getState)")
            let busctl = try await h.busctlCall(GA.session, "ExtendTimeLimit", ["s", "ten"])
            #expect(!busctl.ok && busctl.stderr.contains("Call failed"), "\(busctl)")
            let busctlFeature = try await h.busctlCall(GA.features, "SetFeature", ["s", "Zoom"])
            #expect(!busctlFeature.ok, "\(busctlFeature)")

            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await Self.snapshot(client) == before)
        }
    }

    @Test("Bad values get named org.guidedaccess.Error.* errors before any authorization (no polkit needed)",
          .enabled(if: Requirements.canRunDaemon, Requirements.daemonReason))
    func badValues() async throws {
        try await withHarness(.init(polkit: .absent)) { h in
            let client = try h.connect()
            _ = try await client.ga(GA.restrictions, "Register", [declarations([("com.example.app.kept", "Kept", "")])])
            let before = try await Self.snapshot(client)
            let invalid = GA.error("InvalidArgument")
            let mb = Self.megabyte
            let kiosk = DBusValue.string("org.example.Kiosk")
            let region = { (x: Int32, y: Int32, w: Int32, h: Int32) in DBusValue.structure([.int32(x), .int32(y), .int32(w), .int32(h)]) }
            let cases: [(String, String, [DBusValue], String)] = [
                // Start: app ids
                (GA.session, "Start", [.string(""), options([:])], invalid),
                (GA.session, "Start", [.string(mb), options([:])], invalid),
                (GA.session, "Start", [.string("org.example\u{07}bell"), options([:])], invalid),
                (GA.session, "Start", [.string("org.example.Kiosk\n"), options([:])], invalid),
                // Start: options
                (GA.session, "Start", [kiosk, options(["colour": .string("red")])], invalid),
                (GA.session, "Start", [kiosk, options([mb: .bool(true)])], invalid),
                (GA.session, "Start", [kiosk, options(["time-limit": .string("600")])], invalid),
                (GA.session, "Start", [kiosk, options(["time-limit": .uint32(600)])], invalid),
                (GA.session, "Start", [kiosk, options(["time-limit": .uint64(.max)])], invalid),
                (GA.session, "Start", [kiosk, options(["system-restrictions": stringMap(["teleporter": "deny"])])], invalid),
                (GA.session, "Start", [kiosk, options(["system-restrictions": stringMap(["touch": "maybe"])])], invalid),
                (GA.session, "Start", [kiosk, options(["system-restrictions": options(["touch": .string("deny")])])], invalid),
                (GA.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(iiii)", [region(0, 0, -5, 10)])])], invalid),
                (GA.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(iiii)",
                                                                                  Array(repeating: region(0, 0, 1, 1), count: 65))])], invalid),
                (GA.session, "Start", [kiosk, options(["disabled-regions": .array(element: "(ii)", [.structure([.int32(1), .int32(1)])])])], invalid),
                (GA.session, "Start", [kiosk, options(["restrictions": stringMap(["not an identifier": "deny"])])], invalid),
                (GA.session, "Start", [kiosk, options(["restrictions": stringMap(["com.example.app.kept": "nope"])])], invalid),
                (GA.session, "Start", [kiosk, options(["presentation": .string("stretched")])], invalid),
                (GA.session, "Start", [kiosk, options(["presentation": .string("")])], invalid),
                (GA.session, "Start", [kiosk, options(["presentation": .string("Fullscreen")])], invalid),
                (GA.session, "Start", [kiosk, options(["presentation": .uint32(1)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .int64(-2)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .int64(86_401)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .int64(.min)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .int64(.max)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .uint64(300)])], invalid),
                (GA.session, "Start", [kiosk, options(["auto-lock": .int32(300)])], invalid),
                (GA.session, "Start", [kiosk, options(["interactive": .string("yes")])], invalid),
                (GA.session, "GetLastOptions", [.string("")], invalid),
                (GA.session, "GetLastOptions", [.string("bin/kiosk")], invalid),
                (GA.session, "GetLastOptions", [.string(mb)], invalid),
                (GA.session, "GetLastOptions", [.string("org.example\u{07}bell")], invalid),
                // End / RequestSession options
                (GA.session, "End", [options(["pass": .string("2468")])], invalid),
                (GA.session, "End", [options(["passcode": .uint32(2468)])], invalid),
                (GA.session, "End", [options(["interactive": .string("yes")])], invalid),
                (GA.session, "RequestSession", [.bool(true), options(["reason": .uint32(1)])], invalid),
                (GA.session, "RequestSession", [.bool(true), options(["why": .string("because")])], invalid),
                // Passcodes
                (GA.session, "SetPasscode", [.string("")], invalid),
                (GA.session, "SetPasscode", [.string("12")], invalid),
                (GA.session, "SetPasscode", [.string(String(repeating: "7", count: 65))], invalid),
                (GA.session, "SetPasscode", [.string(mb)], invalid),
                (GA.session, "ExtendTimeLimit", [.uint64(.max)], GA.error("NotActive")),
                // Features
                (GA.features, "SetFeature", [.string("Teleport"), .bool(true)], GA.error("UnknownFeature")),
                (GA.features, "SetFeature", [.string(""), .bool(true)], GA.error("UnknownFeature")),
                (GA.features, "SetFeature", [.string("zoom"), .bool(true)], GA.error("UnknownFeature")),
                (GA.features, "SetFeature", [.string(mb), .bool(true)], GA.error("UnknownFeature")),
                (GA.features, "SetFeature", [.string("Zo\u{301}om"), .bool(true)], GA.error("UnknownFeature")),
                (GA.features, "ConfigureForGuidedAccess", [strings(["teleport"]), .bool(true)], GA.error("Failed")),
                // Restriction identifiers and texts
                (GA.restrictions, "Register", [declarations([("", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("ab", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("nodots", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com..example", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.exa mple.x", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.exämple.x", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.\u{1F6D2}", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example/x.y", "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com." + String(repeating: "a", count: 253), "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([(mb, "Text", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", "", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", " \t\n", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", "\u{3000}\u{2003}\u{A0}", "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", String(repeating: "a", count: 4000), "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", mb, "")])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", "Text", mb)])], invalid),
                (GA.restrictions, "Register", [declarations([("com.example.app.x", "Text", ""), ("com.example.app.y", "", "")])], invalid),
                (GA.restrictions, "GetState", [.string("")], invalid),
                (GA.restrictions, "GetState", [.string(mb)], invalid),
                (GA.restrictions, "IsAllowed", [.string("x")], invalid),
                (GA.restrictions, "IsAllowed", [.string("com.exämple.x")], invalid),
                (GA.restrictions, "SetState", [.string("not valid"), .string("deny")], invalid),
                (GA.restrictions, "SetState", [.string("com.example.app.kept"), .string("maybe")], invalid),
                (GA.restrictions, "SetState", [.string("com.example.app.kept"), .string("DENY")], invalid),
                (GA.restrictions, "SetState", [.string("com.example.app.kept"), .string(mb)], invalid),
                (GA.restrictions, "Reset", [strings(["com.example.app.kept", "bad"])], invalid),
                (GA.restrictions, "Unregister", [strings(["bad"])], invalid),
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
            _ = try await other.ga(GA.restrictions, "Register", [declarations([("com.example.app.odd", odd, odd)])])
            let row = try await client.list().first { $0.identifier == "com.example.app.odd" }
            #expect(row?.text == odd && row?.detail == odd)
            let busctl = try await h.busctl(getProperty(GA.restriction, "Text", path: GA.restrictionPath("com.example.app.odd")))
            #expect(busctl.ok, "\(busctl)")
        }
    }

    @Test("The 257th registration of one connection is QuotaExceeded; the daemon is still up and nothing changed",
          .enabled(if: Requirements.canRunDaemon, Requirements.daemonReason))
    func registrationQuota() async throws {
        try await withHarness { h in
            let client = try h.connect()
            let entries = (0..<256).map { ("com.example.quota.r\($0)", "Restriction \($0)", "") }
            let paths = try await client.ga(GA.restrictions, "Register", [declarations(entries)])
            guard case .array(_, let returned)? = paths.first else { Issue.record("Register gave \(paths)"); return }
            #expect(returned.count == 256)
            let before = try await Self.snapshot(client)

            #expect(await client.gaError(GA.restrictions, "Register", [declarations([("com.example.quota.r256", "One more", "")])])
                    == GA.error("QuotaExceeded"))
            // Same through python on its own connection: 257 in one call.
            let python = try await h.python("""
                bus = connect()
                r = iface(bus, RESTRICTIONS)
                many = dbus.Array([("com.example.python.r%d" % i, "R", "") for i in range(257)], signature="(sss)")
                done(result=attempt(r.Register, many), count=len(r.List()))
                """)
            #expect(python["result"] as? [String] == ["error", GA.error("QuotaExceeded")], "\(python.raw)")
            #expect(python["count"] as? Int == 256)

            #expect(try await client.ga("org.freedesktop.DBus.Peer", "Ping") == [])
            #expect(try await Self.snapshot(client) == before)
            // Another connection has its own quota.
            let other = try h.connect()
            #expect(await other.gaError(GA.restrictions, "Register", [declarations([("com.example.other.r0", "Other", "")])]) == nil)
        }
    }
}
