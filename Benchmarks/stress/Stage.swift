// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting

/// One case's private world: a session bus, a real polkitd on a private
/// system bus (so: root) and the release daemon on its own state directory.
/// Every case starts a stage of its own, so no case sees another's faults.
final class Stage: Sendable {
    let fixture: DaemonUnderTest
    var stateDirectory: URL { fixture.stateDirectory }

    /// What a case may change about the daemon it runs.
    struct Options {
        /// `managed.json`'s text, when the case needs limits of its own.
        var managedConfig = #"{}"#
        /// `--polkit-timeout`, seconds.
        var polkitTimeout = 25.0
        /// yescrypt cost of `SetPasscode` (the shipped 5 makes a fuzz run of hashes).
        var passcodeCost: Int?
        /// Mount a tmpfs of this many KiB on the state directory (disk faults).
        var stateTmpfsKiB: Int?
        /// The desktop's settings in a real dconf under the stage's own
        /// XDG_CONFIG_HOME (activated on the private bus), not GLib's memory backend.
        var dconf = false
        /// With `dconf`: whether the bus can start dconf-service (false: the writer is unreachable).
        var dconfActivatable = true
        /// With `dconf`: mount a tmpfs of this many KiB on `XDG_CONFIG_HOME/dconf` (store faults).
        var dconfTmpfsKiB: Int?
        /// Added to the daemon's environment (test-only knobs such as a slow fsync).
        var environment: [String: String] = [:]
    }

    static func start(_ name: String, daemon: String, _ options: Options = Options()) async throws -> Stage {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ga-stress-\(getpid())-\(name)")
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        if let kib = options.stateTmpfsKiB {
            try await ProcessRunner.runSucceeding(["mount", "-t", "tmpfs", "-o", "size=\(kib)k,mode=0700", "ga-stress", state.path])
        }
        var daemonOptions = DaemonUnderTest.Options()
        daemonOptions.executable = daemon
        daemonOptions.polkit = .real()
        daemonOptions.polkitTimeout = options.polkitTimeout
        daemonOptions.passcodeCost = options.passcodeCost
        daemonOptions.managedConfig = options.managedConfig
        var desktop = DaemonCommandLine.environment
        if options.dconf {
            desktop = try await stageDconf(root, options)
            daemonOptions.serviceDirectories = [root.appendingPathComponent("services").path]
            daemonOptions.busEnvironment = desktop
        }
        daemonOptions.environment = desktop.merging(options.environment) { $1 }
        return Stage(fixture: try await DaemonUnderTest.start(daemonOptions, in: root), desktop: desktop)
    }

    /// XDG directories of the stage's own, and dconf-service activatable on its bus (unless told not to).
    private static func stageDconf(_ root: URL, _ options: Options) async throws -> [String: String] {
        let config = root.appendingPathComponent("config"), runtime = root.appendingPathComponent("runtime")
        let services = root.appendingPathComponent("services")
        for url in [config.appendingPathComponent("dconf"), runtime, services] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if let kib = options.dconfTmpfsKiB {
            try await ProcessRunner.runSucceeding(["mount", "-t", "tmpfs", "-o", "size=\(kib)k,mode=0700", "ga-stress",
                                                   config.appendingPathComponent("dconf").path])
        }
        if options.dconfActivatable {
            try "[D-BUS Service]\nName=ca.desrt.dconf\nExec=/usr/libexec/dconf-service\n"
                .write(to: services.appendingPathComponent("ca.desrt.dconf.service"), atomically: true, encoding: .utf8)
        }
        return ["GSETTINGS_BACKEND": "dconf", "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": runtime.path]
    }

    /// What GLib clients need to see the stage's settings: its backend, XDG directories and bus.
    let desktop: [String: String]

    private init(fixture: DaemonUnderTest, desktop: [String: String]) {
        self.fixture = fixture
        self.desktop = desktop
    }

    /// `XDG_CONFIG_HOME/dconf`, where dconf-service writes the database.
    var dconfDirectory: URL? { desktop["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent("dconf") } }

    func stop() async {
        fixture.stopDaemon()
        _ = try? await ProcessRunner.run(["umount", "-l", stateDirectory.path])
        if let dconfDirectory { _ = try? await ProcessRunner.run(["umount", "-l", dconfDirectory.path]) }
        fixture.stop()
    }

    /// `gsettings get SCHEMA KEY` as another client of the stage's desktop sees it.
    func gsettingsGet(_ schema: String, _ key: String) async throws -> String {
        let result = try await ProcessRunner.run(["gsettings", "get", schema, key],
                                                 environment: desktop.merging(["DBUS_SESSION_BUS_ADDRESS": fixture.address]) { $1 })
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of the stage's dconf-service, as its bus knows it (started by a first write).
    func dconfServicePID() async throws -> pid_t {
        let result = try await ProcessRunner.run(["busctl", "--address=\(fixture.address)", "call", "org.freedesktop.DBus",
                                                  "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                                  "s", "ca.desrt.dconf"])
        guard let pid = result.stdout.split(separator: " ").last.flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw DaemonFixture.Failure("dconf-service does not run on the stage's bus: \(result.stdout) \(result.stderr)")
        }
        return pid
    }

    func connect() throws -> Connection { try Connection(.address(fixture.address)) }

    /// A proxy on the service's main object over a new connection.
    func proxy(timeout: Duration = .seconds(30)) throws -> Proxy {
        Proxy(try connect(), destination: .guidedAccess, path: .guidedAccess, timeout: timeout)
    }

    var daemonPID: pid_t { fixture.daemonPID ?? 0 }

    /// The daemon's resident set size, open descriptors and threads.
    func footprint() -> Footprint {
        let pid = daemonPID
        let count = { (directory: String) in (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? 0 }
        return Footprint(rss: Measuring.residentMegabytes(pid), anonymous: Measuring.residentMegabytes(pid, part: "RssAnon"), fds: count("/proc/\(pid)/fd"), threads: count("/proc/\(pid)/task"))
    }

    /// Whether the daemon that was started last still runs and owns the name.
    func daemonServes() async -> Bool {
        guard daemonPID != 0, kill(daemonPID, 0) == 0, let watcher = try? connect() else { return false }
        defer { watcher.close() }
        return (try? await watcher.owner(of: .guidedAccess)) != nil
    }
}

/// What the daemon holds of the machine at one moment.
struct Footprint {
    let rss: Double
    /// The part of `rss` that is the daemon's own memory (heap, stacks), not
    /// pages of its binary and libraries read from disk.
    let anonymous: Double
    let fds: Int
    let threads: Int

    /// Whether every figure is within `share` (0.1 = ±10 %) of `baseline`'s.
    func isWithin(_ share: Double, of baseline: Footprint) -> Bool {
        abs(rss - baseline.rss) <= share * baseline.rss
            && abs(Double(fds - baseline.fds)) <= max(1, share * Double(baseline.fds))
            && abs(Double(threads - baseline.threads)) <= max(1, share * Double(baseline.threads))
    }

    var description: String { String(format: "RSS %.1f MB, %d fds, %d threads", rss, fds, threads) }
}
