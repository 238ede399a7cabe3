// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting

/// The private desktop the benchmark runs guided-accessd in: a session bus
/// with GNOME's real dconf in its own XDG directories, a real polkitd on a
/// private system bus (so: root), and managed.json raising `PerApp` so one
/// process may hold the 10,000 registrations of the load figure.
struct Desktop {
    let fixture: DaemonUnderTest
    let settings: [String: String]

    /// What a client process on this desktop needs in its environment.
    var clientEnvironment: [String: String] { settings.merging(fixture.bus.clientEnvironment) { $1 } }

    static func start(daemon: String) async throws -> Desktop {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ga-bench-\(getpid())")
        let directories = ["config", "runtime", "services", "state"].map { root.appendingPathComponent($0) }
        for directory in directories {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let (config, runtime, services) = (directories[0], directories[1], directories[2])
        try "[D-BUS Service]\nName=ca.desrt.dconf\nExec=/usr/libexec/dconf-service\n"
            .write(to: services.appendingPathComponent("ca.desrt.dconf.service"), atomically: true, encoding: .utf8)
        let settings = ["XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": runtime.path, "GSETTINGS_BACKEND": "dconf"]
        var options = DaemonUnderTest.Options()
        options.executable = daemon
        options.polkit = .real()
        options.managedConfig = #"{"Limits": {"PerApp": 10000}}"#
        options.serviceDirectories = [services.path]
        options.busEnvironment = settings
        options.environment = settings
        options.startsDaemon = false
        return Desktop(fixture: try await DaemonUnderTest.start(options, in: root), settings: settings)
    }

    /// Starts `argv` as a client of this desktop (stdout and stderr dropped).
    func launch(_ argv: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(clientEnvironment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func connect() throws -> Connection { try Connection(.address(fixture.address)) }

    /// The daemon's resident set size now, in MB (0 when it is not running).
    func daemonRSS() -> Double { Measuring.residentMegabytes(fixture.daemonPID ?? 0) }
}
