// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// Assessment mode on the daemon's side: who may begin one, what it locks
/// and switches off, who ends it, and when it is interrupted. Against the
/// real daemon and the file an administrator writes.
@Suite("Assessment mode", .timeLimit(.minutes(3)))
struct AssessmentTests {
    static let begin = """
        bus = connect()
        s = iface(bus, SESSION)
        s.BeginAssessment(dbus.Dictionary({"participants": dbus.Array(["org.example.Calculator"], signature="s"),
            "time-limit": dbus.UInt64(600)}, signature="sv"))
        p = iface(bus, PROPS)
        done(mode=str(p.Get(SESSION, "Mode")), app=str(p.Get(SESSION, "App")), also=[str(a) for a in p.Get(SESSION, "AlsoAllowed")],
             notifications=str(p.Get(SESSION, "SystemRestrictions")["notifications"]),
             assessment=plain(p.Get(SESSION, "Assessment")))
        """

    @Test("an exam app managed.json lists begins an assessment: locked to it and its participants, notifications off; another app is refused; bad keys are named; the passcode, RequestSession and another app's EndAssessment without authority do not end it; an enforcer leaving interrupts it; EndAssessment ends it")
    func assessment() async throws {
        try await withHarness(.init(startDaemon: false)) { h in
            try h.writeManagedConfig(["AssessmentApplications": [Paths.pythonAppID]])
            try await h.startDaemon()
            let observer = try h.connect()
            let began = try await observer.gaSignals(.session, "AssessmentBegan")
            let interrupted = try await observer.gaSignals(.session, "AssessmentInterrupted")
            let ended = try await observer.gaSignals(.session, "AssessmentEnded")

            // Not listed: refused, nothing locked. Bad configurations name the key.
            #expect(await observer.gaError(.session, "BeginAssessment", [options([:])]) == ServiceErrorName.permissionDenied.rawValue)
            #expect(try await !observer.enabled())
            for (bad, key) in [(["allow-everything": DBusValue.bool(true)], "allow-everything"),
                               (["allows-clipboard": .string("yes")], "allows-clipboard"),
                               (["participants": .array(element: "s", [.string("relative/calc")])], "participants")] {
                do {
                    _ = try await observer.ga(.session, "BeginAssessment", [options(bad)])
                    Issue.record("\(bad) was accepted")
                } catch let error as DBusError {
                    #expect(error.name.rawValue == ServiceErrorName.invalidArgument.rawValue && error.message.contains(key), "\(error)")
                }
            }

            let exam = try await h.python(Self.begin)
            #expect(exam.string("mode") == "assessment" && exam.string("app") == Paths.pythonAppID, "\(exam.raw)")
            #expect(exam.values["also"] as? [String] == ["org.example.Calculator"])
            #expect(exam.string("notifications") == "deny", "notifications are off unless allowed")
            let configuration = try #require(exam.values["assessment"] as? [String: Any])
            #expect(configuration["allows-screen-capture"] as? Bool == false && configuration["keep-accessibility"] as? Bool == true)
            #expect(configuration["time-limit"] as? Int == 600)
            #expect(await next(began, timeout: .seconds(2)) != nil, "AssessmentBegan")

            // The ways out of a person's session are not this one's.
            do {
                _ = try await observer.ga(.session, "End", [options(["passcode": .string("1234")])])
                Issue.record("the passcode ended an assessment")
            } catch let error as DBusError {
                #expect(error.name.rawValue == ServiceErrorName.permissionDenied.rawValue && error.message.contains("EndAssessment"))
            }
            let request = try await h.python("""
                bus = connect()
                try:
                    iface(bus, SESSION).RequestSession(False, dbus.Dictionary({}, signature="sv"))
                    done(error="")
                except dbus.exceptions.DBusException as e:
                    done(error=e.get_dbus_name())
                """)
            #expect(request.string("error") == ServiceErrorName.permissionDenied.rawValue, "\(request.raw)")
            // Another app needs end-session authority, which nobody has here (no polkit).
            #expect(await observer.gaError(.session, "EndAssessment") == ServiceErrorName.permissionDenied.rawValue,
                    "another app without authority cannot end it")
            #expect(try await observer.property(.session, "Mode", as: String.self) == "assessment")

            // An enforcer that kept it leaves: interrupted, still locked.
            let shell = try h.connect()
            _ = try await shell.ga(.session, "RegisterEnforcer", [.string("test-shell"), .array(element: "s", [.string("app-lock"), .string("assessment")])])
            shell.close()
            let reason = await next(interrupted, timeout: .seconds(2))?.arguments.first
            #expect(reason.map { "\($0)".contains("test-shell") } == true, "\(String(describing: reason))")
            #expect(try await observer.enabled())

            let end = try await h.python("""
                bus = connect()
                iface(bus, SESSION).EndAssessment()
                done(mode=str(iface(bus, PROPS).Get(SESSION, "Mode")))
                """)
            #expect(end.string("mode") == "", "\(end.raw)")
            #expect(await next(ended, timeout: .seconds(2)) != nil, "AssessmentEnded")
            #expect(try await observer.property(.session, "SystemRestrictions", as: [String: String].self)["notifications"] == "allow")
            let actions = h.auditRecords().compactMap { $0["action"] as? String }
            #expect(actions.contains("begin-assessment") && actions.contains("end-assessment"))
        }
    }

    @Test("EndAssessment from an administrator (end-session authority through the real polkit) interrupts the assessment, then ends it, as End does; audited")
    func endAssessmentByAdministrator() async throws {
        try await withHarness(.init(polkit: .real(), startDaemon: false)) { h in
            try h.writeManagedConfig(["AssessmentApplications": [Paths.pythonAppID]])
            try await h.startDaemon()
            let administrator = try h.connect()  // root: polkit authorizes it
            let interrupted = try await administrator.gaSignals(.session, "AssessmentInterrupted")
            let ended = try await administrator.gaSignals(.session, "AssessmentEnded")
            // Control: without an assessment there is nothing to end.
            #expect(await administrator.gaError(.session, "EndAssessment") == ServiceErrorName.notActive.rawValue)
            let exam = try await h.python("""
                bus = connect()
                iface(bus, SESSION).BeginAssessment(dbus.Dictionary({}, signature="sv"))
                done(mode=str(iface(bus, PROPS).Get(SESSION, "Mode")))
                """)
            #expect(exam.string("mode") == "assessment", "\(exam.raw)")
            _ = try await administrator.ga(.session, "EndAssessment")
            let reason = await next(interrupted, timeout: .seconds(2))?.arguments.first
            #expect(reason.map { "\($0)".contains("an administrator ended the assessment") } == true, "\(String(describing: reason))")
            #expect(await next(ended, timeout: .seconds(2)) != nil, "AssessmentEnded")
            #expect(try await !administrator.enabled())
            let record = h.auditRecords().last { $0["action"] as? String == "end-assessment" }
            #expect(record?["result"] as? String == "allowed", "\(String(describing: record))")
        }
    }

    @Test("an enforcer registering again without screen-capture interrupts an assessment that denies capture; dropping clipboard where it is allowed does not")
    func enforcerDropsCapability() async throws {
        try await withHarness(.init(startDaemon: false)) { h in
            try h.writeManagedConfig(["AssessmentApplications": [Paths.pythonAppID]])
            try await h.startDaemon()
            let observer = try h.connect()
            // Two streams: one given up after its timeout is over.
            let interruptedEarly = try await observer.gaSignals(.session, "AssessmentInterrupted")
            let interrupted = try await observer.gaSignals(.session, "AssessmentInterrupted")
            let shell = try h.connect()
            func register(_ capabilities: [String]) async throws {
                _ = try await shell.ga(.session, "RegisterEnforcer",
                                       [.string("test-shell"), .array(element: "s", capabilities.map(DBusValue.string))])
            }
            try await register(["app-lock", "assessment", "screen-capture", "clipboard"])
            let exam = try await h.python("""
                bus = connect()
                iface(bus, SESSION).BeginAssessment(dbus.Dictionary({"allows-clipboard": True}, signature="sv"))
                done(mode=str(iface(bus, PROPS).Get(SESSION, "Mode")))
                """)
            #expect(exam.string("mode") == "assessment", "\(exam.raw)")

            // Control: the clipboard is allowed, so no longer keeping it interrupts nothing.
            try await register(["app-lock", "assessment", "screen-capture"])
            #expect(await next(interruptedEarly, timeout: .milliseconds(500)) == nil, "dropping an allowed clipboard interrupted it")

            // Capture is denied: an enforcer that can no longer stop it interrupts it; the lock stays.
            try await register(["app-lock", "assessment"])
            let reason = await next(interrupted, timeout: .seconds(2))?.arguments.first
            #expect(reason.map { "\($0)".contains("test-shell") && "\($0)".contains("screen capture") } == true,
                    "\(String(describing: reason))")
            #expect(try await observer.enabled())
            #expect(try await observer.property(.session, "Mode", as: String.self) == "assessment")
            shell.close()
        }
    }
}
