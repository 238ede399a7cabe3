// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The built `guided-access` binary against the daemon.
@Suite("guided-access CLI")
struct CLITests {
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test("usage errors exit 2 without touching the bus")
    func usageErrors() async throws {
        let cli = Project.cli
        try #require(FileManager.default.isExecutableFile(atPath: cli), "build guided-access first")
        for arguments in [["start"], ["start", "--app", "x", "--time-limit", "5q"], ["start", "--app", "x", "--deny", "toaster"],
                          ["start", "--app", "x", "--disable-region", "1,2,3"], ["features", "set", "Bogus", "on"],
                          ["features", "set", "reduce-motion", "maybe"], ["restrictions", "deny"], ["frobnicate"],
                          ["start", "--app", "x", "--presentation", "stretched"], ["start", "--app", "x", "--auto-lock", "soon"],
                          ["start", "--app", "x", "--accessibility-shortcut", "teleport"],
                          ["start", "--app", "x", "--feature", "zoom=maybe"], ["start", "--app", "x", "--feature", "zoom"],
                          ["last-options"]] {
            let result = try await ProcessRunner.run([cli] + arguments + ["--address", "unix:path=/nonexistent"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.isEmpty)
        }
        let help = try await ProcessRunner.run([cli, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Exit status"))
    }

    @Test("an unreachable bus exits 4 and says it is the bus, not the service")
    func unreachable() async throws {
        let result = try await ProcessRunner.run([Project.cli, "status", "--address", "unix:path=/nonexistent/bus"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("the bus at unix:path=/nonexistent/bus cannot be reached; check --address"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("not running"), "\(result.stderr)")
    }

    @Test("without polkit, an admin command says so once and names try mode, not --interactive",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func noPolkit() async throws {
        let fixture = try await ServiceFixture.start(polkit: false)
        defer { fixture.stop() }
        // The system bus this command sees has no polkit either (none at all here).
        let result = try await fixture.cli(["start", "--app", "org.example.App", "--time-limit", "10m", "--interactive"],
                                           environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("scripts/run-daemon --try"), "\(result.stderr)")
        #expect(!result.stderr.contains("run with --interactive"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "not authorized").count == 2, "said twice: \(result.stderr)")
    }

    @Test("a bus without the service exits 4",
          .enabled(if: ProcessRunner.findExecutable(named: "dbus-daemon") != nil, "needs dbus-daemon"))
    func serviceMissing() async throws {
        let bus = try PrivateBus.startSession()
        defer { bus.stop() }
        let result = try await ProcessRunner.run([Project.cli, "restrictions", "list"],
                                                 environment: ["GUIDED_ACCESS_BUS_ADDRESS": bus.address])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("not running"))
    }

    @Test("status, start, passcode, end: output, JSON and exit codes",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func sessionLifecycle() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }

        var result = try await fixture.cli(["status"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("inactive"))
        result = try await fixture.cli(["status", "--json"])
        var status = try #require(try Self.json(result.stdout) as? [String: Any])
        #expect(status["enabled"] as? Bool == false)
        #expect(status["state"] as? String == "inactive")

        result = try await fixture.cli(["end"])
        #expect(result.status == 5, "ending without a session is an invalid state: \(result.stderr)")

        result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--time-limit", "1h30m",
                                        "--deny", "sleep-wake-button,volume-buttons", "--deny", "touch",
                                        "--disable-region", "0,0,100,50", "--disable-region", "10,20,30,40"])
        #expect(result.status == 0, "\(result.stderr)\n\(fixture.daemonLog())")
        result = try await fixture.cli(["status", "--json"])
        status = try #require(try Self.json(result.stdout) as? [String: Any])
        #expect(status["enabled"] as? Bool == true)
        #expect(status["app"] as? String == "/usr/bin/kiosk")
        #expect(status["timeLimit"] as? Int == 5400)
        let system = status["systemRestrictions"] as? [String: String] ?? [:]
        #expect(system["sleep-wake-button"] == "deny" && system["volume-buttons"] == "deny" && system["touch"] == "deny")
        let sources = status["systemRestrictionSources"] as? [String: String] ?? [:]
        #expect(sources["keyboards"] == "published")
        #expect(sources["touch"] == "gsettings:org.gnome.desktop.peripherals.touchpad/send-events")
        result = try await fixture.cli(["status"])
        #expect(result.stdout.contains("ENFORCED THROUGH"), "\(result.stdout)")
        #expect(result.stdout.contains("gsettings org.gnome.desktop.peripherals.touchpad (send-events)"), "\(result.stdout)")
        #expect(system["motion"] == "allow")
        #expect(status["disabledRegions"] as? [[Int]] == [[0, 0, 100, 50], [10, 20, 30, 40]])
        result = try await fixture.cli(["status"])
        #expect(result.stdout.contains("/usr/bin/kiosk") && result.stdout.contains("1h30m"))
        #expect(result.stdout.contains("Enforced on screen by:  nothing"), "\(result.stdout)")

        // A shell registers (through the client library); status says who enforces what.
        let shell = try GuidedAccessAdmin(connection: Connection(.address(fixture.address)))
        try await shell.registerEnforcer(name: "test-shell", enforcing: ["app-lock", "touch"])
        result = try await fixture.cli(["status"])
        #expect(result.stdout.contains("test-shell (app-lock, touch)"), "\(result.stdout)")
        #expect(result.stdout.contains("shell test-shell; gsettings org.gnome.desktop.peripherals.touchpad (send-events)"),
                "\(result.stdout)")
        status = try #require(try Self.json(try await fixture.cli(["status", "--json"]).stdout) as? [String: Any])
        #expect(status["enforcers"] as? [String: [String]] == ["test-shell": ["app-lock", "touch"]])
        shell.close()

        result = try await fixture.cli(["start", "--app", "/usr/bin/other"])
        #expect(result.status == 5, "a second start is an invalid state: \(result.stderr)")

        result = try await fixture.cli(["passcode", "set"], stdin: "")
        #expect(result.status == 2, "an empty passcode is a usage error")
        result = try await fixture.cli(["passcode", "set"], stdin: "4711\n")
        #expect(result.status == 0, "\(result.stderr)")
        result = try await fixture.cli(["status", "--json"])
        status = try #require(try Self.json(result.stdout) as? [String: Any])
        #expect(status["passcodeSet"] as? Bool == true)

        if ProcessRunner.canRunUnprivileged {
            result = try await fixture.cli(["end", "--passcode-stdin"], stdin: "4711\n", asNobody: true)
            #expect(result.status == 3, "another user is not authorized: \(result.stderr)")
            #expect(result.stderr.contains("refuses calls from user") && !result.stderr.contains("--try"), "\(result.stderr)")
        }

        result = try await fixture.cli(["end", "--passcode-stdin"], stdin: "4711\n")
        #expect(result.status == 0, "\(result.stderr)")
        result = try await fixture.cli(["status", "--json"])
        status = try #require(try Self.json(result.stdout) as? [String: Any])
        #expect(status["enabled"] as? Bool == false)
    }

    @Test("start --presentation --auto-lock, status shows them, last-options (table and JSON)",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func presentationAutoLockAndLastOptions() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }

        var result = try await fixture.cli(["last-options", "/usr/bin/kiosk"])
        #expect(result.status == 0 && result.stdout.contains("No options kept for /usr/bin/kiosk"), "\(result.stdout)\(result.stderr)")
        result = try await fixture.cli(["last-options", "/usr/bin/kiosk", "--json"])
        #expect((try Self.json(result.stdout) as? [String: Any])?.isEmpty == true, "\(result.stdout)")

        result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--time-limit", "10m", "--deny", "touch",
                                        "--disable-region", "5,6,7,8", "--deny-custom", "org.example.kiosk.buy",
                                        "--presentation", "fullscreen", "--auto-lock", "never"])
        #expect(result.status == 0, "\(result.stderr)\n\(fixture.daemonLog())")
        var status = try #require(try Self.json(try await fixture.cli(["status", "--json"]).stdout) as? [String: Any])
        #expect(status["presentation"] as? String == "fullscreen" && status["autoLock"] as? Int == 0)
        result = try await fixture.cli(["status"])
        #expect(result.stdout.contains("Presentation:") && result.stdout.contains("fullscreen"), "\(result.stdout)")
        #expect(result.stdout.contains("Auto-lock:") && result.stdout.contains("never"), "\(result.stdout)")
        result = try await fixture.cli(["end"])
        #expect(result.status == 0, "\(result.stderr)")

        result = try await fixture.cli(["last-options", "/usr/bin/kiosk"])
        #expect(result.status == 0, "\(result.stderr)")
        for expected in ["10m", "touch", "5,6,7,8", "org.example.kiosk.buy", "fullscreen", "never"] {
            #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
        }
        result = try await fixture.cli(["last-options", "/usr/bin/kiosk", "--json"])
        let options = try #require(try Self.json(result.stdout) as? [String: Any], "\(result.stdout)")
        #expect(options["timeLimit"] as? Int == 600 && options["presentation"] as? String == "fullscreen")
        #expect(options["autoLock"] as? Int == 0)
        #expect((options["systemRestrictions"] as? [String: String])?.count == 8)
        #expect(options["disabledRegions"] as? [[Int]] == [[5, 6, 7, 8]])
        #expect(options["restrictions"] as? [String: String] == ["org.example.kiosk.buy": "deny"])

        result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--auto-lock", "5m"])
        #expect(result.status == 0, "\(result.stderr)")
        status = try #require(try Self.json(try await fixture.cli(["status", "--json"]).stdout) as? [String: Any])
        #expect(status["autoLock"] as? Int == 300 && status["presentation"] as? String == "as-is")
        _ = try await fixture.cli(["end"])
        result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--auto-lock", "25h"])
        #expect(result.status == 2, "a value the service refuses is a usage error: \(result.stderr)")
        #expect(result.stderr.contains("auto-lock of 90000 seconds"), "\(result.stderr)")
        result = try await fixture.cli(["last-options", "kiosk/relative"])
        #expect(result.status == 2, "\(result.stderr)")
    }

    @Test("start --also-allow --accessibility-shortcut --feature: status shows the mode and them, the feature is put back at the end, last-options keeps them",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func alsoAllowedShortcutAndFeatures() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }

        var result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--also-allow", "org.example.Calc,org.example.Notes",
                                            "--accessibility-shortcut", "screen-reader,zoom", "--feature", "bold-text=on"])
        #expect(result.status == 0, "\(result.stderr)\n\(fixture.daemonLog())")
        result = try await fixture.cli(["status"])
        for expected in ["guided (the passcode or an administrator ends it)", "org.example.Calc, org.example.Notes", "screen-reader, zoom"] {
            #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
        }
        let status = try #require(try Self.json(try await fixture.cli(["status", "--json"]).stdout) as? [String: Any])
        #expect(status["mode"] as? String == "guided" && status["accessibilityShortcut"] as? [String] == ["ScreenReader", "Zoom"])
        #expect(status["alsoAllowed"] as? [String] == ["org.example.Calc", "org.example.Notes"])
        var features = try #require(try Self.json(try await fixture.cli(["features", "list", "--json"]).stdout) as? [[String: Any]])
        #expect(features.first { $0["name"] as? String == "BoldText" }?["enabled"] as? Bool == true, "set for the session")
        #expect(try await fixture.cli(["end"]).status == 0)
        features = try #require(try Self.json(try await fixture.cli(["features", "list", "--json"]).stdout) as? [[String: Any]])
        #expect(features.first { $0["name"] as? String == "BoldText" }?["enabled"] as? Bool == false, "put back at the end")

        result = try await fixture.cli(["last-options", "/usr/bin/kiosk"])
        for expected in ["org.example.Calc, org.example.Notes", "screen-reader, zoom", "bold-text=on"] {
            #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
        }
        let options = try #require(try Self.json(try await fixture.cli(["last-options", "/usr/bin/kiosk", "--json"]).stdout) as? [String: Any])
        #expect(options["alsoAllowed"] as? [String] == ["org.example.Calc", "org.example.Notes"])
        #expect(options["accessibilityShortcut"] as? [String] == ["ScreenReader", "Zoom"])
        #expect(options["features"] as? [String: Bool] == ["BoldText": true])

        result = try await fixture.cli(["start", "--app", "/usr/bin/kiosk", "--also-allow", "calc/relative"])
        #expect(result.status == 2 && result.stderr.contains("also-allowed"), "a value the service refuses is a usage error: \(result.stderr)")
    }

    @Test("restrictions and features: list (table and JSON), deny, allow, reset, set",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func restrictionsAndFeatures() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        let delegate = RecordingDelegate(["org.example.cli.purchase", "org.example.cli.print"])
        try await client.setRestrictionDelegate(delegate)

        var result = try await fixture.cli(["restrictions", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("IDENTIFIER"))
        #expect(result.stdout.contains("org.example.cli.purchase") && result.stdout.contains("Text for org.example.cli.print"))

        result = try await fixture.cli(["restrictions", "deny", "org.example.cli.purchase"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(await next(delegate.changes) == GuidedAccessRestrictionChange(identifier: "org.example.cli.purchase", state: .deny))
        // An identifier no app declared: kept, but a typo is likely, so it warns.
        result = try await fixture.cli(["restrictions", "deny", "org.example.cli.purchse"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: no app has declared org.example.cli.purchse"), "\(result.stderr)")
        _ = try await fixture.cli(["restrictions", "reset", "org.example.cli.purchse"])

        result = try await fixture.cli(["restrictions", "list", "--json"])
        let rows = try #require(try Self.json(result.stdout) as? [[String: Any]])
        let purchase = try #require(rows.first { $0["identifier"] as? String == "org.example.cli.purchase" })
        #expect(purchase["state"] as? String == "deny")
        #expect(purchase["registered"] as? Bool == true)
        #expect(purchase["app"] as? String == Binaries.selfExecutable)
        #expect(purchase["text"] as? String == "Text for org.example.cli.purchase")

        result = try await fixture.cli(["restrictions", "deny", "not a valid identifier"])
        #expect(result.status == 2, "an identifier the service refuses is a usage error: \(result.stderr)")

        result = try await fixture.cli(["restrictions", "allow", "org.example.cli.purchase"])
        #expect(result.status == 0)
        #expect(await next(delegate.changes)?.state == .allow)
        _ = try await fixture.cli(["restrictions", "deny", "org.example.cli.print"])
        #expect(await next(delegate.changes)?.state == .deny)
        result = try await fixture.cli(["restrictions", "reset"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await next(delegate.changes) == GuidedAccessRestrictionChange(identifier: "org.example.cli.print", state: .allow))

        result = try await fixture.cli(["features", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ReduceMotion (reduce-motion)"))
        result = try await fixture.cli(["features", "set", "reduce-motion", "on"])
        #expect(result.status == 0, "\(result.stderr)")
        result = try await fixture.cli(["features", "set", "BoldText", "on"])
        #expect(result.status == 0, "\(result.stderr)")
        result = try await fixture.cli(["features", "list", "--json"])
        let features = try #require(try Self.json(result.stdout) as? [[String: Any]])
        #expect(features.count == AccessibilityFeature.allCases.count)
        #expect(features.first { $0["name"] as? String == "ReduceMotion" }?["enabled"] as? Bool == true)
        #expect(features.first { $0["name"] as? String == "BoldText" }?["enabled"] as? Bool == true)
        #expect(features.first { $0["name"] as? String == "Zoom" }?["enabled"] as? Bool == false)
        // The fixture's daemon keeps GSettings in memory: the keys exist, nothing is written to disk.
        #expect(features.first { $0["name"] as? String == "ReduceMotion" }?["source"] as? String
                == "gsettings:org.gnome.desktop.interface/enable-animations")
        #expect(features.first { $0["name"] as? String == "BoldText" }?["source"] as? String == "service")
        #expect(await eventually { client.isReduceMotionEnabled && client.isBoldTextEnabled })
    }

    @Test("restrictions list and features list mark what managed.json forces and locks (table and JSON)")
    func managedMarks() async throws {
        let fixture = try await ServiceFixture.start(polkit: false, managed: [
            "Restrictions": ["org.example.cli.kiosk": "deny"], "LockedFeatures": ["BoldText": true]])
        defer { fixture.stop() }
        let client = GuidedAccessClient(address: fixture.address)
        try await client.setRestrictionDelegate(RecordingDelegate(["org.example.cli.kiosk", "org.example.cli.print"]))

        var result = try await fixture.cli(["restrictions", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        let kiosk = result.stdout.split(separator: "\n").first { $0.hasPrefix("org.example.cli.kiosk") }
        let print = result.stdout.split(separator: "\n").first { $0.hasPrefix("org.example.cli.print") }
        #expect(kiosk?.contains("deny (forced by managed.json)") == true, "\(result.stdout)")
        #expect(print?.contains("forced") == false, "\(result.stdout)")
        result = try await fixture.cli(["restrictions", "list", "--json"])
        let rows = try #require(try Self.json(result.stdout) as? [[String: Any]])
        #expect(rows.first { $0["identifier"] as? String == "org.example.cli.kiosk" }?["forced"] as? Bool == true)
        #expect(rows.first { $0["identifier"] as? String == "org.example.cli.print" }?["forced"] as? Bool == false)

        result = try await fixture.cli(["features", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        let bold = result.stdout.split(separator: "\n").first { $0.hasPrefix("BoldText") }
        #expect(bold?.contains("on (locked by managed.json)") == true, "\(result.stdout)")
        #expect(!result.stdout.contains("ReduceMotion (reduce-motion)  on (locked"), "\(result.stdout)")
        result = try await fixture.cli(["features", "list", "--json"])
        let features = try #require(try Self.json(result.stdout) as? [[String: Any]])
        #expect(features.first { $0["name"] as? String == "BoldText" }?["locked"] as? String == "managed")
        #expect(features.first { $0["name"] as? String == "Zoom" }?["locked"] is NSNull)
    }

    @Test("monitor prints each signal as one JSON line as it arrives",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func monitor() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        // Runs until killed: what it printed must already be on stdout (flushed per line).
        async let monitored: String = {
            do {
                let result = try await ProcessRunner.run(
                    [Project.cli, "monitor", "--json", "--address", fixture.address], timeout: .seconds(6))
                return "exited early with \(result.status): \(result.stderr)"
            } catch let failure as ProcessRunner.Failure {
                return failure.stdout
            } catch {
                return "\(error)"
            }
        }()
        try await Task.sleep(for: .seconds(2))  // let it subscribe
        let admin = try fixture.admin()
        defer { admin.close() }
        try await admin.setRestriction("org.example.monitor.thing", to: .deny)
        try await admin.start(app: "/usr/bin/kiosk")
        let output = await monitored
        let lines = output.split(separator: "\n").map(String.init)
        let events = lines.compactMap { try? Self.json($0) as? [String: Any] }
        #expect(events.count == lines.count && !lines.isEmpty, "every line is one JSON object: \(output)")
        let changed = try #require(events.first { $0["member"] as? String == "RestrictionChanged" }, "\(output)")
        #expect(changed["interface"] as? String == ServiceInterface.restrictions.rawValue)
        #expect(changed["path"] as? String == GuidedAccessBus.objectPath)
        #expect(changed["arguments"] as? [String] == ["org.example.monitor.thing", "deny"])
        let status = try #require(events.first { $0["member"] as? String == "StatusChanged" }, "\(output)")
        #expect(status["arguments"] as? [Bool] == [true])
    }

    @Test("monitor --count stops after that many signals; text lines name interface and member",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func monitorCount() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        async let monitored = fixture.cli(["monitor", "--count", "1"])
        try await Task.sleep(for: .seconds(2))
        let admin = try fixture.admin()
        defer { admin.close() }
        try await admin.start(app: "/usr/bin/kiosk")
        let result = try await monitored
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stdout.hasPrefix("org."))
    }
}

/// The example shop against the daemon.
@Suite("guided-access-shop example")
struct ShopTests {
    @Test("purchases are refused while denied, offered again once allowed",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func purchaseRestriction() async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let admin = try fixture.admin()
        defer { admin.close() }
        try await admin.setRestriction("org.example.shop.purchase", to: .deny)

        async let shopped = ProcessRunner.run(
            [Binaries.shop, "--address", fixture.address],
            stdin: "list\nbuy apple\nwait allow\nlist\nbuy apple\nquit\n", timeout: .seconds(40))
        let registered = try await eventually(timeout: .seconds(20)) {
            try await admin.restrictions().first { $0.identifier == "org.example.shop.purchase" }?.isRegistered == true
        }
        #expect(registered)
        let listed = try await admin.restrictions().first { $0.identifier == "org.example.shop.purchase" }
        #expect(listed?.text == "Purchases")
        #expect(listed?.detailText == "Buying items in the shop")
        // The shop reads stdin right after registering; give it time to
        // work through the lines before `wait allow`.
        try await Task.sleep(for: .milliseconds(1500))
        try await admin.setRestriction("org.example.shop.purchase", to: .allow)

        let result = try await shopped
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let refused = try #require(lines.firstIndex(of: "Purchases are turned off by Guided Access"), "\(result.stdout)")
        let changed = try #require(lines.firstIndex(of: "purchase restriction: allow"), "\(result.stdout)")
        let bought = try #require(lines.firstIndex { $0.hasPrefix("Bought apple") }, "\(result.stdout)")
        #expect(refused < changed && changed < bought)
        #expect(lines.contains("Welcome to the shop. Purchases are off. Commands: list, buy ITEM, quit"))
        #expect(!lines[..<refused].contains { $0.contains("[buy") }, "the buy option is hidden while denied")
        #expect(lines[changed...].contains { $0.contains("[buy apple]") })
    }
}

/// The apps in other languages (Examples/python, Examples/c, Examples/qt):
/// the same notes app with no library of ours, against the daemon.
@Suite("Examples in Python, C and Qt")
struct OtherLanguageExampleTests {
    @Test("Python (PyGObject): registers two restrictions, reads its features, follows RestrictionChanged and StatusChanged",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func python() async throws {
        try await runNotesApp(["/usr/bin/python3", Project.root.appendingPathComponent("Examples/python/notes_app.py").path])
    }

    @Test("C (GDBus, proxies from gdbus-codegen and dbus/*.xml): the same",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func c() async throws {
        let output = Self.buildDirectory("c")
        defer { try? FileManager.default.removeItem(at: output) }
        try await build("c", into: output)
        try await runNotesApp([output.appendingPathComponent("notes-app").path])
    }

    @Test("Qt 5 (QtDBus, proxies from qdbusxml2cpp -p and dbus/*.xml): the same, and what List and DisabledRegions hold",
          .enabled(if: Requirements.canRunPolkit, .polkitReason),
          .enabled(if: QtTools.canBuildClients, Comment(rawValue: QtTools.clientToolsMissing)))
    func qt() async throws {
        let output = Self.buildDirectory("qt")
        defer { try? FileManager.default.removeItem(at: output) }
        try await build("qt", into: output)
        // List's rows, sorted by identifier, with the texts as registered;
        // the region the session was started with, as the app reads it.
        try await runNotesApp([output.appendingPathComponent("notes-app").path], listed: [
            "listed org.example.notes.delete: Deleting notes (Removing notes for good)",
            "listed org.example.notes.share: Sharing (Sending notes to other apps)",
        ], regions: ["disabled region 10,20 300x40"])
    }

    static func buildDirectory(_ language: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("notes-app-\(language)-\(getpid())")
    }

    /// Runs `Examples/<language>/build.sh` on the repository's `dbus/*.xml`.
    private func build(_ language: String, into output: URL) async throws {
        let built = try await ProcessRunner.run(
            [Project.root.appendingPathComponent("Examples/\(language)/build.sh").path, output.path,
             Project.root.appendingPathComponent("dbus").path], timeout: .seconds(180))
        try #require(built.status == 0, "\(built.stderr)")
    }

    /// Runs the app until three changes, making them as an admin, and checks
    /// every line it printed; `listed` and `regions` are the lines only the
    /// Qt app prints (after registering, and when the session starts).
    private func runNotesApp(_ argv: [String], listed: [String] = [], regions: [String] = []) async throws {
        let fixture = try await ServiceFixture.start(polkit: true)
        defer { fixture.stop() }
        let admin = try fixture.admin()
        defer { admin.close() }
        async let ran = ProcessRunner.run(argv + ["--address", fixture.address, "--events", "3"], timeout: .seconds(40))
        let registered = try await eventually(timeout: .seconds(20)) {
            try await admin.restrictions().filter { $0.identifier.hasPrefix("org.example.notes.") && $0.isRegistered }.count == 2
        }
        #expect(registered)
        try await admin.setRestriction("org.example.notes.share", to: .deny)
        try await admin.start(app: "/usr/bin/notes",
                              options: .init(disabledRegions: [GuidedAccessRegion(x: 10, y: 20, width: 300, height: 40)]))
        try await admin.end()

        let result = try await ran
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let startup = ["registered 2 restrictions"] + listed + [
            "restriction org.example.notes.share: allow", "restriction org.example.notes.delete: allow",
            "feature ReduceMotion: off", "feature BoldText: off", "guided access: off",
        ]
        #expect(Array(lines.prefix(startup.count)) == startup, "\(result.stdout)")
        #expect(Array(lines.dropFirst(startup.count)) == [
            "restriction org.example.notes.share: deny", "guided access: on",
        ] + regions + ["guided access: off"], "\(result.stdout)")
    }
}
