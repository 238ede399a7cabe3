// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// In a Cinnamon session the features and a session's demands live in
/// Cinnamon's own schemas (`org.cinnamon.*`), which Cinnamon reads instead
/// of GNOME's: the real dconf, with GNOME's keys as the control.
@Suite("Cinnamon settings", .timeLimit(.minutes(3)))
struct CinnamonSettingsTests {
    /// Feature → (schema, key, value gsettings prints when on, when off).
    static let featureKeys: [(String, String, String, String, String)] = [
        ("ScreenReader", "org.cinnamon.desktop.a11y.applications", "screen-reader-enabled", "true", "false"),
        ("Zoom", "org.cinnamon.desktop.a11y.applications", "screen-magnifier-enabled", "true", "false"),
        ("OnScreenKeyboard", "org.cinnamon.desktop.a11y.applications", "screen-keyboard-enabled", "true", "false"),
        ("InvertColors", "org.cinnamon.desktop.a11y.magnifier", "invert-lightness", "true", "false"),
        ("Grayscale", "org.cinnamon.desktop.a11y.magnifier", "color-saturation", "0.0", "1.0"),
        ("ReduceMotion", "org.cinnamon.desktop.interface", "enable-animations", "false", "true"),
        ("LargeText", "org.cinnamon.desktop.interface", "text-scaling-factor", "1.25", "1.0"),
        ("StickyKeys", "org.cinnamon.desktop.a11y.keyboard", "stickykeys-enable", "true", "false"),
        ("SlowKeys", "org.cinnamon.desktop.a11y.keyboard", "slowkeys-enable", "true", "false"),
        ("BounceKeys", "org.cinnamon.desktop.a11y.keyboard", "bouncekeys-enable", "true", "false"),
        ("MouseKeys", "org.cinnamon.desktop.a11y.keyboard", "mousekeys-enable", "true", "false"),
        ("VisualBell", "org.cinnamon.desktop.wm.preferences", "visual-bell", "true", "false"),
    ]

    /// Restriction → the keys a denied one sets and the value gsettings prints.
    static let restrictionKeys: [(String, String, String, String)] = [
        ("notifications", "org.cinnamon.desktop.notifications", "display-notifications", "false"),
        ("power-menu", "org.cinnamon.desktop.lockdown", "disable-log-out", "true"),
        ("power-menu", "org.cinnamon.desktop.lockdown", "disable-user-switching", "true"),
        ("touch", "org.cinnamon.desktop.peripherals.touchpad", "send-events", "'disabled'"),
        ("motion", "org.cinnamon.settings-daemon.peripherals.touchscreen", "orientation-lock", "true"),
    ] + ["button-power", "button-suspend", "button-hibernate"].map {
        ("sleep-wake-button", "org.cinnamon.settings-daemon.plugins.power", $0, "'nothing'")
    } + ["switch-windows", "switch-windows-backward", "switch-group", "switch-group-backward", "switch-panels",
         "switch-panels-backward", "switch-to-workspace-up", "switch-to-workspace-down", "show-desktop"].map {
        ("app-switching", "org.cinnamon.desktop.keybindings.wm", $0, "@as []")
    } + ["volume-up", "volume-down", "volume-mute", "volume-up-quiet", "volume-down-quiet", "mute-quiet"].map {
        ("volume-buttons", "org.cinnamon.desktop.keybindings.media-keys", $0, "@as []")
    }

    static let allDenied = "{'auto-lock': <int64 300>, 'system-restrictions': <{"
        + ["sleep-wake-button", "volume-buttons", "motion", "touch", "notifications", "app-switching", "power-menu"]
            .map { "'\($0)': 'deny'" }.joined(separator: ", ") + "}>}"

    static var canRun: Bool { DesktopSettingsTests.canRun && DesktopEnvironment.cinnamonSchemasInstalled }
    static let reason: Comment = "needs the built daemon, dconf and Cinnamon's schemas (cinnamon-desktop-data, cinnamon-settings-daemon: scripts/install-deps)"

    static var cinnamon: Harness.Options {
        var options = Harness.Options(polkit: .real())
        options.cinnamon = true
        return options
    }

    @Test("Sources names Cinnamon's key for each feature (IncreaseContrast, a theme in Cinnamon, stays the service's); a change made with gsettings reaches PropertiesChanged; the same change to GNOME's key does not",
          .enabled(if: canRun, reason))
    func outsideChangesAreRelayed() async throws {
        var options = Harness.Options()
        options.cinnamon = true
        try await withHarness(options) { h in
            #expect(h.log().contains("desktop settings in GSettings (the org.cinnamon schemas)"), "\(h.log())")
            let sources = try await h.connect().property(.features, "Sources", as: [String: String].self)
            for (feature, schema, key, _, _) in Self.featureKeys {
                #expect(sources[feature] == "gsettings:\(schema)/\(key)", "\(feature)")
            }
            #expect(sources["IncreaseContrast"] == "service")
            let watcher = try h.connect()
            let changes = try await watcher.signals(MatchRule(
                path: ObjectPath(validating: GuidedAccessBus.objectPath), interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged"))
            // Control: GNOME's key, which Cinnamon does not read, changes nothing
            // (a Cinnamon key written after it is relayed, so it was seen).
            try await h.gsettingsSet("org.gnome.desktop.a11y.keyboard", "stickykeys-enable", "true")
            try await h.gsettingsSet("org.cinnamon.desktop.a11y.keyboard", "slowkeys-enable", "true")
            #expect(await nextFeatureChange(changes, "SlowKeys") == true)
            #expect(try await watcher.property(.features, "StickyKeys") == .bool(false))
            try await h.gsettingsSet("org.cinnamon.desktop.a11y.keyboard", "slowkeys-enable", "false")
            #expect(await nextFeatureChange(changes, "SlowKeys") == false)
            for (feature, schema, key, on, off) in Self.featureKeys {
                try await h.gsettingsSet(schema, key, on)
                #expect(await nextFeatureChange(changes, feature) == true, "\(feature) on")
                try await h.gsettingsSet(schema, key, off)
                #expect(await nextFeatureChange(changes, feature) == false, "\(feature) off")
            }
        }
    }

    @Test("SetFeature writes Cinnamon's key, both ways, and leaves GNOME's alone",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func setFeatureWritesCinnamonsKey() async throws {
        try await withHarness(Self.cinnamon) { h in
            let gnome = try await h.dconf(["dump", "/org/gnome/"]).stdout
            for (feature, schema, key, on, off) in Self.featureKeys {
                #expect(try await h.busctlCall(.features, "SetFeature", ["sb", feature, "true"]).ok)
                #expect(try await h.gsettingsGet(schema, key) == on, "\(feature)")
                #expect(try await h.busctlCall(.features, "SetFeature", ["sb", feature, "false"]).ok)
                #expect(try await h.gsettingsGet(schema, key) == off, "\(feature)")
            }
            #expect(try await h.dconf(["dump", "/org/gnome/"]).stdout == gnome, "GNOME's keys were written")
        }
    }

    @Test("A session's restrictions and auto-lock go to Cinnamon's keys (SystemRestrictionSources names them), stay after a kill -9, and End gives dconf back exactly; GNOME's keys untouched",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func sessionAppliesAndRestores() async throws {
        try await withHarness(Self.cinnamon) { h in
            try await h.gsettingsSet("org.cinnamon.desktop.keybindings.wm", "switch-windows", "['<Alt>Tab', '<Super>Tab']")
            try await h.gsettingsSet("org.cinnamon.settings-daemon.plugins.power", "button-power", "'interactive'")
            let before = try await h.dconf(["dump", "/"]).stdout

            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.allDenied]).ok)
            try await expectCinnamonDenied(h)
            let sources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(sources["notifications"] == "gsettings:org.cinnamon.desktop.notifications/display-notifications", "\(sources)")
            #expect(sources["volume-buttons"]?.contains("gsettings:org.cinnamon.desktop.keybindings.media-keys/volume-up") == true)
            #expect(try await h.dconf(["dump", "/org/gnome/"]).stdout.isEmpty, "GNOME's keys were written")

            try await h.killDaemon()
            try await h.startDaemon()
            try await expectCinnamonDenied(h)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try await h.dconf(["dump", "/"]).stdout == before)
        }
    }

    private func expectCinnamonDenied(_ h: Harness) async throws {
        for (restriction, schema, key, denied) in Self.restrictionKeys {
            #expect(try await h.gsettingsGet(schema, key) == denied, "\(restriction): \(schema) \(key)")
        }
        #expect(try await h.gsettingsGet("org.cinnamon.desktop.session", "idle-delay") == "uint32 300")
        #expect(try await h.gsettingsGet("org.cinnamon.desktop.screensaver", "lock-enabled") == "false")
    }
}
