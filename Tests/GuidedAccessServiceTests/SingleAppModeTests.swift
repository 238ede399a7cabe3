// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The administrator's Single App Mode and accessibility inside a session,
/// against the real daemon, real dconf and the file an administrator edits.
@Suite("Single App Mode and accessibility inside a session", .timeLimit(.minutes(3)))
struct SingleAppModeTests {
    static let magnifier = ("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled")
    static let screenReader = ("org.gnome.desktop.a11y.applications", "screen-reader-enabled")

    static func singleApp(_ app: String, _ options: [String: Any] = [:]) -> [String: Any] {
        ["SingleAppMode": ["App": app, "Options": options]]
    }

    @Test("managed.json's SingleAppMode: locked when the daemon starts, no call made; End and the passcode refused naming the file; an edit moves the lock, a typo keeps it, removing the key ends it and puts Zoom back")
    func singleAppMode() async throws {
        try await withHarness(.init(startDaemon: false)) { h in
            try h.writeManagedConfig(Self.singleApp("org.example.Kiosk", [
                "also-allowed": ["org.example.Calculator"], "features": ["Zoom": true],
                "accessibility-shortcut": ["ScreenReader", "Zoom"],
            ]))
            try await h.startDaemon()
            let client = try h.connect()
            #expect(try await client.enabled(), "locked from the start, nobody called Start")
            #expect(try await client.property(.session, "Mode") == .string("single-app"))
            #expect(try await client.property(.session, "App") == .string("org.example.Kiosk"))
            #expect(try await client.property(.session, "AlsoAllowed", as: [String].self) == ["org.example.Calculator"])
            #expect(try await client.property(.session, "AccessibilityShortcut", as: [String].self) == ["ScreenReader", "Zoom"])
            #expect(try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "true", "the session's features are set")

            // Nobody ends it: not the passcode, not an administrator.
            for endOptions in [["passcode": DBusValue.string("1234")], [:]] {
                do {
                    _ = try await client.ga(.session, "End", [options(endOptions)])
                    Issue.record("End \(endOptions) ended a managed session")
                } catch let error as DBusError {
                    #expect(error.name.rawValue == ServiceErrorName.permissionDenied.rawValue)
                    #expect(error.message.contains("managed.json"), "\(error.message)")
                }
            }
            #expect(try await client.enabled())

            // Each edit moves the lock (how long it takes: scripts/bench).
            for edit in 0..<20 {
                let app = edit % 2 == 0 ? "org.example.Other" : "org.example.Kiosk"
                try h.writeManagedConfig(Self.singleApp(app, ["features": ["Zoom": true]]))
                #expect(try await Self.promptly { try await client.property(.session, "App") == .string(app) }, "App is \(app)")
            }
            #expect(try await client.property(.session, "Mode") == .string("single-app"))
            #expect(try await client.property(.session, "AlsoAllowed", as: [String].self) == [])

            // A typo keeps the lock, and says why.
            try h.daemon.writeManagedConfig("{\"SingleAppMode\": {\"App\": \"org.example.Kiosk\",")
            #expect(await eventually(timeout: .seconds(2)) {
                h.log().contains("keeping the policy read before")
            }, "the daemon logs that it keeps the policy")
            #expect(try await client.enabled())
            #expect(try await client.property(.session, "App") == .string("org.example.Kiosk"))
            // An also-allowed entry no window could match, and a SingleAppMode without its App: named, nothing changed.
            try h.writeManagedConfig(Self.singleApp("org.example.Other", ["also-allowed": ["relative/calculator"]]))
            #expect(await eventually(timeout: .seconds(2)) { h.log().contains("also-allowed: the app id relative/calculator") })
            try h.writeManagedConfig(["SingleAppMode": ["Options": [:]]])
            #expect(await eventually(timeout: .seconds(2)) { h.log().contains("lacks App") }, "the missing App is logged")
            #expect(try await client.enabled(), "a SingleAppMode without App keeps the lock")

            // The key goes: the session ends and Zoom is as it was before; twenty times, from a fresh lock each.
            for round in 0..<20 {
                if round > 0 {
                    try h.writeManagedConfig(Self.singleApp("org.example.Kiosk", ["features": ["Zoom": true]]))
                    #expect(try await Self.promptly { try await client.enabled() }, "locked again")
                }
                try h.writeManagedConfig([:])
                #expect(try await Self.promptly { try await !client.enabled() }, "the session ends within a second")
            }
            #expect(try await eventually(timeout: .seconds(2)) {
                try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "false"
            }, "Zoom is put back")
            #expect(try await client.property(.session, "Mode") == .string(""))

            let actions = h.auditRecords().compactMap { $0["action"] as? String }
            for action in ["single-app-mode-started", "single-app-mode-moved", "single-app-mode-ended", "managed-config"] {
                #expect(actions.contains(action), "audited: \(action)")
            }
        }
    }

    @Test("inotify used up (another process of the daemon's user holds every instance fs.inotify.max_user_instances allows): the daemon says so, looks at managed.json instead, and an edit still locks and unlocks",
          .enabled(if: ProcessRunner.canRunUnprivileged, "as root, needs setpriv to run the daemon and the hog as nobody"))
    func inotifyUsedUp() async throws {
        // The hog takes every inotify instance nobody may have, says how many, and waits to be killed.
        let hog = Process()
        let said = Pipe()
        hog.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        hog.arguments = Array(ProcessRunner.asUnprivileged(["/usr/bin/python3", "-c", """
            import ctypes, signal
            libc = ctypes.CDLL(None, use_errno=True)
            held = 0
            while libc.inotify_init1(0) >= 0:
                held += 1
            print(held, ctypes.get_errno(), flush=True)
            signal.pause()
            """]).dropFirst())
        hog.standardOutput = said
        try hog.run()
        defer { EnforcementTests.end(hog) }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), case let more = said.fileHandleForReading.availableData, !more.isEmpty { line += more }
        let held = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        print("FAULT inotify used up: the hog holds \(held.first ?? "?") instances (errno \(held.last ?? "?"))")
        #expect(held.count == 2 && held.last == "\(EMFILE)", "inotify_init1 fails with EMFILE once used up: \(held)")

        try await withHarness(.init(asNobody: true, startDaemon: false)) { h in
            try await h.startDaemon()
            #expect(h.log().contains("inotify is not available"), "the daemon says why it polls: \(h.log())")
            func state() async throws -> String? {
                try await h.python("done(state=str(iface(connect(), PROPS).Get(SESSION, 'State')))", asNobody: true).string("state")
            }
            let started = ContinuousClock.now
            try h.writeManagedConfig(Self.singleApp("org.example.Kiosk"))
            // Each look at State starts a client as nobody (a second or more under load): generous bounds.
            #expect(try await eventually(timeout: .seconds(10)) { try await state() == "active" }, "locked by the edit")
            let locked = ContinuousClock.now - started
            try h.writeManagedConfig([:])
            #expect(try await eventually(timeout: .seconds(10)) { try await state() == "inactive" }, "unlocked by the edit")
            print("FAULT inotify used up: edit → locked seen in \(locked), then edit → unlocked seen in \(ContinuousClock.now - started - locked) "
                  + "(each look of the test's starts a client as nobody)")
        }
    }

    @Test("Accessibility inside an app's own session: its features set and put back, kept across a kill -9; the locked app and an enforcer toggle what the shortcut offers, nothing else and nobody else")
    func accessibilityInsideASession() async throws {
        try await withHarness(.init(allowedApplications: [Paths.pythonAppID])) { h in
            try await h.gsettingsSet(Self.screenReader.0, Self.screenReader.1, "false")
            let lock = try await h.python("""
                bus = connect()
                opts = dbus.Dictionary({"features": dbus.Dictionary({"Zoom": True}, signature="sb"),
                    "accessibility-shortcut": dbus.Array(["ScreenReader", "Zoom"], signature="s"),
                    "also-allowed": dbus.Array(["org.example.Calculator"], signature="s")}, signature="sv")
                granted = iface(bus, SESSION).RequestSession(True, opts)
                props = iface(bus, PROPS)
                done(granted=bool(granted), mode=str(props.Get(SESSION, "Mode")))
                """)
            #expect(lock.bool("granted") == true && lock.string("mode") == "autonomous", "\(lock.raw)")
            #expect(try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "true")

            // A crash keeps what must be put back.
            try await h.killDaemon()
            try await h.startDaemon()
            let client = try h.connect()
            #expect(try await client.enabled())

            // The locked app toggles what the shortcut offers; not what it does not.
            let toggles = try await h.python("""
                bus = connect()
                s = iface(bus, SESSION)
                s.ToggleAccessibilityFeature("ScreenReader", True)
                try:
                    s.ToggleAccessibilityFeature("InvertColors", True)
                    outside = "allowed"
                except dbus.exceptions.DBusException as e:
                    outside = e.get_dbus_name() + ": " + e.get_dbus_message()
                try:
                    s.ToggleAccessibilityFeature("Teleport", True)
                    unknown = "allowed"
                except dbus.exceptions.DBusException as e:
                    unknown = e.get_dbus_name()
                done(outside=outside, unknown=unknown)
                """)
            #expect(toggles.string("outside")?.hasPrefix(ServiceErrorName.permissionDenied.rawValue) == true, "\(toggles.raw)")
            #expect(toggles.string("outside")?.contains("accessibility shortcut") == true)
            #expect(toggles.string("unknown") == ServiceErrorName.unknownFeature.rawValue)
            #expect(try await h.gsettingsGet(Self.screenReader.0, Self.screenReader.1) == "true")

            // Another client is neither the app nor an enforcer, until it registers as one.
            #expect(await client.gaError(.session, "ToggleAccessibilityFeature", [.string("Zoom"), .bool(false)])
                    == ServiceErrorName.permissionDenied.rawValue)
            #expect(try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "true")
            _ = try await client.ga(.session, "RegisterEnforcer", [.string("test-shell"), .array(element: "s", [.string("app-lock")])])
            let announced = try await client.gaSignals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            #expect(await client.gaError(.session, "ToggleAccessibilityFeature", [.string("Zoom"), .bool(false)]) == nil)
            #expect(try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "false")
            // A menu shows what the daemon says: the change is announced, as the desktop's own would be.
            let features = await collect(announced, for: .milliseconds(500)).filter {
                $0.arguments.first == .string(ServiceInterface.features.rawValue)
            }
            #expect(features.contains { "\($0.arguments)".contains("Zoom") }, "PropertiesChanged names Zoom: \(features.map(\.arguments))")
            #expect(await client.gaError(.session, "ToggleAccessibilityFeature", [.string("Zoom"), .bool(true)]) == nil)

            // The end puts both back as they were before the session.
            let unlock = try await h.python("""
                bus = connect()
                done(granted=bool(iface(bus, SESSION).RequestSession(False, dbus.Dictionary({}, signature="sv"))))
                """)
            #expect(unlock.bool("granted") == true, "\(unlock.raw)")
            #expect(try await h.gsettingsGet(Self.magnifier.0, Self.magnifier.1) == "false")
            #expect(try await h.gsettingsGet(Self.screenReader.0, Self.screenReader.1) == "false")
            #expect(await client.gaError(.session, "ToggleAccessibilityFeature", [.string("Zoom"), .bool(true)])
                    == ServiceErrorName.notActive.rawValue, "no session, no toggle")
            let audited = h.auditRecords().filter { $0["action"] as? String == "toggle-accessibility-feature" }
            #expect(audited.count == 7, "every toggle is audited, refused ones too: \(audited.count)")
        }
    }

    /// Polls every 2 ms for a second: managed.json is followed within a second.
    static func promptly(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return try await condition()
    }
}
