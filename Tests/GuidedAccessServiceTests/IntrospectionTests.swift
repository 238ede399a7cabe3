// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// The served interfaces equal the contract in `dbus/*.xml`, and busctl shows it.
@Suite("Introspection and busctl", .timeLimit(.minutes(2)))
struct IntrospectionTests {
    /// The `<interface ...>...</interface>` elements of an XML text, verbatim.
    static func interfaceElements(_ xml: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(xml)
        while let open = rest.range(of: "<interface name=\"") {
            guard let close = rest[open.upperBound...].range(of: "</interface>") else { break }
            let element = String(rest[open.lowerBound..<close.upperBound])
            let name = String(rest[open.upperBound...].prefix { $0 != "\"" })
            result[name] = element
            rest = rest[close.upperBound...]
        }
        return result
    }

    static func contractFiles() throws -> [String: String] {
        var elements: [String: String] = [:]
        for file in Project.interfaceFiles {
            let found = interfaceElements(try String(contentsOf: file, encoding: .utf8))
            #expect(found.count == 1, "\(file.lastPathComponent) should hold one interface")
            elements.merge(found) { first, _ in first }
        }
        return elements
    }

    @Test("Golden: shell/common/contract.js, the shells' names, is what --print-shell-contract prints from the declarations",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func shellContract() async throws {
        let file = try String(contentsOf: Project.root.appendingPathComponent("shell/common/contract.js"), encoding: .utf8)
        let printed = try await ProcessRunner.run([Project.daemon, "--print-shell-contract"], timeout: .seconds(20))
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == file, "shell/common/contract.js is out of date; run scripts/generate-interfaces")
        #expect(file.contains("export var BUS_NAME = \"\(GuidedAccessBus.name)\";"))
        for restriction in SystemRestriction.allCases {
            #expect(file.contains("\"\(restriction.rawValue)\""), "\(restriction) missing")
        }
    }

    @Test("Golden: --print-introspection and the live objects serve each dbus/org.guidedaccess.*.xml interface verbatim",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func golden() async throws {
        let contract = try Self.contractFiles()
        #expect(Set(contract.keys) == [ServiceInterface.session.rawValue, ServiceInterface.features.rawValue, ServiceInterface.restrictions.rawValue, ServiceInterface.restriction.rawValue])

        let printed = try await ProcessRunner.run([Project.daemon, "--print-introspection"], timeout: .seconds(20))
        #expect(printed.status == 0, "\(printed.stderr)")
        for (name, element) in contract {
            #expect(printed.stdout.contains(element), "--print-introspection differs from dbus/\(name).xml; run scripts/generate-interfaces")
        }
        #expect(Set(Self.interfaceElements(printed.stdout).keys) == Set(contract.keys))

        try await withHarness { h in
            let client = try h.connect()
            _ = try await client.ga(.restrictions, "Register", [declarations([("com.example.app.golden", "Golden", "")])])
            let live = try await client.ga("org.freedesktop.DBus.Introspectable", "Introspect")
            guard case .string(let xml)? = live.first else { Issue.record("Introspect gave \(live)"); return }
            for name in [ServiceInterface.session.rawValue, ServiceInterface.features.rawValue, ServiceInterface.restrictions.rawValue] {
                #expect(xml.contains(try #require(contract[name])), "live \(name) differs from dbus/\(name).xml")
            }
            for standard in ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable",
                             "org.freedesktop.DBus.Peer", "org.freedesktop.DBus.ObjectManager"] {
                #expect(xml.contains("<interface name=\"\(standard)\">"), "\(standard) missing")
            }
            let objectXML = try await client.ga("org.freedesktop.DBus.Introspectable", "Introspect",
                                                path: try #require(ObjectPath.restriction("com.example.app.golden")).rawValue)
            guard case .string(let restrictionXML)? = objectXML.first else { Issue.record("Introspect gave \(objectXML)"); return }
            #expect(restrictionXML.contains(try #require(contract[ServiceInterface.restriction.rawValue])))
        }
    }

    @Test("qdbusxml2cpp -p (Qt 5) makes a proxy of every dbus/*.xml, with the C++ types Qt apps declare",
          .enabled(if: QtTools.generator != nil, Comment(rawValue: QtTools.generatorMissing)))
    func qtProxies() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qt-proxies-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var headers = ""
        #expect(Project.interfaceFiles.count == 4)
        for file in Project.interfaceFiles {
            let proxy = directory.appendingPathComponent(file.deletingPathExtension().lastPathComponent).path
            let generated = try await ProcessRunner.run([try #require(QtTools.generator), "-p", proxy, file.path], timeout: .seconds(30))
            // qdbusxml2cpp refuses a file over one member it cannot type, and says so on stderr.
            #expect(generated.status == 0 && generated.stderr.isEmpty,
                    "qdbusxml2cpp refused \(file.lastPathComponent): \(generated.stderr)")
            headers += (try? String(contentsOfFile: proxy + ".h", encoding: .utf8)) ?? ""
        }
        for declaration in [
            "QDBusPendingReply<QList<QDBusObjectPath> > Register(const QList<GuidedAccessRestrictionEntry> &restrictions)",
            "QDBusPendingReply<QList<GuidedAccessRestrictionRow> > List()",
            "QDBusPendingReply<> Start(const QString &app, const QVariantMap &options)",
            "QDBusPendingReply<> End(const QVariantMap &options)",
            "QDBusPendingReply<bool> RequestSession(bool enable, const QVariantMap &options)",
            "QDBusPendingReply<QVariantMap> GetLastOptions(const QString &app)",
            "Q_PROPERTY(QMap<QString,QString> SystemRestrictions READ systemRestrictions)",
            "Q_PROPERTY(QMap<QString,QString> SystemRestrictionSources READ systemRestrictionSources)",
            "Q_PROPERTY(QMap<QString,QStringList> Enforcers READ enforcers)",
            "Q_PROPERTY(QList<GuidedAccessRegion> DisabledRegions READ disabledRegions)",
            "Q_PROPERTY(QMap<QString,QString> Sources READ sources)",
            "Q_PROPERTY(bool Registered READ registered)",
        ] {
            #expect(headers.contains(declaration), "no \(declaration) in the generated proxies")
        }
    }

    @Test("busctl tree, introspect and get-property show the contract",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func busctlShowsTheContract() async throws {
        try await withHarness { h in
            let client = try h.connect()
            _ = try await client.ga(.restrictions, "Register", [declarations([("com.example.app.busctl", "Shown", "In busctl")])])
            let objectPath = try #require(ObjectPath.restriction("com.example.app.busctl")).rawValue

            let tree = try await h.busctl(["tree", GuidedAccessBus.name])
            #expect(tree.ok, "\(tree)")
            #expect(tree.stdout.contains(GuidedAccessBus.objectPath))
            #expect(tree.stdout.contains(objectPath), "\(tree.stdout)")

            let introspect = try await h.busctl(["introspect", GuidedAccessBus.name, GuidedAccessBus.objectPath])
            #expect(introspect.ok, "\(introspect)")
            let rows = introspect.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            func row(_ name: String) -> [String]? { rows.first { $0.first == name } }
            for interface in [ServiceInterface.session.rawValue, ServiceInterface.features.rawValue, ServiceInterface.restrictions.rawValue, "org.freedesktop.DBus.ObjectManager",
                              "org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable"] {
                #expect(row(interface)?.dropFirst().first == "interface", "\(interface) not in busctl introspect")
            }
            let expected: [(String, String, String)] = [
                (".Start", "method", "sa{sv}"), (".End", "method", "a{sv}"), (".RequestSession", "method", "ba{sv}"),
                (".SetPasscode", "method", "s"), (".ExtendTimeLimit", "method", "t"),
                (".SetFeature", "method", "sb"), (".ConfigureForGuidedAccess", "method", "asb"),
                (".Register", "method", "a(sss)"), (".Unregister", "method", "as"), (".GetState", "method", "s"),
                (".IsAllowed", "method", "s"), (".SetState", "method", "ss"), (".Reset", "method", "as"), (".List", "method", "-"),
                (".Version", "property", "u"), (".Enabled", "property", "b"), (".State", "property", "s"),
                (".App", "property", "s"), (".StartedAt", "property", "t"), (".TimeLimit", "property", "t"),
                (".TimeRemaining", "property", "t"), (".SystemRestrictions", "property", "a{ss}"),
                (".DisabledRegions", "property", "a(iiii)"), (".PasscodeSet", "property", "b"),
                (".AllowedApplications", "property", "as"), (".Sources", "property", "a{ss}"),
                (".Presentation", "property", "s"), (".AutoLock", "property", "x"), (".GetLastOptions", "method", "s"),
                (".ScreenReader", "property", "b"), (".VisualBell", "property", "b"),
                (".StatusChanged", "signal", "b"), (".TimeLimitWarning", "signal", "t"), (".TimeExpired", "signal", "-"),
                (".RestrictionChanged", "signal", "ss"),
            ]
            for (name, kind, signature) in expected {
                #expect(row(name).map { Array($0.dropFirst().prefix(2)) } == [kind, signature], "\(name): \(row(name) ?? [])")
            }
            #expect(row(".Version")?.suffix(2) == ["1", "const"])
            #expect(row(".TimeRemaining")?.last != "emits-change")
            #expect(row(".List").map { $0.count >= 4 && $0[3] == "a(sssssb)" } == true)
            #expect(row(".Register").map { $0.count >= 4 && $0[3] == "ao" } == true)
            #expect(row(".GetLastOptions").map { $0.count >= 4 && $0[3] == "a{sv}" } == true)
            #expect(row(".Presentation")?.last == "emits-change" && row(".AutoLock")?.last == "emits-change")

            let objectIntrospect = try await h.busctl(["introspect", GuidedAccessBus.name, objectPath, ServiceInterface.restriction.rawValue])
            #expect(objectIntrospect.ok, "\(objectIntrospect)")
            for property in [".Identifier", ".Text", ".DetailText", ".State", ".App", ".Registered"] {
                #expect(objectIntrospect.stdout.contains(property), "\(property)")
            }

            #expect(try await h.busctl(getProperty(.session, "Version")).output == "u 1")
            #expect(try await h.busctl(getProperty(.session, "State")).output == #"s "inactive""#)
            #expect(try await h.busctl(getProperty(.session, "Enabled")).output == "b false")
            #expect(try await h.busctl(getProperty(.session, "App")).output == #"s """#)
            #expect(try await h.busctl(getProperty(.session, "TimeLimit")).output == "t 0")
            #expect(try await h.busctl(getProperty(.session, "DisabledRegions")).output == "a(iiii) 0")
            #expect(try await h.busctl(getProperty(.session, "AllowedApplications")).output == "as 0")
            #expect(try await h.busctl(getProperty(.session, "Presentation")).output == #"s "as-is""#)
            #expect(try await h.busctl(getProperty(.session, "AutoLock")).output == "x -1")
            let system = try await h.busctl(["--json=short"] + getProperty(.session, "SystemRestrictions"))
            let json = try JSONSerialization.jsonObject(with: Data(system.stdout.utf8)) as? [String: Any]
            #expect(json?["type"] as? String == "a{ss}")
            #expect((json?["data"] as? [String: String])?.count == 8)
            #expect((json?["data"] as? [String: String])?.values.allSatisfy { $0 == "allow" } == true)
            #expect(try await h.busctl(getProperty(.restriction, "Identifier", path: objectPath)).output == #"s "com.example.app.busctl""#)
            #expect(try await h.busctl(getProperty(.restriction, "DetailText", path: objectPath)).output == #"s "In busctl""#)
            #expect(try await h.busctl(getProperty(.restriction, "Registered", path: objectPath)).output == "b true")

            // Properties are read-only.
            let set = try await h.busctl(["set-property", GuidedAccessBus.name, GuidedAccessBus.objectPath, ServiceInterface.session.rawValue, "State", "s", "active"])
            #expect(!set.ok)
            #expect(try await client.state() == "inactive")
        }
    }
}
