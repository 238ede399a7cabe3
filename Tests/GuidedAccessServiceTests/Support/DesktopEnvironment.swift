// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a test's desktop settings live: the real dconf (bus-activated on
/// the test's private session bus), GLib's keyfile backend, or memory, always
/// under the test's own XDG_CONFIG_HOME and XDG_RUNTIME_DIR, so the user's
/// database is never read or written.
struct DesktopEnvironment: Sendable {
    enum Backend: String, Sendable {
        case dconf, keyfile, memory
    }

    let backend: Backend
    /// `XDG_DATA_DIRS` for GLib, to install only some schemas; nil keeps the system's.
    let dataDirectories: String?
    let configHome: URL
    let runtimeDirectory: URL
    /// `<servicedir>` for the private session bus: dconf-service and at-spi-bus-launcher.
    let serviceDirectory: URL
    /// A dconf profile whose system database locks keys, as an
    /// administrator's /etc/dconf/db/local.d/locks does; nil without locks.
    let dconfProfile: URL?
    /// KDE Plasma's major version when the session is Plasma (`XDG_CURRENT_DESKTOP=KDE`); nil: GNOME.
    let plasmaVersion: Int?
    /// The administrator's KDE configuration (`XDG_CONFIG_DIRS`, /etc/xdg on a machine).
    let systemConfigDirectory: URL
    /// A Cinnamon session (`XDG_CURRENT_DESKTOP=X-Cinnamon`).
    let cinnamon: Bool

    /// The session services a test may activate, where they are installed.
    static let activatable = [("ca.desrt.dconf", "/usr/libexec/dconf-service"),
                              ("org.a11y.Bus", "/usr/libexec/at-spi-bus-launcher")]

    static var dconfAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/libexec/dconf-service") }
    static var atspiAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/libexec/at-spi-bus-launcher") }
    /// Cinnamon's schemas (cinnamon-desktop-data, cinnamon-settings-daemon) are installed.
    static var cinnamonSchemasInstalled: Bool {
        ["org.cinnamon.desktop.a11y.applications", "org.cinnamon.settings-daemon.plugins.power"].allSatisfy {
            FileManager.default.fileExists(atPath: "/usr/share/glib-2.0/schemas/\($0).gschema.xml")
        }
    }

    /// Creates the directories under `directory/desktop`; `locks` (dconf
    /// path → value, e.g. `/org/gnome/desktop/a11y/applications/screen-magnifier-enabled`
    /// → `true`) are set and locked in a system database of the test's own.
    init(in directory: URL, backend: Backend, dataDirectories: String? = nil, locks: [String: String] = [:],
         plasmaVersion: Int? = nil, cinnamon: Bool = false) throws {
        self.backend = backend
        self.cinnamon = cinnamon
        self.dataDirectories = dataDirectories
        self.plasmaVersion = plasmaVersion
        let root = directory.appendingPathComponent("desktop")
        configHome = root.appendingPathComponent("config")
        runtimeDirectory = root.appendingPathComponent("runtime")
        serviceDirectory = root.appendingPathComponent("services")
        systemConfigDirectory = root.appendingPathComponent("xdg")
        for url in [configHome, runtimeDirectory, serviceDirectory, systemConfigDirectory] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        for (name, executable) in Self.activatable where FileManager.default.isExecutableFile(atPath: executable) {
            try "[D-BUS Service]\nName=\(name)\nExec=\(executable)\n"
                .write(to: serviceDirectory.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
        }
        dconfProfile = locks.isEmpty ? nil : try Self.lockingProfile(locks, in: root)
        if plasmaVersion != nil { try Self.writeKAccess(in: root) }
    }

    /// A stand-in for KDE's kaccess on the daemon's PATH: each run adds a
    /// line to `kaccessRuns`.
    private static func writeKAccess(in root: URL) throws {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = bin.appendingPathComponent("kaccess")
        try "#!/bin/sh\necho run >> '\(root.appendingPathComponent("kaccess-runs").path)'\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    }

    /// How many times the daemon ran the kaccess stand-in (Plasma sessions only).
    var kaccessRuns: Int {
        let runs = configHome.deletingLastPathComponent().appendingPathComponent("kaccess-runs")
        return ((try? String(contentsOf: runs, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// Compiles `locks` into a database with `dconf compile` and writes a
    /// profile reading the user's database over it.
    private static func lockingProfile(_ locks: [String: String], in root: URL) throws -> URL {
        let sources = root.appendingPathComponent("dconf-system.d")
        try FileManager.default.createDirectory(at: sources.appendingPathComponent("locks"), withIntermediateDirectories: true)
        let keyfile = locks.sorted { $0.key < $1.key }.map { path, value in
            let slash = path.lastIndex(of: "/")!
            return "[\(path[path.index(after: path.startIndex)..<slash])]\n\(path[path.index(after: slash)...])=\(value)\n"
        }.joined()
        try keyfile.write(to: sources.appendingPathComponent("00-test"), atomically: true, encoding: .utf8)
        try locks.keys.sorted().joined(separator: "\n").appending("\n")
            .write(to: sources.appendingPathComponent("locks/00-test"), atomically: true, encoding: .utf8)
        let database = root.appendingPathComponent("dconf-system")
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/dconf")
        compile.arguments = ["compile", database.path, sources.path]
        try compile.run()
        compile.waitUntilExit()
        guard compile.terminationStatus == 0 else { throw HarnessError("dconf compile \(sources.path) failed") }
        let profile = root.appendingPathComponent("dconf-profile")
        try "user-db:user\nfile-db:\(database.path)\n".write(to: profile, atomically: true, encoding: .utf8)
        return profile
    }

    /// What the daemon, the bus (and so what it activates) and `gsettings` get.
    var variables: [String: String] {
        var variables = ["XDG_CONFIG_HOME": configHome.path, "XDG_RUNTIME_DIR": runtimeDirectory.path,
                         "GSETTINGS_BACKEND": backend.rawValue]
        if let dataDirectories { variables["XDG_DATA_DIRS"] = dataDirectories }
        if let dconfProfile { variables["DCONF_PROFILE"] = dconfProfile.path }
        if cinnamon { variables["XDG_CURRENT_DESKTOP"] = "X-Cinnamon" }
        if let plasmaVersion {
            variables["XDG_CURRENT_DESKTOP"] = "KDE"
            variables["KDE_SESSION_VERSION"] = "\(plasmaVersion)"
            variables["XDG_CONFIG_DIRS"] = systemConfigDirectory.path
            variables["PATH"] = configHome.deletingLastPathComponent().appendingPathComponent("bin").path + ":/usr/local/bin:/usr/bin:/bin"
        }
        return variables
    }

    /// The user's own dconf database, which no test may touch: its
    /// modification time (nil when there is none).
    static var userDatabaseStamp: Date? {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        let path = home + "/.config/dconf/user"
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

extension Harness {
    /// `gsettings ARGS...` against the test's desktop settings, as an independent peer.
    func gsettings(_ arguments: [String]) async throws -> ToolResult {
        try await run(["gsettings"] + arguments, environment: desktopVariables)
    }

    /// `dconf ARGS...` against the test's database (the dconf backend only).
    func dconf(_ arguments: [String]) async throws -> ToolResult {
        try await run(["dconf"] + arguments, environment: desktopVariables)
    }

    /// `gsettings set`, failing the test when it fails.
    func gsettingsSet(_ schema: String, _ key: String, _ value: String) async throws {
        let result = try await gsettings(["set", schema, key, value])
        guard result.ok else { throw HarnessError("gsettings set \(schema) \(key) \(value) failed: \(result)") }
    }

    /// `gsettings get`, trimmed.
    func gsettingsGet(_ schema: String, _ key: String) async throws -> String {
        let result = try await gsettings(["get", schema, key])
        guard result.ok else { throw HarnessError("gsettings get \(schema) \(key) failed: \(result)") }
        return result.output
    }

    /// The environment that points GLib clients at the test's bus and settings.
    var desktopVariables: [String: String] {
        desktop.variables.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
    }
}
