// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// `org.guidedaccess.Restrictions1` and the per-restriction objects.
@Suite("Custom restrictions", .timeLimit(.minutes(2)))
struct RestrictionTests {
    static let identifier = "com.example.shop.purchase"

    /// Registers `argv[1]`, waits for RestrictionChanged and the restriction
    /// object's PropertiesChanged (State=deny), prints what it saw, exits.
    static let registeringClient = """
        from gi.repository import GLib
        bus = connect(mainloop=True)
        ident = sys.argv[1]
        events = {"restriction_changed": [], "properties_changed": []}
        loop = GLib.MainLoop()
        def check():
            props = [p for p in events["properties_changed"] if p["interface"] == RESTRICTION
                     and (p["changed"].get("State") == "deny" or "State" in p["invalidated"])]
            if events["restriction_changed"] and props:
                loop.quit()
        def on_changed(identifier, state):
            events["restriction_changed"].append([str(identifier), str(state)])
            check()
        def on_props(interface, changed, invalidated, path=None):
            events["properties_changed"].append({"interface": str(interface), "path": str(path),
                                                 "changed": plain(changed), "invalidated": plain(invalidated)})
            check()
        bus.add_signal_receiver(on_changed, "RestrictionChanged", RESTRICTIONS, None, PATH)
        bus.add_signal_receiver(on_props, "PropertiesChanged", PROPS, None, None, path_keyword="path")
        r = iface(bus, RESTRICTIONS)
        events["paths"] = plain(r.Register(dbus.Array([(ident, "Buy things", "Lets the shop take payments")], signature="(sss)")))
        GLib.timeout_add_seconds(15, loop.quit)
        loop.run()
        done(**events)
        """

    @Test("Register (python), SetState deny (busctl), registrant hears RestrictionChanged and PropertiesChanged; exit keeps state with Registered=false; re-register sees deny; GetState/IsAllowed semantics",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func registerDenyNotifyReregister() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            let id = Self.identifier
            let path = try #require(ObjectPath.restriction(id)).rawValue
            async let registrant = h.python(Self.registeringClient, [id])
            #expect(await eventually { (try? await client.list())?.contains { $0.identifier == id && $0.registered } == true })

            let setState = try await h.busctlCall(.restrictions, "SetState", ["ss", id, "deny"])
            #expect(setState.ok, "\(setState)")
            let heard = try await registrant
            #expect(heard["paths"] as? [String] == [path], "\(heard.raw)")
            #expect(heard["restriction_changed"] as? [[String]] == [[id, "deny"]])
            let propertyChanges = heard["properties_changed"] as? [[String: Any]] ?? []
            #expect(propertyChanges.contains { $0["path"] as? String == path && $0["interface"] as? String == ServiceInterface.restriction.rawValue })

            // The registrant exited: unregistered, state kept.
            #expect(await eventually {
                (try? await client.property(.restriction, "Registered", path: path)) == .bool(false)
            })
            #expect(try await h.busctl(getProperty(.restriction, "State", path: path)).output == #"s "deny""#)
            let row = try #require(try await client.list().first { $0.identifier == id })
            #expect(row == ListRow(identifier: id, text: "Buy things", detail: "Lets the shop take payments", state: "deny",
                                   app: Paths.pythonAppID, registered: false))
            #expect(try await h.gdbus(.restrictions, "GetState", ["'\(id)'"]).output == "('deny',)")
            #expect(try await h.busctlCall(.restrictions, "GetState", ["s", "com.example.never.registered"]).output == #"s "allow""#)

            // A new registrant sees the kept state; deny without a session still allows.
            let again = try await h.python("""
                bus = connect()
                r = iface(bus, RESTRICTIONS)
                paths = plain(r.Register(dbus.Array([(sys.argv[1], "Buy things", "Lets the shop take payments")], signature="(sss)")))
                props = iface(bus, PROPS, path=paths[0])
                done(paths=paths, state=str(r.GetState(sys.argv[1])), allowed=bool(r.IsAllowed(sys.argv[1])),
                     object=plain(props.GetAll(RESTRICTION)))
                """, [id])
            #expect(again.string("state") == "deny", "\(again.raw)")
            #expect(again.bool("allowed") == true)
            let object = again["object"] as? [String: Any] ?? [:]
            #expect(object["Identifier"] as? String == id && object["State"] as? String == "deny")
            #expect(object["Registered"] as? Bool == true && object["App"] as? String == Paths.pythonAppID)
            #expect(object["Text"] as? String == "Buy things" && object["DetailText"] as? String == "Lets the shop take payments")

            // With a session: deny means not allowed; unknown identifiers stay allowed.
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "org.example.Shop", "0"]).ok)
            let isAllowed = try await h.dbusSend(.restrictions, "IsAllowed", ["string:\(id)"])
            #expect(isAllowed.stdout.contains("boolean false"), "\(isAllowed)")
            #expect(try await client.ga(.restrictions, "IsAllowed", [.string("com.example.never.registered")]) == [.bool(true)])
            #expect(try await client.ga(.restrictions, "GetState", [.string(id)]) == [.string("deny")])

            // Loosening during a session: root has end-session authority.
            let changes = try await client.gaSignals(.restrictions, "RestrictionChanged")
            #expect(try await h.busctlCall(.restrictions, "SetState", ["ss", id, "allow"]).ok)
            #expect(await next(changes)?.arguments == [.string(id), .string("allow")])
            #expect(try await client.ga(.restrictions, "IsAllowed", [.string(id)]) == [.bool(true)])
            #expect(try await h.busctlCall(.restrictions, "SetState", ["ss", id, "deny"]).ok)
            #expect(await next(changes)?.arguments == [.string(id), .string("deny")])
            let reset = try await h.gdbus(.restrictions, "Reset", ["@as []"])
            #expect(reset.ok, "\(reset)")
            #expect(await next(changes)?.arguments == [.string(id), .string("allow")])
            #expect(try await client.ga(.restrictions, "GetState", [.string(id)]) == [.string("allow")])
            #expect(try await h.busctlCall(.session, "End", ["a{sv}", "0"]).ok)

            // ObjectManager announces restriction objects.
            let managed = try await client.ga("org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
            #expect("\(managed)".contains(path))

            let audit = h.auditRecords()
            #expect(audit.contains { $0["action"] as? String == "set-restriction" && $0["target"] as? String == "\(id)=deny"
                && $0["result"] as? String == "allowed" })
            #expect(audit.contains { $0["action"] as? String == "reset-restrictions" && $0["result"] as? String == "allowed" })
        }
    }

    @Test("Unregister only by the registering connection; List reflects it; no polkit needed for Register/List/GetState",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func unregisterOnlyByOwner() async throws {
        try await withHarness(.init(polkit: .absent)) { h in
            let owner = try h.connect()
            let other = try h.connect()
            let paths = try await owner.ga(.restrictions, "Register", [declarations([
                ("com.example.shop.refund", "Refunds", "Lets the shop give money back"),
                ("com.example.shop.chat", "Chat", ""),
            ])])
            #expect(paths == [.array(element: "o", [
                .objectPath(try #require(ObjectPath.restriction("com.example.shop.refund"))),
                .objectPath(try #require(ObjectPath.restriction("com.example.shop.chat"))),
            ])])
            #expect(await other.gaError(.restrictions, "Unregister", [strings(["com.example.shop.refund"])]) == ServiceErrorName.notOwner.rawValue)
            #expect(await other.gaError(.restrictions, "Unregister", [strings(["com.example.shop.unknown"])]) == ServiceErrorName.invalidArgument.rawValue)
            let unregister = try await h.python("""
                bus = connect()
                done(result=attempt(iface(bus, RESTRICTIONS).Unregister, dbus.Array(["com.example.shop.chat"], signature="s")))
                """)
            #expect(unregister["result"] as? [String] == ["error", ServiceErrorName.notOwner.rawValue], "\(unregister.raw)")
            #expect(await owner.gaError(.restrictions, "Unregister", [strings(["com.example.shop.refund"])]) == nil)
            let rows = try await other.list()
            #expect(rows.first { $0.identifier == "com.example.shop.refund" }?.registered == false)
            #expect(rows.first { $0.identifier == "com.example.shop.chat" }?.registered == true)
            let list = try await h.busctlCall(.restrictions, "List")
            #expect(list.output.hasPrefix("a(sssssb) 2"), "\(list)")

            // SetState is an admin action: without polkit it is refused.
            #expect(await other.gaError(.restrictions, "SetState", [.string("com.example.shop.chat"), .string("deny")])
                    == ServiceErrorName.permissionDenied.rawValue)
            #expect(try await other.ga(.restrictions, "GetState", [.string("com.example.shop.chat")]) == [.string("allow")])
        }
    }
}
