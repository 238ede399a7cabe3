// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// Features and system restrictions live in the desktop's real settings:
/// GSettings with GNOME's dconf (bus-activated on the private bus, in the
/// test's own XDG directories), checked with gsettings, dconf, busctl and
/// at-spi-bus-launcher as independent peers.
@Suite("Desktop settings", .timeLimit(.minutes(3)))
struct DesktopSettingsTests {
    /// Feature → (schema, key, value gsettings prints when on, when off).
    static let featureKeys: [(String, String, String, String, String)] = [
        ("ScreenReader", "org.gnome.desktop.a11y.applications", "screen-reader-enabled", "true", "false"),
        ("Zoom", "org.gnome.desktop.a11y.applications", "screen-magnifier-enabled", "true", "false"),
        ("OnScreenKeyboard", "org.gnome.desktop.a11y.applications", "screen-keyboard-enabled", "true", "false"),
        ("IncreaseContrast", "org.gnome.desktop.a11y.interface", "high-contrast", "true", "false"),
        ("InvertColors", "org.gnome.desktop.a11y.magnifier", "invert-lightness", "true", "false"),
        ("Grayscale", "org.gnome.desktop.a11y.magnifier", "color-saturation", "0.0", "1.0"),
        ("ReduceMotion", "org.gnome.desktop.interface", "enable-animations", "false", "true"),
        ("LargeText", "org.gnome.desktop.interface", "text-scaling-factor", "1.25", "1.0"),
        ("StickyKeys", "org.gnome.desktop.a11y.keyboard", "stickykeys-enable", "true", "false"),
        ("SlowKeys", "org.gnome.desktop.a11y.keyboard", "slowkeys-enable", "true", "false"),
        ("BounceKeys", "org.gnome.desktop.a11y.keyboard", "bouncekeys-enable", "true", "false"),
        ("MouseKeys", "org.gnome.desktop.a11y.keyboard", "mousekeys-enable", "true", "false"),
        ("VisualBell", "org.gnome.desktop.wm.preferences", "visual-bell", "true", "false"),
    ]

    /// Restriction → the keys a denied one sets and the value gsettings prints.
    static let restrictionKeys: [(String, String, String, String)] = [
        ("notifications", "org.gnome.desktop.notifications", "show-banners", "false"),
        ("power-menu", "org.gnome.desktop.lockdown", "disable-log-out", "true"),
        ("power-menu", "org.gnome.desktop.lockdown", "disable-user-switching", "true"),
        ("touch", "org.gnome.desktop.peripherals.touchpad", "send-events", "'disabled'"),
        ("sleep-wake-button", "org.gnome.settings-daemon.plugins.power", "power-button-action", "'nothing'"),
        ("motion", "org.gnome.settings-daemon.peripherals.touchscreen", "orientation-lock", "true"),
    ] + ["switch-applications", "switch-applications-backward", "switch-windows", "switch-windows-backward", "switch-group",
         "switch-group-backward", "cycle-windows", "cycle-windows-backward", "panel-main-menu"].map {
        ("app-switching", "org.gnome.desktop.wm.keybindings", $0, "@as []")
    } + ["toggle-overview", "toggle-application-view"].map {
        ("app-switching", "org.gnome.shell.keybindings", $0, "@as []")
    } + ["volume-up", "volume-down", "volume-mute", "volume-up-static", "volume-down-static", "volume-mute-static"].map {
        ("volume-buttons", "org.gnome.settings-daemon.plugins.media-keys", $0, "@as []")
    }

    static let allDenied = "{'system-restrictions': <{"
        + ["sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch", "notifications", "app-switching", "power-menu"]
            .map { "'\($0)': 'deny'" }.joined(separator: ", ") + "}>}"

    static var canRun: Bool { Requirements.canRunDaemon && DesktopEnvironment.dconfAvailable }
    static let reason: Comment = "needs the built daemon, dbus tools, dconf-service and gsettings (scripts/install-deps)"

    @Test("Sources names each GSettings key; a change made with gsettings reaches a subscribed client, odd values map",
          .enabled(if: canRun, reason))
    func outsideChangesAreRelayed() async throws {
        let userDatabase = DesktopEnvironment.userDatabaseStamp
        try await withHarness { h in
            let sources = try await h.connect().property(.features, "Sources", as: [String: String].self)
            for (feature, schema, key, _, _) in Self.featureKeys {
                #expect(sources[feature] == "gsettings:\(schema)/\(key)", "\(feature)")
            }
            #expect(sources["BoldText"] == "service")
            #expect(sources.count == 27)
            let systemSources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(systemSources["keyboards"] == "published")
            #expect(systemSources["notifications"] == "gsettings:org.gnome.desktop.notifications/show-banners")
            #expect(systemSources["app-switching"]?.contains("gsettings:org.gnome.shell.keybindings/toggle-overview") == true)

            let watcher = try h.connect()
            let changes = try await watcher.signals(MatchRule(
                path: ObjectPath(validating: GuidedAccessBus.objectPath), interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
            for (feature, schema, key, on, off) in Self.featureKeys {
                try await h.gsettingsSet(schema, key, on)
                #expect(await nextFeatureChange(changes, feature) == true, "\(feature) on")
                #expect(try await watcher.property(.features, feature) == .bool(true))
                try await h.gsettingsSet(schema, key, off)
                #expect(await nextFeatureChange(changes, feature) == false, "\(feature) off")
            }
            // Values the mapping does not write still map, without an error.
            try await h.gsettingsSet("org.gnome.desktop.interface", "text-scaling-factor", "3.0")
            #expect(await nextFeatureChange(changes, "LargeText") == true)
            try await h.gsettingsSet("org.gnome.desktop.interface", "text-scaling-factor", "0.5")
            #expect(await nextFeatureChange(changes, "LargeText") == false)
            try await h.gsettingsSet("org.gnome.desktop.a11y.magnifier", "color-saturation", "0.0")
            #expect(await nextFeatureChange(changes, "Grayscale") == true)
            try await h.gsettingsSet("org.gnome.desktop.a11y.magnifier", "color-saturation", "0.4")
            #expect(await nextFeatureChange(changes, "Grayscale") == false)
            #expect(!h.log().contains("level=error"), "\(h.log())")
        }
        #expect(DesktopEnvironment.userDatabaseStamp == userDatabase, "the user's own ~/.config/dconf/user was touched")
    }

    @Test("Locked names a key an administrator locked in dconf (`desktop`) and managed LockedFeatures (`managed`); switching the locked key is refused by name",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func lockedFeatures() async throws {
        var options = Harness.Options(polkit: .real())
        options.dconfLocks = ["/org/gnome/desktop/a11y/applications/screen-magnifier-enabled": "true"]
        options.lockedFeatures = ["BoldText": true]
        try await withHarness(options) { h in
            let locked = try await h.connect().property(.features, "Locked", as: [String: String].self)
            #expect(locked == ["Zoom": "desktop", "BoldText": "managed"], "\(locked)")
            #expect(try await h.connect().property(.features, "Zoom") == .bool(true), "the system database's value")
            let refused = try await h.gdbus(.features, "SetFeature", ["'Zoom'", "false"])
            #expect(!refused.ok && "\(refused)".contains("PermissionDenied")
                    && "\(refused)".contains("Zoom is locked by the administrator in the desktop's settings"), "\(refused)")
            #expect(try await h.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled") == "true")
            // An unlocked key reads as before.
            #expect(try await h.busctlCall(.features, "SetFeature", ["sb", "ScreenReader", "true"]).ok)
            #expect(try await h.connect().property(.features, "Locked", as: [String: String].self)["ScreenReader"] == nil)
        }
    }

    @Test("SetFeature and ConfigureForGuidedAccess write each mapped key, both ways",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func setFeatureWritesTheKey() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            for (feature, schema, key, on, off) in Self.featureKeys {
                let set = try await h.busctlCall(.features, "SetFeature", ["sb", feature, "true"])
                #expect(set.ok, "\(set)")
                #expect(try await h.gsettingsGet(schema, key) == on, "\(feature)")
                #expect(try await h.busctl(getProperty(.features, feature)).output == "b true")
                #expect(try await h.busctlCall(.features, "SetFeature", ["sb", feature, "false"]).ok)
                #expect(try await h.gsettingsGet(schema, key) == off, "\(feature)")
            }
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Reader'", "{}"]).ok)
            let configure = try await h.gdbus(.features, "ConfigureForGuidedAccess", ["['zoom', 'grayscale']", "true"])
            #expect(configure.ok, "\(configure)")
            #expect(try await h.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled") == "true")
            #expect(try await h.gsettingsGet("org.gnome.desktop.a11y.magnifier", "color-saturation") == "0.0")
        }
    }

    @Test("a session writes every restriction key after saving the originals; outside loosening is put back; End restores exactly",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func sessionAppliesAndRestores() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            // Some keys carry the user's own values, the rest are at their defaults.
            try await h.gsettingsSet("org.gnome.desktop.wm.keybindings", "switch-applications", "['<Alt>Tab']")
            try await h.gsettingsSet("org.gnome.settings-daemon.plugins.power", "power-button-action", "'interactive'")
            try await h.gsettingsSet("org.gnome.desktop.notifications", "show-banners", "true")
            let before = try await h.dconf(["dump", "/"]).stdout

            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.allDenied])
            #expect(start.ok, "\(start)")
            try await expectDenied(h)
            let state = try String(contentsOf: h.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8)
            #expect(state.contains("org.gnome.desktop.wm.keybindings/switch-applications"), "originals are in the state file")

            // GNOME Settings turning banners back on is undone.
            try await h.gsettingsSet("org.gnome.desktop.notifications", "show-banners", "true")
            #expect(try await eventually(timeout: .seconds(2)) {
                try await h.gsettingsGet("org.gnome.desktop.notifications", "show-banners") == "false"
            })

            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
            let after = try String(contentsOf: h.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8)
            #expect(!after.contains("desktopOriginals"))
        }
    }

    @Test("kill -9 mid-session: the restarted daemon keeps the keys denied, and End restores the originals",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func killMidSession() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            try await h.gsettingsSet("org.gnome.desktop.lockdown", "disable-log-out", "false")
            let before = try await h.dconf(["dump", "/"]).stdout
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.allDenied]).ok)
            try await h.killDaemon()
            // Loosened while no daemon runs: the restarted one puts it back.
            try await h.gsettingsSet("org.gnome.desktop.lockdown", "disable-log-out", "false")
            try await h.startDaemon()
            try await expectDenied(h)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
        }
    }

    @Test("kill -9 after the originals were saved and before any key was written: the restart applies, End restores",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func killBetweenSaveAndWrite() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            try await h.gsettingsSet("org.gnome.desktop.notifications", "show-banners", "true")
            let before = try await h.dconf(["dump", "/"]).stdout
            // Produce the exact file such a crash leaves: a session start is
            // committed with its originals, then the daemon dies. Here the
            // keys it would have written are put back by hand before it dies.
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.allDenied]).ok)
            let saved = try Data(contentsOf: h.stateDirectory.appendingPathComponent("state.json"))
            try await h.killDaemon()
            for (_, schema, key, _) in Self.restrictionKeys { _ = try await h.gsettings(["reset", schema, key]) }
            try await h.gsettingsSet("org.gnome.desktop.notifications", "show-banners", "true")
            #expect(try await h.dconf(["dump", "/"]).stdout == before, "the desktop looks as if no key was written")
            try saved.write(to: h.stateDirectory.appendingPathComponent("state.json"))

            try await h.startDaemon()
            try await expectDenied(h)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
        }
    }

    /// The two keys a session's auto-lock writes.
    static let idleDelay = ("org.gnome.desktop.session", "idle-delay")
    static let screenLock = ("org.gnome.desktop.screensaver", "lock-enabled")

    @Test("auto-lock: idle-delay and lock-enabled written at Start after saving the originals, an outside write put back, End restores exactly",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func autoLockAppliesAndRestores() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            // idle-delay carries the user's own value, lock-enabled is at its default.
            try await h.gsettingsSet(Self.idleDelay.0, Self.idleDelay.1, "600")
            let before = try await h.dconf(["dump", "/"]).stdout

            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <int64 120>}"])
            #expect(start.ok, "\(start)")
            #expect(try await h.gsettingsGet(Self.idleDelay.0, Self.idleDelay.1) == "uint32 120")
            #expect(try await h.gsettingsGet(Self.screenLock.0, Self.screenLock.1) == "false")
            let state = try String(contentsOf: h.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8)
            #expect(state.contains("org.gnome.desktop.session/idle-delay") && state.contains("org.gnome.desktop.screensaver/lock-enabled"),
                    "originals are in the state file")

            // GNOME Settings changing the delay or turning the lock back on is undone.
            try await h.gsettingsSet(Self.idleDelay.0, Self.idleDelay.1, "900")
            try await h.gsettingsSet(Self.screenLock.0, Self.screenLock.1, "true")
            #expect(try await eventually(timeout: .seconds(2)) {
                let delay = try await h.gsettingsGet(Self.idleDelay.0, Self.idleDelay.1)
                let lock = try await h.gsettingsGet(Self.screenLock.0, Self.screenLock.1)
                return delay == "uint32 120" && lock == "false"
            })

            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
            let after = try String(contentsOf: h.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8)
            #expect(!after.contains("desktopOriginals"))
        }
    }

    @Test("auto-lock -1 or absent (the desktop's own) writes nothing",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func autoLockDesktopWritesNothing() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            try await h.gsettingsSet(Self.idleDelay.0, Self.idleDelay.1, "600")
            let before = try await h.dconf(["dump", "/"]).stdout
            for options in ["{'auto-lock': <int64 -1>}", "{'presentation': <'fullscreen'>}"] {
                #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", options]).ok)
                #expect(try await h.connect().property(.session, "AutoLock") == .int64(-1))
                #expect(try await h.dconf(["dump", "/"]).stdout == before, "\(options)")
                let state = try String(contentsOf: h.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8)
                #expect(!state.contains("desktopOriginals"), "\(options)")
                #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
                #expect(try await h.dconf(["dump", "/"]).stdout == before, "\(options)")
            }
        }
    }

    @Test("auto-lock and kill -9 mid-session: the restarted daemon keeps the keys, End leaves dconf exactly as before",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func autoLockSurvivesKill() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            try await h.gsettingsSet(Self.screenLock.0, Self.screenLock.1, "true")
            let before = try await h.dconf(["dump", "/"]).stdout
            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <int64 0>, "
                                                                + "'system-restrictions': <{'notifications': 'deny'}>}"])
            #expect(start.ok, "\(start)")
            #expect(try await h.gsettingsGet(Self.idleDelay.0, Self.idleDelay.1) == "uint32 0")
            try await h.killDaemon()
            // Changed while no daemon runs: the restarted one puts the session's values back.
            try await h.gsettingsSet(Self.idleDelay.0, Self.idleDelay.1, "300")
            try await h.gsettingsSet(Self.screenLock.0, Self.screenLock.1, "true")
            try await h.startDaemon()
            #expect(try await h.gsettingsGet(Self.idleDelay.0, Self.idleDelay.1) == "uint32 0")
            #expect(try await h.gsettingsGet(Self.screenLock.0, Self.screenLock.1) == "false")
            #expect(try await h.connect().property(.session, "AutoLock") == .int64(0))
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
        }
    }

    @Test("auto-lock without the session and screensaver schemas: the session starts, nothing is written, logged once",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func autoLockWithoutSchemas() async throws {
        let data = try await Self.onlyInterfaceSchemas()
        defer { try? FileManager.default.removeItem(at: data) }
        try await withHarness(.init(polkit: .real(), schemaDataDirectories: data.path)) { h in
            let before = try await h.dconf(["dump", "/"]).stdout
            let start = try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{'auto-lock': <int64 60>}"])
            #expect(start.ok, "\(start)")
            #expect(try await h.connect().property(.session, "AutoLock") == .int64(60))
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            for schema in [Self.idleDelay.0, Self.screenLock.0] {
                #expect(h.log().components(separatedBy: "schema \(schema) is not installed").count == 2, "logged once: \(h.log())")
            }
            #expect(!h.log().contains("level=error"), "\(h.log())")
        }
    }

    @Test("LockedFeatures: the daemon writes the locked value, and an outside write against it is put back within 1 s and audited",
          .enabled(if: canRun, reason))
    func lockedFeaturesArePutBack() async throws {
        try await withHarness(.init(lockedFeatures: ["Zoom": true, "ReduceMotion": true])) { h in
            #expect(try await h.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled") == "true")
            #expect(try await h.gsettingsGet("org.gnome.desktop.interface", "enable-animations") == "false")
            try await h.gsettingsSet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled", "false")
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await eventually(timeout: .seconds(1)) {
                try await h.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled") == "true"
            })
            print("locked Zoom put back after \(clock.now - started)")
            #expect(try await h.connect().property(.features, "Zoom") == .bool(true))
            #expect(h.auditRecords().contains { ($0["action"] as? String) == "restore-locked-feature" && ($0["target"] as? String) == "Zoom=true" })
        }
    }

    @Test("schemas that are not installed leave their features to the service and their restrictions published",
          .enabled(if: canRun, reason))
    func missingSchemas() async throws {
        let data = try await Self.onlyInterfaceSchemas()
        defer { try? FileManager.default.removeItem(at: data) }

        try await withHarness(.init(schemaDataDirectories: data.path)) { h in
            let client = try h.connect()
            let sources = try await client.property(.features, "Sources", as: [String: String].self)
            #expect(sources["ReduceMotion"] == "gsettings:org.gnome.desktop.interface/enable-animations")
            #expect(sources["Zoom"] == "service")
            #expect(sources["VisualBell"] == "service")
            let system = try await client.property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(system.values.allSatisfy { $0 == "published" }, "\(system)")
            #expect(h.log().contains("schema org.gnome.desktop.a11y.applications is not installed"))
            #expect(h.log().components(separatedBy: "org.gnome.desktop.a11y.applications is not installed").count == 2, "logged once")
        }
    }

    @Test("at-spi: org.a11y.Status.ScreenReaderEnabled and our ScreenReader agree both ways",
          .enabled(if: canRun && DesktopEnvironment.atspiAvailable, reason))
    func atspiAgrees() async throws {
        try await withHarness { h in
            let client = try h.connect()
            let atspi = ["org.a11y.Bus", "/org/a11y/bus", "org.a11y.Status", "ScreenReaderEnabled"]
            // Activated from the test's servicedir, with the test's settings.
            #expect(try await h.busctl(["get-property"] + atspi).output == "b false")
            #expect(try await h.busctl(["set-property"] + atspi + ["b", "true"]).ok)
            #expect(try await eventually(timeout: .seconds(2)) { try await client.property(.features, "ScreenReader") == .bool(true) })
            try await h.gsettingsSet("org.gnome.desktop.a11y.applications", "screen-reader-enabled", "false")
            #expect(try await eventually(timeout: .seconds(2)) {
                let atspiValue = try await h.busctl(["get-property"] + atspi).output
                let ours = try await client.property(.features, "ScreenReader")
                return atspiValue == "b false" && ours == .bool(false)
            })
        }
    }

    static var ibusInstalled: Bool {
        FileManager.default.fileExists(atPath: "/usr/share/glib-2.0/schemas/org.freedesktop.ibus.gschema.xml")
    }

    @Test("an assessment that does not allow spell check empties IBus's emoji and Unicode hotkeys, and puts the user's back exactly; with allows-spell-check they stay; in a Plasma session too (IBus keeps its settings in GSettings there)",
          .enabled(if: canRun && ibusInstalled, "needs IBus's settings (ibus-data) besides: \(reason)"), arguments: [nil, 6] as [Int?])
    func assessmentSpellingHelp(plasma: Int?) async throws {
        var options = Harness.Options(startDaemon: false)
        options.plasma = plasma
        try await withHarness(options) { h in
            try h.writeManagedConfig(["AssessmentApplications": [Paths.pythonAppID]])
            try await h.startDaemon()
            let schema = "org.freedesktop.ibus.panel.emoji"
            let mine = "['<Control><Alt>e']"
            try await h.gsettingsSet(schema, "hotkey", mine)  // the user's own; unicode-hotkey stays at its default
            let unicodeDefault = try await h.gsettingsGet(schema, "unicode-hotkey")
            func assessment(_ configuration: String, _ check: () async throws -> Void) async throws {
                let exam = try await h.python("""
                    bus = connect()
                    iface(bus, SESSION).BeginAssessment(dbus.Dictionary(\(configuration), signature="sv"))
                    done(mode=str(iface(bus, PROPS).Get(SESSION, "Mode")))
                    """)
                #expect(exam.string("mode") == "assessment", "\(exam.raw)")
                try await check()
                let end = try await h.python("""
                    bus = connect()
                    iface(bus, SESSION).EndAssessment()
                    done(mode=str(iface(bus, PROPS).Get(SESSION, "Mode")))
                    """)
                #expect(end.string("mode") == "", "\(end.raw)")
            }

            // Control: allowed, nothing changes.
            try await assessment(#"{"allows-spell-check": True}"#) { () async throws in
                #expect(try await h.gsettingsGet(schema, "hotkey") == mine)
                #expect(try await h.gsettingsGet(schema, "unicode-hotkey") == unicodeDefault)
            }
            try await assessment("{}") { () async throws in
                #expect(try await h.gsettingsGet(schema, "hotkey") == "@as []")
                #expect(try await h.gsettingsGet(schema, "unicode-hotkey") == "@as []")
                // Set back from outside during it: the daemon empties it again.
                try await h.gsettingsSet(schema, "unicode-hotkey", "['<Control><Shift>u']")
                #expect(try await eventually(timeout: .seconds(3)) { try await h.gsettingsGet(schema, "unicode-hotkey") == "@as []" })
            }
            #expect(try await eventually(timeout: .seconds(3)) { try await h.gsettingsGet(schema, "hotkey") == mine })
            #expect(try await h.gsettingsGet(schema, "unicode-hotkey") == unicodeDefault)
            let dconf = try await h.dconf(["read", "/desktop/ibus/panel/emoji/unicode-hotkey"])
            #expect(dconf.output.isEmpty, "unicode-hotkey was reset, not pinned to its default: \(dconf.output)")
        }
    }

    @Test("GSETTINGS_BACKEND=keyfile: the same keys, in GLib's keyfile", .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func keyfileBackend() async throws {
        try await withHarness(.init(settings: .keyfile)) { h in
            let client = try h.connect()
            #expect(try await client.property(.features, "Sources", as: [String: String].self)["Zoom"]
                    == "gsettings:org.gnome.desktop.a11y.applications/screen-magnifier-enabled")
            try await h.gsettingsSet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled", "true")
            #expect(try await eventually(timeout: .seconds(5)) { try await client.property(.features, "Zoom") == .bool(true) })
            let keyfile = h.desktop.configHome.appendingPathComponent("glib-2.0/settings/keyfile")
            #expect((try? String(contentsOf: keyfile, encoding: .utf8))?.contains("screen-magnifier-enabled=true") == true)
        }
    }
}

extension DesktopSettingsTests {
    /// A data directory in which only gsettings-desktop-schemas' interface
    /// schema is installed (compiled); the caller removes it.
    static func onlyInterfaceSchemas() async throws -> URL {
        let data = URL(fileURLWithPath: "/tmp").appendingPathComponent("ga-schemas-\(UUID().uuidString.prefix(8))")
        let schemas = data.appendingPathComponent("glib-2.0/schemas")
        try FileManager.default.createDirectory(at: schemas, withIntermediateDirectories: true)
        for name in ["org.gnome.desktop.interface.gschema.xml", "org.gnome.desktop.enums.xml"] {
            try FileManager.default.copyItem(atPath: "/usr/share/glib-2.0/schemas/\(name)", toPath: schemas.appendingPathComponent(name).path)
        }
        let compile = try await ProcessRunner.run(["glib-compile-schemas", schemas.path], timeout: .seconds(20))
        guard compile.status == 0 else { throw HarnessError("glib-compile-schemas \(schemas.path) failed: \(compile.stderr)") }
        return data
    }
}

/// Every restriction key holds its denied value.
private func expectDenied(_ h: Harness) async throws {
    for (restriction, schema, key, denied) in DesktopSettingsTests.restrictionKeys {
        #expect(try await h.gsettingsGet(schema, key) == denied, "\(restriction): \(schema) \(key)")
    }
}

/// The value of `feature` in the next PropertiesChanged of Features1 that names it.
func nextFeatureChange(_ stream: SignalStream, _ feature: String) async -> Bool? {
    while let message = await next(stream, timeout: .seconds(5)) {
        guard message.arguments.first == .string(ServiceInterface.features.rawValue),
              case .dictionary(_, _, let entries)? = message.arguments.dropFirst().first else { continue }
        for entry in entries where entry.key == .string(feature) {
            if case .variant(.bool(let value)) = entry.value { return value }
        }
    }
    return nil
}
