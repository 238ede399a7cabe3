// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// Flatpak apps as `flatpak run` sandboxes them (``FlatpakSandbox``: the
/// app in bubblewrap, its bus filtered by `xdg-dbus-proxy` in a bubblewrap
/// holding its `/.flatpak-info`), against the daemon. Each check runs beside
/// its control: the same call without the sandbox, or without the setting.
@Suite("Flatpak apps in a real sandbox", .timeLimit(.minutes(3)))
struct FlatpakSandboxTests {
    static let notes = "org.example.Notes"
    static let notesApp = Project.root.appendingPathComponent("Examples/python/notes_app.py")
    static let notesRestrictions = ["org.example.notes.delete", "org.example.notes.share"]

    /// A desktop user whose polkit rules say yes to every action of ours.
    static let grantNobody = """
        polkit.addRule(function(action, subject) {
            if (action.id.indexOf("org.guidedaccess.") == 0 && subject.user == "nobody") return polkit.Result.YES;
        });
        """

    @Test("The Python notes example in a sandbox: its restrictions are recorded under its Flatpak id, and it hears the service's signals; outside the sandbox the same app is its executable",
          .enabled(if: Requirements.canRunSandbox, .sandboxReason))
    func notesAppIsItsFlatpakID() async throws {
        // An allow-listed app outside locks the session; the notes app prints "guided access: on" and exits.
        try await withHarness(.init(allowedApplications: [Paths.pythonAppID])) { h in
            let client = try h.connect()
            try await withSandbox(Self.notes, files: [Self.notesApp], in: h) { sandbox in
                async let ran = sandbox.run([Paths.python, "/app/notes_app.py", "--events", "1"])
                let recorded = try await eventually(timeout: .seconds(20)) {
                    try await client.list().filter { Self.notesRestrictions.contains($0.identifier) && $0.registered }.count == 2
                }
                #expect(recorded)
                #expect(try await client.list().filter { Self.notesRestrictions.contains($0.identifier) }.map(\.app)
                        == [Self.notes, Self.notes])
                let lock = try await h.python("""
                    done(granted=bool(iface(connect(), SESSION).RequestSession(True, dbus.Dictionary({}, signature="sv"))))
                    """)
                #expect(lock.bool("granted") == true, "\(lock.raw)")
                let result = try await ran
                #expect(result.status == 0, "\(result)")
                #expect(result.stdout.split(separator: "\n").map(String.init) == [
                    "registered 2 restrictions",
                    "restriction org.example.notes.share: allow", "restriction org.example.notes.delete: allow",
                    "feature ReduceMotion: off", "feature BoldText: off", "guided access: off", "guided access: on",
                ], "\(result)")
            }
            // Control: the same app on the bus directly is the python executable.
            #expect(try await eventually { try await client.list().allSatisfy { !$0.registered } })
            async let outside = h.run([Paths.python, Self.notesApp.path, "--address", h.address, "--events", "1"])
            let recordedOutside = try await eventually(timeout: .seconds(20)) {
                try await client.list().filter { Self.notesRestrictions.contains($0.identifier) && $0.registered }.count == 2
            }
            #expect(recordedOutside)
            #expect(try await client.list().filter { Self.notesRestrictions.contains($0.identifier) }.map(\.app)
                    == [Paths.pythonAppID, Paths.pythonAppID])
            _ = try await h.python("""
                done(granted=bool(iface(connect(), SESSION).RequestSession(False, dbus.Dictionary({}, signature="sv"))))
                """)
            #expect(try await outside.status == 0)
        }
    }

    @Test("A sandbox without --talk-name=org.guidedaccess.GuidedAccess1 cannot reach the service; with it, it can",
          .enabled(if: Requirements.canRunSandbox, .sandboxReason))
    func talkNameIsNeeded() async throws {
        let probe = """
            bus = connect()
            call = lambda: bus.call_blocking(NAME, PATH, RESTRICTIONS, "GetState", "s", ["org.example.notes.share"])
            done(owned=bool(bus.name_has_owner(NAME)), state=outcome(call))
            """
        try await withHarness { h in
            let without = try await withSandbox(Self.notes, talkName: nil, in: h) { try await $0.python(probe) }
            #expect(without.bool("owned") == false, "\(without.raw)")
            #expect((without["state"] as? [String])?.first == ErrorName.serviceUnknown.rawValue, "\(without.raw)")

            let with = try await withSandbox(Self.notes, in: h) { try await $0.python(probe) }
            #expect(with.bool("owned") == true, "\(with.raw)")
            #expect(with["state"] as? [String] == ["ok", "allow"], "\(with.raw)")
        }
    }

    @Test("A sandboxed app can neither unregister nor take over another app's restriction, which stays the other app's; its own it registers and unregisters",
          .enabled(if: Requirements.canRunSandbox, .sandboxReason))
    func anotherAppsRegistrationIsNotItsOwn() async throws {
        try await withHarness { h in
            let other = try h.connect()
            _ = try await other.ga(.restrictions, "Register", [declarations([("org.example.other.share", "Sharing", "Other's")])])
            let otherApp = try #require(try await other.list().first { $0.identifier == "org.example.other.share" }?.app)
            #expect(otherApp != Self.notes)

            let sandboxed = try await withSandbox(Self.notes, in: h) { sandbox in
                try await sandbox.python("""
                    bus = connect()
                    r = iface(bus, RESTRICTIONS)
                    theirs = [("org.example.other.share", "Sharing", "Mine now")]
                    mine = [("org.example.notes.share", "Sharing", "Sending notes")]
                    done(unregister=outcome(r.Unregister, ["org.example.other.share"]),
                         register=outcome(r.Register, dbus.Array(theirs, signature="(sss)")),
                         listed=["|".join(map(str, row)) for row in plain(r.List()) if row[0] == "org.example.other.share"],
                         registerOwn=outcome(r.Register, dbus.Array(mine, signature="(sss)")),
                         listedOwn=["|".join(map(str, row)) for row in plain(r.List()) if row[0] == "org.example.notes.share"],
                         unregisterOwn=outcome(r.Unregister, ["org.example.notes.share"]))
                    """)
            }
            #expect((sandboxed["unregister"] as? [String])?.first == ServiceErrorName.notOwner.rawValue, "\(sandboxed.raw)")
            #expect((sandboxed["register"] as? [String])?.first == ServiceErrorName.notOwner.rawValue, "\(sandboxed.raw)")
            #expect(sandboxed["listed"] as? [String] == ["org.example.other.share|Sharing|Other's|allow|\(otherApp)|True"],
                    "\(sandboxed.raw)")
            // Control: its own restriction is its own.
            #expect((sandboxed["registerOwn"] as? [Any])?.first as? String == "ok", "\(sandboxed.raw)")
            #expect(sandboxed["listedOwn"] as? [String] == ["org.example.notes.share|Sharing|Sending notes|allow|\(Self.notes)|True"],
                    "\(sandboxed.raw)")
            #expect((sandboxed["unregisterOwn"] as? [Any])?.first as? String == "ok", "\(sandboxed.raw)")
            // Control: the registrant itself may unregister.
            #expect(await other.gaError(.restrictions, "Unregister", [strings(["org.example.other.share"])]) == nil)
        }
    }

    @Test("RequestSession from a sandbox: granted when AllowedApplications lists its Flatpak id, refused when not, though polkit says yes; outside, polkit's yes is enough",
          .enabled(if: Requirements.canRunSandboxWithPolkit, .sandboxPolkitReason))
    func requestSessionNeedsTheAllowList() async throws {
        // The proxy's executable is listed too: it is not the app, so it must not count.
        let options = Harness.Options(polkit: .real(rules: Self.grantNobody), asNobody: true,
                                      allowedApplications: [Self.notes, "/usr/bin/xdg-dbus-proxy"])
        let lockAndUnlock = """
            bus = connect()
            s = iface(bus, SESSION)
            props = iface(bus, PROPS)
            locked = bool(s.RequestSession(True, dbus.Dictionary({}, signature="sv")))
            state, app = str(props.Get(SESSION, "State")), str(props.Get(SESSION, "App"))
            unlocked = bool(s.RequestSession(False, dbus.Dictionary({}, signature="sv")))
            done(locked=locked, state=state, app=app, unlocked=unlocked, after=str(props.Get(SESSION, "State")))
            """
        try await withHarness(options) { h in
            let listed = try await withSandbox(Self.notes, in: h) { try await $0.python(lockAndUnlock) }
            #expect(listed.bool("locked") == true, "\(listed.raw)")
            #expect(listed.string("state") == "active")
            #expect(listed.string("app") == Self.notes)
            #expect(listed.bool("unlocked") == true)
            #expect(listed.string("after") == "inactive")

            let unlisted = try await withSandbox("org.example.Unlisted", in: h) { try await $0.python(lockAndUnlock) }
            #expect(unlisted.bool("locked") == false, "\(unlisted.raw)")
            #expect(unlisted.string("state") == "inactive")
            #expect(h.auditRecords().contains { $0["action"] as? String == "request-session" && $0["result"] as? String == "denied"
                && ($0["caller"] as? [String: Any])?["app"] as? String == "org.example.Unlisted" })

            // Control: an unlisted app outside a sandbox is granted by polkit's yes.
            let outside = try await h.python(lockAndUnlock, asNobody: true)
            #expect(outside.bool("locked") == true, "\(outside.raw)")
            #expect(outside.string("app") == Paths.pythonAppID)
        }
    }

    @Test("A sandboxed app is refused every administrator action though polkit says yes, and told why; the same calls succeed outside; the passcode still ends a session; as the locked app it may ConfigureForGuidedAccess",
          .enabled(if: Requirements.canRunSandboxWithPolkit, .sandboxPolkitReason))
    func sandboxedAppIsNoAdministrator() async throws {
        try await withHarness(.init(polkit: .real(rules: Self.grantNobody), asNobody: true)) { h in
            // Settings and Start while no session runs; End and ExtendTimeLimit once one does.
            let settings = ["setPasscode", "setFeature", "setState", "reset", "start"], session = ["extend", "end"]
            let message = "sandboxed apps (\(Self.notes)) cannot act as an administrator"
            let refused = try await withSandbox(Self.notes, in: h) { try await $0.python(Self.adminCalls(settings)) }
            #expect(refused.bool("passcodeSet") == false && refused.string("state") == "inactive", "\(refused.raw)")

            // Control: the same calls outside the sandbox, leaving a session locked to the app.
            let outside = try await h.python(Self.adminCalls(Self.everyAdminCall), asNobody: true)
            for call in Self.everyAdminCall {
                #expect((outside[call] as? [Any])?.first as? String == "ok", "\(call): \(outside.raw)")
            }
            #expect(outside.bool("passcodeSet") == true && outside.string("state") == "active", "\(outside.raw)")

            let refusedInSession = try await withSandbox(Self.notes, in: h) { try await $0.python(Self.adminCalls(session)) }
            #expect(refusedInSession.string("state") == "active", "\(refusedInSession.raw)")
            for (call, result) in settings.map({ ($0, refused) }) + session.map({ ($0, refusedInSession) }) {
                let outcome = result[call] as? [String]
                #expect(outcome?.first == ServiceErrorName.permissionDenied.rawValue, "\(call): \(result.raw)")
                #expect(outcome?.last?.contains(message) == true, "\(call): \(result.raw)")
                #expect(outcome?.last?.contains("AdminApplications in \(h.managedConfig.path)") == true, "\(call): \(result.raw)")
            }
            #expect(h.auditRecords().contains { $0["action"] as? String == "set-passcode" && $0["result"] as? String == "denied"
                && ($0["caller"] as? [String: Any])?["app"] as? String == Self.notes })

            // What a sandboxed app may still do: configure features as the locked app, end with the passcode.
            let own = try await withSandbox(Self.notes, in: h) { sandbox in
                try await sandbox.python("""
                    bus = connect()
                    done(configure=outcome(iface(bus, FEATURES).ConfigureForGuidedAccess, ["zoom"], True),
                         end=outcome(iface(bus, SESSION).End, dbus.Dictionary({"passcode": "1234"}, signature="sv")),
                         state=str(iface(bus, PROPS).Get(SESSION, "State")))
                    """)
            }
            #expect((own["configure"] as? [Any])?.first as? String == "ok", "\(own.raw)")
            #expect((own["end"] as? [Any])?.first as? String == "ok", "\(own.raw)")
            #expect(own.string("state") == "inactive")
        }
    }

    @Test("AdminApplications lifts the refusal for the sandboxed app it names: polkit decides again",
          .enabled(if: Requirements.canRunSandboxWithPolkit, .sandboxPolkitReason))
    func adminApplicationsLiftsTheRefusal() async throws {
        let options = Harness.Options(polkit: .real(rules: Self.grantNobody), asNobody: true, adminApplications: [Self.notes])
        try await withHarness(options) { h in
            let listed = try await withSandbox(Self.notes, in: h) { try await $0.python(Self.adminCalls(Self.everyAdminCall)) }
            for call in Self.everyAdminCall {
                #expect((listed[call] as? [Any])?.first as? String == "ok", "\(call): \(listed.raw)")
            }
            #expect(listed.bool("passcodeSet") == true && listed.string("state") == "active", "\(listed.raw)")

            // Control: another sandboxed app is still refused.
            let other = try await withSandbox("org.example.Other", in: h) { try await $0.python(Self.adminCalls(["setPasscode"])) }
            #expect((other["setPasscode"] as? [String])?.first == ServiceErrorName.permissionDenied.rawValue, "\(other.raw)")
        }
    }

    /// Every admin call, in an order that succeeds for an administrator:
    /// settings, a session for the notes app (with a time limit to extend)
    /// that `End` ends, and a second `Start` that leaves one running.
    static let everyAdminCall = ["setPasscode", "setFeature", "setState", "reset", "start", "extend", "end", "startAgain"]

    /// A script making the named calls (of ``everyAdminCall``) in order,
    /// each result as `outcome` gives it, then `PasscodeSet` and `State`.
    static func adminCalls(_ names: [String]) -> String {
        """
        bus = connect()
        s = iface(bus, SESSION)
        r = iface(bus, RESTRICTIONS)
        props = iface(bus, PROPS)
        start = lambda: s.Start("\(notes)", dbus.Dictionary({"time-limit": dbus.UInt64(600)}, signature="sv"))
        calls = dict(setPasscode=lambda: s.SetPasscode("1234"),
                     setFeature=lambda: iface(bus, FEATURES).SetFeature("Zoom", True),
                     setState=lambda: r.SetState("org.example.notes.share", "deny"),
                     reset=lambda: r.Reset(dbus.Array([], signature="s")),
                     start=start,
                     extend=lambda: s.ExtendTimeLimit(dbus.UInt64(60)),
                     end=lambda: s.End(dbus.Dictionary({}, signature="sv")),
                     startAgain=start)
        result = {name: outcome(calls[name]) for name in \(names)}
        done(passcodeSet=bool(props.Get(SESSION, "PasscodeSet")), state=str(props.Get(SESSION, "State")), **result)
        """
    }
}
