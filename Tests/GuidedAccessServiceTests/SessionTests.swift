// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// `org.guidedaccess.GuidedAccess1` driven through busctl, gdbus, dbus-send,
/// a python dbus client and DBusKit, against a real polkitd. Three minutes,
/// as the other suites with a real polkitd: under ThreadSanitizer a test's
/// 20-second time limit case ran past two (CI of 629b91b).
@Suite("Session interface", .timeLimit(.minutes(3)))
struct SessionTests {
    static func denyNobody(_ action: String) -> String {
        """
        polkit.addRule(function(action, subject) {
            if (action.id == "\(action)" && subject.user == "nobody") return polkit.Result.NO;
        });
        """
    }

    @Test("Start as an authorized user; every property, ExtendTimeLimit, SetFeature and End through several clients; audited",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func startExtendEnd() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            let status = try await client.gaSignals(.session, "StatusChanged")
            let featureChanges = try await client.gaSignals("org.freedesktop.DBus.Properties", "PropertiesChanged")

            #expect(try await h.busctl(getProperty(.session, "Version")).output == "u 1")
            #expect(try await h.busctl(getProperty(.session, "State")).output == #"s "inactive""#)
            #expect(try await h.busctl(getProperty(.session, "Enabled")).output == "b false")

            let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
            let start = try await h.gdbus(.session, "Start", [
                "'org.example.Kiosk'",
                "{'time-limit': <uint64 600>, 'system-restrictions': <{'touch': 'deny', 'volume-buttons': 'deny'}>, "
                    + "'disabled-regions': <[(0, 0, 100, 50)]>, 'restrictions': <{'com.example.app.purchase': 'deny'}>}",
            ])
            #expect(start.ok, "\(start)")
            #expect(start.output == "()")
            #expect(await next(status)?.arguments == [.bool(true)])

            let python = try await h.python("""
                bus = connect()
                props = iface(bus, PROPS)
                done(session=plain(props.GetAll(SESSION)))
                """)
            let session = try #require(python["session"] as? [String: Any], "\(python.raw)")
            #expect(session["Version"] as? Int == 1)
            #expect(session["Enabled"] as? Bool == true)
            #expect(session["State"] as? String == "active")
            #expect(session["App"] as? String == "org.example.Kiosk")
            #expect(session["TimeLimit"] as? Int == 600)
            let remaining = session["TimeRemaining"] as? Int ?? -1
            #expect((590...600).contains(remaining))
            let startedAt = UInt64(session["StartedAt"] as? Int ?? 0)
            #expect(startedAt >= before && startedAt < before + 30_000_000)
            let system = session["SystemRestrictions"] as? [String: String] ?? [:]
            #expect(Set(system.keys) == ["sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch",
                                         "notifications", "app-switching", "power-menu"])
            #expect(system["touch"] == "deny" && system["volume-buttons"] == "deny" && system["motion"] == "allow")
            #expect(session["DisabledRegions"] as? [[Int]] == [[0, 0, 100, 50]])
            #expect(session["PasscodeSet"] as? Bool == false)
            #expect(session["AllowedApplications"] as? [String] == [])
            #expect(try await client.ga(.restrictions, "GetState", [.string("com.example.app.purchase")]) == [.string("deny")])

            // A second Start is refused by name; the session is untouched.
            let again = try await h.gdbus(.session, "Start", ["'org.example.Other'", "{}"])
            #expect(again.errorName == ServiceErrorName.alreadyActive.rawValue, "\(again)")
            #expect(await client.gaError(.session, "Start", [.string("org.example.Other"), options([:])])
                    == ServiceErrorName.alreadyActive.rawValue)
            #expect(try await client.property(.session, "App") == .string("org.example.Kiosk"))

            // ExtendTimeLimit through busctl.
            let extend = try await h.busctlCall(.session, "ExtendTimeLimit", ["t", "60"])
            #expect(extend.ok, "\(extend)")
            #expect(try await h.busctl(getProperty(.session, "TimeLimit")).output == "t 660")

            // SetFeature through busctl; Features1 announces it.
            #expect(try await h.busctl(getProperty(.features, "Zoom")).output == "b false")
            let feature = try await h.busctlCall(.features, "SetFeature", ["sb", "Zoom", "true"])
            #expect(feature.ok, "\(feature)")
            #expect(try await h.busctl(getProperty(.features, "Zoom")).output == "b true")
            var sawZoom = false
            while let message = await next(featureChanges, timeout: .seconds(5)) {
                if message.arguments.first == .string(ServiceInterface.features.rawValue) { sawZoom = "\(message.arguments)".contains("Zoom"); break }
            }
            #expect(sawZoom)
            let sources = try await h.busctl(["--json=short"] + getProperty(.features, "Sources"))
            #expect(sources.stdout.contains("\"Zoom\""), "\(sources)")

            // End as root: authorized by polkit.
            let end = try await h.busctlCall(.session, "End", ["a{sv}", "0"])
            #expect(end.ok, "\(end)")
            #expect(await next(status)?.arguments == [.bool(false)])
            #expect(try await client.state() == "inactive")
            #expect(try await client.property(.session, "App") == .string(""))
            #expect(try await client.property(.session, "StartedAt") == .uint64(0))
            #expect(try await client.property(.session, "TimeLimit") == .uint64(0))

            // Nothing to end or extend now.
            #expect(try await h.gdbus(.session, "End", ["{}"]).errorName == ServiceErrorName.notActive.rawValue)
            #expect(await client.gaError(.session, "ExtendTimeLimit", [.uint64(5)]) == ServiceErrorName.notActive.rawValue)

            // Audit: one JSON line per admin action, naming action and result.
            let records = h.auditRecords()
            let started = records.first { $0["action"] as? String == "start-session" && $0["result"] as? String == "allowed" }
            #expect(started?["target"] as? String == "org.example.Kiosk")
            #expect((started?["caller"] as? [String: Any])?["uid"] as? Int == 0)
            #expect(records.contains { $0["action"] as? String == "end-session" && $0["result"] as? String == "allowed" })
            #expect(records.contains { $0["action"] as? String == "extend-time-limit" && $0["result"] as? String == "allowed" })
            #expect(records.contains { $0["action"] as? String == "set-feature" && $0["target"] as? String == "Zoom=true" })
            #expect(records.contains { $0["action"] as? String == "end-session" && $0["result"] as? String == "NotActive" })
        }
    }

    @Test("End is denied for an unauthorized user (daemon and client as nobody, polkit rule says no); other users are refused, reads included",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func endDeniedForNobody() async throws {
        try await withHarness(.init(polkit: .real(rules: Self.denyNobody("org.guidedaccess.end-session")), asNobody: true)) { h in
            // start-session is allow_any yes: nobody may start.
            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{}"], asNobody: true)
            #expect(start.ok, "\(start)")

            let python = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                done(plain=attempt(s.End, dbus.Dictionary({}, signature="sv")),
                     interactive=attempt(s.End, dbus.Dictionary({"interactive": True}, signature="sv")),
                     passcode=attempt(s.SetPasscode, "1234"),
                     state=plain(iface(bus, PROPS).Get(SESSION, "State")))
                """, asNobody: true)
            #expect(python["plain"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue], "\(python.raw)")
            #expect(python["interactive"] as? [String] == ["error", ServiceErrorName.permissionDenied.rawValue])
            // set-passcode has no rule: polkit would ask for a password, which the caller did not allow.
            #expect(python["passcode"] as? [String] == ["error", ErrorName.interactiveAuthorizationRequired.rawValue])
            #expect(python.string("state") == "active")

            // Root is another user than the daemon's: refused by name, even reading admin state.
            let asRoot = try await h.gdbus(.session, "End", ["{}"])
            #expect(asRoot.errorName == ServiceErrorName.permissionDenied.rawValue, "\(asRoot)")
            let client = try h.connect()
            #expect(await client.gaError(.session, "End", [options([:])]) == ServiceErrorName.permissionDenied.rawValue)
            #expect(await client.gaError(.restrictions, "List") == ServiceErrorName.permissionDenied.rawValue)
            // Reads too: Properties and ObjectManager answer only the daemon's user; Introspect stays open.
            let properties = InterfaceName.properties
            #expect(await client.gaError(properties, "Get", [.string(ServiceInterface.session.rawValue), .string("State")]) == ServiceErrorName.permissionDenied.rawValue)
            #expect(await client.gaError(properties, "GetAll", [.string(ServiceInterface.features.rawValue)]) == ServiceErrorName.permissionDenied.rawValue)
            #expect(await client.gaError("org.freedesktop.DBus.ObjectManager", "GetManagedObjects") == ServiceErrorName.permissionDenied.rawValue)
            #expect(await client.gaError("org.freedesktop.DBus.Introspectable", "Introspect") == nil)
            let busctlGet = try await h.busctl(getProperty(.session, "State"))
            #expect(!busctlGet.ok && busctlGet.stderr.contains("refuses calls from user 0"), "\(busctlGet)")

            let denied = h.auditRecords().filter { $0["action"] as? String == "end-session" && $0["result"] as? String == "denied" }
            #expect(denied.count >= 2)
            #expect((denied.first?["caller"] as? [String: Any])?["uid"] as? Int == 65534)
        }
    }

    @Test("End with the right passcode; wrong ones back off with RateLimited, even for the right one, until the delay passed",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func passcodeAndBackOff() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let set = try await h.gdbus(.session, "SetPasscode", ["'2468'"])
            #expect(set.ok, "\(set)")
            #expect(try await h.busctl(getProperty(.session, "PasscodeSet")).output == "b true")
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "org.example.Kiosk", "0"]).ok)

            let first = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                done(end=attempt(s.End, dbus.Dictionary({"passcode": "2468"}, signature="sv")),
                     state=plain(iface(bus, PROPS).Get(SESSION, "State")))
                """)
            #expect((first["end"] as? [Any])?.first as? String == "ok", "\(first.raw)")
            #expect(first.string("state") == "inactive")

            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "org.example.Kiosk", "0"]).ok)
            // polkit is not needed for passcodes: give the lock back to other tests.
            h.stopPolkit()
            let python = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                def end(code):
                    return attempt(s.End, dbus.Dictionary({"passcode": code}, signature="sv"))
                wrong = [end("0000"), end("1111"), end("9999")]
                locked_wrong = end("0000")
                locked_right = end("2468")
                done(wrong=wrong, locked_wrong=locked_wrong, locked_right=locked_right,
                     state=plain(iface(bus, PROPS).Get(SESSION, "State")))
                """)
            let wrong = python["wrong"] as? [[String]] ?? []
            #expect(wrong == Array(repeating: ["error", ServiceErrorName.permissionDenied.rawValue], count: 3), "\(python.raw)")
            #expect(python["locked_wrong"] as? [String] == ["error", ServiceErrorName.rateLimited.rawValue])
            #expect(python["locked_right"] as? [String] == ["error", ServiceErrorName.rateLimited.rawValue])
            #expect(python.string("state") == "active")
            let audit = h.auditRecords().filter { $0["action"] as? String == "end-session" && $0["target"] as? String == "passcode" }
            #expect(audit.filter { $0["result"] as? String == "denied" }.count == 5)

            // The first lock-out is 5 s; afterwards the right passcode works again.
            try await Task.sleep(for: .seconds(5.5))
            let client = try h.connect()
            #expect(await client.gaError(.session, "End", [options(["passcode": .string("2468")])]) == nil)
            #expect(try await client.state() == "inactive")
        }
    }

    @Test("RequestSession: an allow-listed app locks itself and may unlock; another app is refused when polkit says no",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func requestSession() async throws {
        let options = Harness.Options(polkit: .real(rules: Self.denyNobody("org.guidedaccess.request-session")),
                                      asNobody: true, allowedApplications: [Paths.pythonAppID])
        try await withHarness(options) { h in
            #expect(try await h.busctl(getProperty(.session, "AllowedApplications"), asNobody: true).output
                    == "as 1 \"\(Paths.pythonAppID)\"")
            // gdbus is not on the list and polkit refuses: false, nothing changes.
            let refused = try await h.gdbus(.session, "RequestSession", ["true", "{'reason': <'kiosk mode'>}"], asNobody: true)
            #expect(refused.output == "(false,)", "\(refused)")
            #expect(try await h.busctl(getProperty(.session, "State"), asNobody: true).output == #"s "inactive""#)

            let lock = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                granted = s.RequestSession(True, dbus.Dictionary({"reason": "exam"}, signature="sv"))
                props = iface(bus, PROPS)
                done(granted=bool(granted), state=str(props.Get(SESSION, "State")), app=str(props.Get(SESSION, "App")))
                """, asNobody: true)
            #expect(lock.bool("granted") == true, "\(lock.raw)")
            #expect(lock.string("state") == "active")
            #expect(lock.string("app") == Paths.pythonAppID)

            // The session belongs to python: gdbus can neither lock to itself nor end it.
            #expect(try await h.gdbus(.session, "RequestSession", ["true", "{}"], asNobody: true).output == "(false,)")
            #expect(try await h.gdbus(.session, "RequestSession", ["false", "{}"], asNobody: true).output == "(false,)")
            #expect(try await h.busctl(getProperty(.session, "App"), asNobody: true).output == "s \"\(Paths.pythonAppID)\"")

            let unlock = try await h.python("""
                bus = connect()
                granted = iface(bus, SESSION).RequestSession(False, dbus.Dictionary({}, signature="sv"))
                done(granted=bool(granted), state=str(iface(bus, PROPS).Get(SESSION, "State")))
                """, asNobody: true)
            #expect(unlock.bool("granted") == true, "\(unlock.raw)")
            #expect(unlock.string("state") == "inactive")

            let audit = h.auditRecords()
            #expect(audit.contains { $0["action"] as? String == "request-session" && $0["result"] as? String == "denied" })
            #expect(audit.contains { $0["action"] as? String == "request-session" && $0["result"] as? String == "allowed"
                && ($0["caller"] as? [String: Any])?["app"] as? String == Paths.pythonAppID })
        }
    }

    @Test("RequestSession without a rule: polkit would challenge, the caller did not allow interaction, so false",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func requestSessionChallengeIsNo() async throws {
        try await withHarness(.init(polkit: .real(), asNobody: true)) { h in
            let python = try await h.python("""
                bus = connect()
                granted = iface(bus, SESSION).RequestSession(True, dbus.Dictionary({}, signature="sv"))
                done(granted=bool(granted), state=str(iface(bus, PROPS).Get(SESSION, "State")))
                """, asNobody: true)
            #expect(python.bool("granted") == false, "\(python.raw)")
            #expect(python.string("state") == "inactive")
        }
    }

    @Test("ConfigureForGuidedAccess: Failed while inactive; the locked app may; another app without authority gets PermissionDenied",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func configureForGuidedAccess() async throws {
        try await withHarness(.init(polkit: .real(rules: Self.denyNobody("org.guidedaccess.configure-features")), asNobody: true)) { h in
            let inactive = try await h.python("""
                bus = connect()
                f = iface(bus, FEATURES)
                done(result=attempt(f.ConfigureForGuidedAccess, dbus.Array(["zoom"], signature="s"), True))
                """, asNobody: true)
            #expect(inactive["result"] as? [String] == ["error", ServiceErrorName.failed.rawValue], "\(inactive.raw)")

            // Lock the session to python (start-session is allow_any yes).
            #expect(try await h.gdbus(.session, "Start", ["'\(Paths.pythonAppID)'", "{}"], asNobody: true).ok)

            // gdbus is not the locked app and polkit refuses configure-features for nobody.
            let other = try await h.gdbus(.features, "ConfigureForGuidedAccess", ["['zoom']", "true"], asNobody: true)
            #expect(other.errorName == ServiceErrorName.permissionDenied.rawValue, "\(other)")
            let setFeature = try await h.gdbus(.features, "SetFeature", ["'Zoom'", "true"], asNobody: true)
            #expect(setFeature.errorName == ServiceErrorName.permissionDenied.rawValue, "\(setFeature)")

            let locked = try await h.python("""
                bus = connect()
                f = iface(bus, FEATURES)
                ok = attempt(f.ConfigureForGuidedAccess, dbus.Array(["zoom", "grayscale", "invert-colors"], signature="s"), True)
                unknown = attempt(f.ConfigureForGuidedAccess, dbus.Array(["teleport"], signature="s"), True)
                props = iface(bus, PROPS)
                done(ok=ok, unknown=unknown, zoom=bool(props.Get(FEATURES, "Zoom")),
                     grayscale=bool(props.Get(FEATURES, "Grayscale")), invert=bool(props.Get(FEATURES, "InvertColors")),
                     reader=bool(props.Get(FEATURES, "ScreenReader")))
                """, asNobody: true)
            #expect((locked["ok"] as? [Any])?.first as? String == "ok", "\(locked.raw)")
            #expect(locked["unknown"] as? [String] == ["error", ServiceErrorName.unknownFeature.rawValue])
            #expect(locked.bool("zoom") == true && locked.bool("grayscale") == true && locked.bool("invert") == true)
            #expect(locked.bool("reader") == false)
        }
    }

    @Test("Time limit: TimeLimitWarning(10) then TimeExpired; State becomes expired and Enabled stays true",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func timeLimitExpiry() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            let warnings = try await client.gaSignals(.session, "TimeLimitWarning")
            let expired = try await client.gaSignals(.session, "TimeExpired")
            let clock = ContinuousClock()
            let started = clock.now
            #expect(await client.gaError(.session, "Start", [.string("org.example.Kiosk"), options(["time-limit": .uint64(11)])]) == nil)
            h.stopPolkit()

            let warning = await next(warnings, timeout: .seconds(6))
            #expect(warning?.arguments == [.uint64(10)])
            #expect(clock.now - started < .seconds(5))
            let expiry = await next(expired, timeout: .seconds(15))
            #expect(expiry != nil)
            #expect(clock.now - started >= .seconds(10))
            #expect(try await client.state() == "expired")
            #expect(try await client.enabled() == true)
            #expect(try await client.property(.session, "TimeRemaining") == .uint64(0))
            #expect(try await h.busctl(getProperty(.session, "App")).output == #"s "org.example.Kiosk""#)
            // No other warning (300 s, 60 s) was due for an 11 s session.
            #expect(await collect(warnings, for: .milliseconds(300)).isEmpty)
        }
    }
}
