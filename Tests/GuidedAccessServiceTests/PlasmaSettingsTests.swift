// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Locking
import Testing

/// In a KDE Plasma session (`XDG_CURRENT_DESKTOP=KDE`) the features live in
/// Plasma's own KConfig files in the test's XDG_CONFIG_HOME, over an
/// administrator's in its own XDG_CONFIG_DIRS; checked with KDE's
/// kreadconfig5/kwriteconfig5, gdbus and busctl as independent peers.
@Suite("Plasma settings", .timeLimit(.minutes(3)))
struct PlasmaSettingsTests {
    /// Feature → (file, group, key, what a KDE program reads when on).
    static let entries: [(String, String, String, String, String)] = [
        ("ScreenReader", "kaccessrc", "ScreenReader", "Enabled", "true"),
        ("StickyKeys", "kaccessrc", "Keyboard", "StickyKeys", "true"),
        ("SlowKeys", "kaccessrc", "Keyboard", "SlowKeys", "true"),
        ("BounceKeys", "kaccessrc", "Keyboard", "BounceKeys", "true"),
        ("MouseKeys", "kaccessrc", "Mouse", "MouseKeys", "true"),
        ("VisualBell", "kaccessrc", "Bell", "VisibleBell", "true"),
        ("ReduceMotion", "kdeglobals", "KDE", "AnimationDurationFactor", "0"),
    ]

    static var canRun: Bool { Requirements.canRunDaemon && FileManager.default.isExecutableFile(atPath: "/usr/bin/kreadconfig5") }
    static let reason: Comment = "needs the built daemon, dbus tools and KDE's kreadconfig5/kwriteconfig5 (scripts/install-deps)"

    static let plasma: Harness.Options = {
        var options = Harness.Options(polkit: .real())
        options.settings = .memory
        options.plasma = 6
        return options
    }()

    @Test("Sources names each KConfig entry; GNOME's keys are not read; SetFeature writes the entry KDE reads, announces it with ConfigChanged, has kaccess read kaccessrc again, and off gives back the file byte for byte",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func setFeatureWritesPlasmasEntry() async throws {
        try await withHarness(Self.plasma) { h in
            let sources = try await h.connect().property(.features, "Sources", as: [String: String].self)
            for (feature, file, group, key, _) in Self.entries {
                #expect(sources[feature] == "kconfig:\(file)/\(group)/\(key)", "\(feature)")
            }
            #expect(sources["Zoom"] == "service" && sources["LargeText"] == "service", "\(sources)")

            let own = "[Keyboard]\nRepeatDelay=600\n"
            try own.write(to: h.kconfig("kaccessrc"), atomically: true, encoding: .utf8)
            let peer = try h.connect()
            let announced = try await peer.signals(MatchRule(interface: "org.kde.kconfig.notify", member: "ConfigChanged"))
            for (feature, file, group, key, on) in Self.entries {
                let set = try await h.busctlCall(.features, "SetFeature", ["sb", feature, "true"])
                #expect(set.ok, "\(set)")
                #expect(try await h.kreadconfig(file, group, key) == on, "\(feature)")
                #expect(try await h.busctl(getProperty(.features, feature)).output == "b true")
                let signal = await next(announced)
                #expect(signal?.path?.rawValue == "/\(file)" && "\(signal?.arguments ?? [])".contains(group), "\(feature): \(String(describing: signal))")
                #expect(try await h.busctlCall(.features, "SetFeature", ["sb", feature, "false"]).ok)
                #expect(try await h.busctl(getProperty(.features, feature)).output == "b false")
                _ = await next(announced)
            }
            #expect(try String(contentsOf: h.kconfig("kaccessrc"), encoding: .utf8) == own)
            // kaccess was run after each kaccessrc write, to read it again (not for kdeglobals).
            let kaccessWrites = 2 * Self.entries.filter { $0.1 == "kaccessrc" }.count
            #expect(await eventually(timeout: .seconds(5)) { h.desktop.kaccessRuns == kaccessWrites }, "kaccess runs: \(h.desktop.kaccessRuns)")
        }
    }

    @Test("A change made as System Settings makes it (the file, then ConfigChanged) reaches PropertiesChanged for every feature, and one made without the signal too; the time to it is printed per feature",
          .enabled(if: canRun, reason), arguments: [5, 6])
    func outsideChangesAreRelayed(plasma version: Int) async throws {
        var options = Self.plasma
        options.plasma = version
        try await withHarness(options) { h in
            let watcher = try h.connect()
            let changes = try await watcher.gaSignals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            let plasma = try h.connect()
            for (feature, file, group, key, on) in Self.entries {
                var milliseconds: [Double] = []
                for round in 0..<20 {
                    let enabled = round % 2 == 0
                    let value = enabled ? on : (on == "0" ? "1" : "false")
                    let written = ContinuousClock.now
                    try "[\(group)]\n\(key)=\(value)\n".write(to: h.kconfig(file), atomically: true, encoding: .utf8)
                    try plasma.emit(ObjectPath(validating: "/\(file)"), "org.kde.kconfig.notify", "ConfigChanged", [
                        .dictionary(key: "s", value: "aay", [.init(key: .string(group), value: .array(element: "ay", [
                            .array(element: "y", Array(key.utf8).map(DBusValue.byte)),
                        ]))]),
                    ])
                    #expect(await nextFeatureChange(changes, feature) == enabled, "\(feature), round \(round)")
                    let elapsed = (ContinuousClock.now - written).components
                    milliseconds.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
                }
                let sorted = milliseconds.sorted()
                print("PLASMA \(version) \(feature) (\(file)/\(group)/\(key)): outside change → PropertiesChanged over 20 changes: "
                      + "p50 \(String(format: "%.1f", sorted[9])) ms, p99 \(String(format: "%.1f", sorted[19])) ms")
            }

            // kwriteconfig5 (Plasma 5's tool) writes without the signal: the file itself is followed.
            #expect(try await h.kwriteconfig("kdeglobals", "KDE", "AnimationDurationFactor", "0"))
            #expect(await nextFeatureChange(changes, "ReduceMotion") == true)
            #expect(try await watcher.property(.features, "ReduceMotion") == .bool(true))
            #expect(try await h.kwriteconfig("kdeglobals", "KDE", "AnimationDurationFactor", "0.5"))
            #expect(await nextFeatureChange(changes, "ReduceMotion") == false)
        }
    }

    @Test("A key the administrator made immutable ([$i] in XDG_CONFIG_DIRS) holds the administrator's value, is Locked desktop, and SetFeature is refused naming the file; the user's own entry does not count",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func immutableKeysAreLocked() async throws {
        try await withHarness(Self.plasma) { h in
            let system = h.desktop.systemConfigDirectory.appendingPathComponent("kaccessrc")
            try "[Keyboard]\nStickyKeys[$i]=true\n".write(to: system, atomically: true, encoding: .utf8)
            try "[Keyboard]\nStickyKeys=false\n[Bell]\nVisibleBell[$i]=true\n".write(to: h.kconfig("kaccessrc"), atomically: true, encoding: .utf8)
            try await h.killDaemon()
            try await h.startDaemon()
            let client = try h.connect()
            #expect(try await client.property(.features, "StickyKeys") == .bool(true), "the administrator's value")
            let locked = try await client.property(.features, "Locked", as: [String: String].self)
            #expect(locked == ["StickyKeys": "desktop"], "a flag in the user's own file locks nothing: \(locked)")
            let refused = try await h.gdbus(.features, "SetFeature", ["'StickyKeys'", "false"])
            #expect(!refused.ok && "\(refused)".contains("PermissionDenied") && "\(refused)".contains(system.path), "\(refused)")
            #expect(try await h.kreadconfig("kaccessrc", "Keyboard", "StickyKeys") == "true")
            #expect(try await h.busctlCall(.features, "SetFeature", ["sb", "SlowKeys", "true"]).ok)
        }
    }

    @Test("A session's features, all seven, are written to Plasma's files and put back exactly after End and after a kill -9 mid-session",
          .enabled(if: canRun && Requirements.canRunPolkit, .polkitReason))
    func sessionFeaturesArePutBack() async throws {
        try await withHarness(Self.plasma) { h in
            let kaccessrc = "[Keyboard]\nRepeatDelay=600\n\n[Bell]\nVisibleBell=false\n"
            let kdeglobals = "[KDE]\nAnimationDurationFactor=0.5\nSingleClick=false\n"
            try kaccessrc.write(to: h.kconfig("kaccessrc"), atomically: true, encoding: .utf8)
            try kdeglobals.write(to: h.kconfig("kdeglobals"), atomically: true, encoding: .utf8)
            try await h.killDaemon()
            try await h.startDaemon()
            let all = Self.entries.map { "'\($0.0)': true" }.joined(separator: ", ")
            let start = try await h.gdbus(.session, "Start", ["'org.example.Reader'", "{'features': <{\(all)}>}"])
            #expect(start.ok, "\(start)")
            for (feature, file, group, key, on) in Self.entries {
                #expect(try await h.kreadconfig(file, group, key) == on, "\(feature) during the session")
            }
            try await h.killDaemon()
            try await h.startDaemon()
            for (feature, _, _, _, _) in Self.entries {
                #expect(try await h.connect().property(.features, feature) == .bool(true), "\(feature) after the restart")
            }
            let end = try await h.gdbus(.session, "End", ["{}"])
            #expect(end.ok, "\(end)")
            #expect(try String(contentsOf: h.kconfig("kaccessrc"), encoding: .utf8) == kaccessrc)
            #expect(try String(contentsOf: h.kconfig("kdeglobals"), encoding: .utf8) == kdeglobals)
        }
    }
}

extension Harness {
    /// The user's copy of a KDE configuration file.
    func kconfig(_ file: String) -> URL { desktop.configHome.appendingPathComponent(file) }

    /// What a KDE program reads (`kreadconfig5`), over the administrator's files.
    func kreadconfig(_ file: String, _ group: String, _ key: String) async throws -> String {
        try await run(["kreadconfig5", "--file", file, "--group", group, "--key", key], environment: desktopVariables).output
    }

    /// `kwriteconfig5`, as a KDE program writes the user's file (Plasma 5's has no `--notify`).
    func kwriteconfig(_ file: String, _ group: String, _ key: String, _ value: String) async throws -> Bool {
        try await run(["kwriteconfig5", "--file", file, "--group", group, "--key", key, value], environment: desktopVariables).ok
    }
}

/// Do-not-disturb on Plasma: plasmashell's notification server, played by
/// a fake that keeps Plasma's rules (an inhibition lives while its caller
/// is on the bus; the person can clear them all in the applet).
@Suite("Plasma do-not-disturb", .timeLimit(.minutes(2)))
struct PlasmaNotificationsTests {
    static let denied = "{'system-restrictions': <{'notifications': 'deny'}>}"

    @Test("A session denying notifications holds an Inhibit, taken again when the person clears it and after a kill -9; End releases it; without a session, none",
          .enabled(if: Requirements.canRunDaemon && Requirements.canRunPolkit, .polkitReason))
    func inhibitsForTheSession() async throws {
        try await withHarness(PlasmaSettingsTests.plasma) { h in
            let plasmashell = try await FakePlasmaNotifications(address: h.address)
            defer { plasmashell.close() }
            // Control: no session, nothing inhibited.
            try await Task.sleep(for: .milliseconds(300))
            #expect(!plasmashell.inhibited)

            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.denied]).ok)
            #expect(await eventually(timeout: .seconds(5)) { plasmashell.inhibited }, "Inhibit at Start")
            let sources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(sources["notifications"] == "plasma:org.freedesktop.Notifications.Inhibit", "\(sources)")

            plasmashell.clearAsThePersonWould()
            #expect(!plasmashell.inhibited)
            #expect(await eventually(timeout: .seconds(2)) { plasmashell.inhibited }, "inhibited again after the person cleared it")

            try await h.killDaemon()
            #expect(await eventually(timeout: .seconds(2)) { !plasmashell.inhibited }, "Plasma drops a killed caller's inhibition")
            try await h.startDaemon()
            #expect(await eventually(timeout: .seconds(5)) { plasmashell.inhibited }, "inhibited again by the restarted daemon")

            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(await eventually(timeout: .seconds(2)) { !plasmashell.inhibited }, "released at End")
            #expect(plasmashell.calls == ["Inhibit", "Inhibit", "Inhibit", "UnInhibit"], "\(plasmashell.calls)")
        }
    }
}

/// org.freedesktop.Notifications as plasmashell serves it for do-not-disturb.
private final class FakePlasmaNotifications: Sendable {
    let connection: Connection
    /// Cookie → the caller's unique name.
    private let inhibitions = Locked<[UInt32: String]>([:])
    private let counter = Locked<UInt32>(0)
    private let log = Locked<[String]>([])

    var inhibited: Bool { inhibitions.withLock { !$0.isEmpty } }
    var calls: [String] { log.withLock { $0 } }

    init(address: String) async throws {
        connection = try Connection(.address(address))
        connection.export("/org/freedesktop/Notifications", [Interface("org.freedesktop.Notifications", [
            .method("Inhibit", in: ["desktop_entry", "reason", "hints"], out: ["cookie"]) {
                (call: MethodCall, _: String, _: String, _: [String: Variant]) -> UInt32 in
                let cookie = self.counter.withLock { $0 += 1; return $0 }
                self.inhibitions.withLock { $0[cookie] = call.message.sender?.rawValue ?? "" }
                self.changed("Inhibit")
                return cookie
            },
            .method("UnInhibit", in: ["cookie"]) { (_: MethodCall, cookie: UInt32) in
                self.inhibitions.withLock { _ = $0.removeValue(forKey: cookie) }
                self.changed("UnInhibit")
            },
            .property("Inhibited", Bool.self) { self.inhibited },
        ])])
        let leaving = try await connection.signals(MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged"))
        Task { [inhibitions] in
            for await change in leaving {
                guard case .string(let name)? = change.arguments.first, change.arguments.last == .string("") else { continue }
                inhibitions.withLock { $0 = $0.filter { $0.value != name } }
            }
        }
        try await connection.requestName("org.freedesktop.Notifications")
    }

    /// The applet's do-not-disturb switched off: every inhibition cleared.
    func clearAsThePersonWould() {
        inhibitions.withLock { $0.removeAll() }
        connection.propertiesChanged("/org/freedesktop/Notifications", "org.freedesktop.Notifications", ["Inhibited"])
    }

    private func changed(_ call: String) {
        log.withLock { $0.append(call) }
        connection.propertiesChanged("/org/freedesktop/Notifications", "org.freedesktop.Notifications", ["Inhibited"])
    }

    func close() { connection.close() }
}

/// The power button on Plasma: PowerDevil's own settings, per Plasma version.
@Suite("Plasma power button", .timeLimit(.minutes(2)))
struct PlasmaPowerButtonTests {
    static let denied = "{'system-restrictions': <{'sleep-wake-button': 'deny'}>}"

    @Test("A session denying sleep-wake-button sets each profile's power button to do nothing where that Plasma keeps it, asks PowerDevil to refreshStatus, and End (also after a kill -9) gives back the file byte for byte",
          .enabled(if: PlasmaSettingsTests.canRun && Requirements.canRunPolkit, .polkitReason),
          arguments: [(6, "powerdevilrc", "SuspendAndShutdown", "PowerButtonAction"),
                      (5, "powermanagementprofilesrc", "HandleButtonEvents", "powerButtonAction")])
    func powerButtonDoesNothing(plasma: Int, file: String, group: String, key: String) async throws {
        var options = PlasmaSettingsTests.plasma
        options.plasma = plasma
        try await withHarness(options) { h in
            let powerDevil = try await CountedMethod(address: h.address, name: "org.kde.Solid.PowerManagement",
                                                       path: "/org/kde/Solid/PowerManagement",
                                                       interface: "org.kde.Solid.PowerManagement", member: "refreshStatus")
            defer { powerDevil.close() }
            let own = "[AC][\(group)]\n\(key)=16\nlidAction=1\n\n[Battery][Display]\nDimDisplayIdleTimeoutSec=300\n"
            try own.write(to: h.kconfig(file), atomically: true, encoding: .utf8)
            // Control: no session, nothing written.
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{}"]).ok)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try String(contentsOf: h.kconfig(file), encoding: .utf8) == own)

            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.denied]).ok)
            for profile in ["AC", "Battery", "LowBattery"] {
                let read = try await h.run(["kreadconfig5", "--file", file, "--group", profile, "--group", group, "--key", key],
                                           environment: h.desktopVariables).output
                #expect(read == "0", "\(profile): \(read)")
            }
            #expect(await eventually(timeout: .seconds(5)) { powerDevil.calls >= 1 }, "refreshStatus: \(powerDevil.calls)")
            let sources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(sources["sleep-wake-button"] == "kconfig:\(file)", "\(sources)")

            try await h.killDaemon()
            try await h.startDaemon()
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try String(contentsOf: h.kconfig(file), encoding: .utf8) == own)
            #expect(await eventually(timeout: .seconds(5)) { powerDevil.calls >= 2 }, "refreshStatus after End: \(powerDevil.calls)")
        }
    }
}

/// A session's own auto-lock on Plasma: no lock screen (the screen locker's
/// settings) and, on Plasma 6, PowerDevil's display time.
@Suite("Plasma auto-lock", .timeLimit(.minutes(2)))
struct PlasmaAutoLockTests {
    static func options(autoLock: Int) -> String { "{'auto-lock': <int64 \(autoLock)>}" }

    @Test("A session with its own AutoLock turns Plasma's lock screen off (kscreenlockerrc, then the locker's configure) and on Plasma 6 sets PowerDevil's display time; End, also after a kill -9, gives back both files byte for byte; a session that leaves AutoLock to the desktop writes nothing",
          .enabled(if: PlasmaSettingsTests.canRun && Requirements.canRunPolkit, .polkitReason),
          arguments: [(6, 300, "300"), (6, 0, "-1"), (5, 300, nil)])
    func autoLock(plasma: Int, seconds: Int, displayTime: String?) async throws {
        var options = PlasmaSettingsTests.plasma
        options.plasma = plasma
        try await withHarness(options) { h in
            let locker = try await CountedMethod(address: h.address, name: "org.kde.screensaver", path: "/ScreenSaver",
                                                 interface: "org.kde.screensaver", member: "configure")
            defer { locker.close() }
            let lockerOwn = "[Daemon]\nTimeout=10\n\n[Greeter]\nTheme=org.kde.breeze.desktop\n"
            let powerFile = plasma == 6 ? "powerdevilrc" : "powermanagementprofilesrc"
            let powerOwn = "[AC][Display]\nTurnOffDisplayIdleTimeoutSec=600\nDimDisplayWhenIdle=true\n"
            try lockerOwn.write(to: h.kconfig("kscreenlockerrc"), atomically: true, encoding: .utf8)
            try powerOwn.write(to: h.kconfig(powerFile), atomically: true, encoding: .utf8)
            func read(_ file: String, _ groups: [String], _ key: String) async throws -> String {
                try await h.run(["kreadconfig5", "--file", file] + groups.flatMap { ["--group", $0] } + ["--key", key],
                                environment: h.desktopVariables).output
            }
            func filesAsOwn() throws -> Bool {
                try String(contentsOf: h.kconfig("kscreenlockerrc"), encoding: .utf8) == lockerOwn
                    && String(contentsOf: h.kconfig(powerFile), encoding: .utf8) == powerOwn
            }
            // Control: the desktop's own auto-lock (-1) is left alone.
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.options(autoLock: -1)]).ok)
            #expect(try filesAsOwn())
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(locker.calls == 0)

            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.options(autoLock: seconds)]).ok)
            for key in ["Autolock", "LockOnResume"] {
                #expect(try await read("kscreenlockerrc", ["Daemon"], key) == "false", "\(key)")
            }
            #expect(try await read("kscreenlockerrc", ["Daemon"], "Timeout") == "10", "the person's other entries stay")
            #expect(await eventually(timeout: .seconds(5)) { locker.calls >= 1 }, "configure: \(locker.calls)")
            for profile in ["AC", "Battery", "LowBattery"] {
                let time = try await read(powerFile, [profile, "Display"], "TurnOffDisplayIdleTimeoutSec")
                if let displayTime {
                    #expect(time == displayTime, "\(profile): \(time)")
                    #expect(try await read(powerFile, [profile, "Display"], "TurnOffDisplayWhenIdle") == (seconds > 0 ? "true" : "false"))
                } else {
                    #expect(time == (profile == "AC" ? "600" : ""), "Plasma 5 keeps the person's display time: \(profile) \(time)")
                }
            }

            try await h.killDaemon()
            try await h.startDaemon()
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(try filesAsOwn())
            #expect(await eventually(timeout: .seconds(5)) { locker.calls >= 2 }, "configure after End: \(locker.calls)")
        }
    }
}

/// The volume keys on Plasma: kglobalaccel (in KWin), played by a fake that
/// keeps its rules, with kmix's actions as plasma-pa registers them.
@Suite("Plasma volume keys", .timeLimit(.minutes(2)))
struct PlasmaVolumeKeysTests {
    static let denied = "{'system-restrictions': <{'volume-buttons': 'deny'}>}"
    static let volumeUp = KeySequence([0x0100_0072])
    static let mute = KeySequence([0x0100_0071])

    @Test("A session denying volume-buttons unbinds kmix's volume keys (setForeignShortcutKeys), and End, also after a kill -9, binds each to the keys it had; actions nobody registered are left alone; without a session nothing changes",
          .enabled(if: Requirements.canRunDaemon && Requirements.canRunPolkit, .polkitReason))
    func volumeKeysUnbound() async throws {
        try await withHarness(PlasmaSettingsTests.plasma) { h in
            let accel = try await FakeGlobalAccel(address: h.address, bound: ["kmix/increase_volume": [Self.volumeUp],
                                                                              "kmix/mute": [Self.mute, Self.volumeUp]])
            defer { accel.close() }
            let before = accel.bindings
            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", "{}"]).ok)
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(accel.bindings == before && accel.writes.isEmpty, "control: \(accel.writes)")

            #expect(try await h.gdbus(.session, "Start", ["'org.example.Kiosk'", Self.denied]).ok)
            #expect(accel.bindings == ["kmix/increase_volume": [], "kmix/mute": []], "\(accel.bindings)")
            #expect(Set(accel.writes) == ["kmix/increase_volume", "kmix/mute"], "only the bound actions: \(accel.writes)")
            let sources = try await h.connect().property(.session, "SystemRestrictionSources", as: [String: String].self)
            #expect(sources["volume-buttons"] == "kglobalaccel:kmix", "\(sources)")

            try await h.killDaemon()
            try await h.startDaemon()
            #expect(try await h.gdbus(.session, "End", ["{}"]).ok)
            #expect(accel.bindings == before, "\(accel.bindings)")
        }
    }
}

/// One key sequence as kglobalaccel sends it: `(ai)`, Qt key codes.
struct KeySequence: DBusType, Equatable {
    static var dbusSignature: Signature { "(ai)" }
    static var qtTypeName: String { "QKeySequence" }
    var codes: [Int32]

    init(_ codes: [Int32]) { self.codes = codes }

    init(dbusValue: DBusValue) throws {
        guard case .structure(let fields) = dbusValue, case .array(_, let codes)? = fields.first else {
            throw DBusError.invalidArgs("not a key sequence: \(dbusValue)")
        }
        self.codes = codes.compactMap { if case .int32(let code) = $0 { code } else { nil } }
    }

    var dbusValue: DBusValue { .structure([.array(element: "i", codes.map(DBusValue.int32))]) }
}

/// kglobalaccel's `org.kde.KGlobalAccel` as far as bindings go.
private final class FakeGlobalAccel: Sendable {
    let connection: Connection
    private let state: Locked<(bindings: [String: [KeySequence]], writes: [String])>

    var bindings: [String: [KeySequence]] { state.withLock { $0.bindings } }
    var writes: [String] { state.withLock { $0.writes } }

    init(address: String, bound: [String: [KeySequence]]) async throws {
        state = Locked((bound, []))
        connection = try Connection(.address(address))
        let state = state
        @Sendable func name(_ id: [String]) -> String { "\(id[0])/\(id[1])" }
        connection.export("/kglobalaccel", [Interface("org.kde.KGlobalAccel", [
            .method("shortcutKeys", in: ["actionId"], out: ["keys"]) { (_: MethodCall, id: [String]) -> [KeySequence] in
                state.withLock { $0.bindings[name(id)] ?? [] }
            },
            .method("defaultShortcutKeys", in: ["actionId"], out: ["keys"]) { (_: MethodCall, id: [String]) -> [KeySequence] in
                bound[name(id)] ?? []
            },
            .method("setForeignShortcutKeys", in: ["actionId", "keys"]) { (_: MethodCall, id: [String], keys: [KeySequence]) in
                state.withLock { state in
                    // kglobalaccel ignores an action no program registered.
                    guard state.bindings[name(id)] != nil else { return }
                    state.bindings[name(id)] = keys
                    state.writes.append(name(id))
                }
            },
        ])])
        try await connection.requestName("org.kde.kglobalaccel")
    }

    func close() { connection.close() }
}
