import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// One case's private world: a session bus, a real polkitd on a private
/// system bus (so: root) and the release daemon on its own state directory.
/// Every case starts a stage of its own, so no case sees another's faults.
final class Stage: Sendable {
    let fixture: DaemonFixture
    let stateDirectory: URL
    let daemon: String

    /// What a case may change about the daemon it runs.
    struct Options {
        /// `managed.json`'s text, when the case needs limits of its own.
        var managedConfig = #"{}"#
        /// `--polkit-timeout`, seconds.
        var polkitTimeout = 25.0
        /// PBKDF2 rounds of `SetPasscode` (the shipped 210,000 makes a fuzz run of hashes).
        var passcodeIterations: Int?
        /// Mount a tmpfs of this many KiB on the state directory (disk faults).
        var stateTmpfsKiB: Int?
    }

    static func start(_ name: String, daemon: String, packageRoot: URL, _ options: Options = Options()) async throws -> Stage {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ga-stress-\(getpid())-\(name)")
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        if let kib = options.stateTmpfsKiB {
            try await ProcessRunner.runSucceeding(["mount", "-t", "tmpfs", "-o", "size=\(kib)k,mode=0700", "ga-stress", state.path])
        }
        let managed = root.appendingPathComponent("managed.json")
        try options.managedConfig.write(to: managed, atomically: true, encoding: .utf8)
        var configuration = DaemonFixture.Configuration(busName: GuidedAccessBus.name, directory: root) { fixture in
            var argv = [daemon, "--address", fixture.address, "--state-dir", state.path, "--managed-config", managed.path,
                        "--polkit-address", fixture.polkitAddress, "--polkit-timeout", String(options.polkitTimeout)]
            if let iterations = options.passcodeIterations { argv += ["--passcode-iterations", String(iterations)] }
            return argv
        }
        configuration.polkit = .real(policyFiles: [packageRoot.appendingPathComponent("polkit/org.guidedaccess.policy")])
        configuration.environment = ["GSETTINGS_BACKEND": "memory"]
        return Stage(fixture: try await DaemonFixture.start(configuration), stateDirectory: state, daemon: daemon)
    }

    private init(fixture: DaemonFixture, stateDirectory: URL, daemon: String) {
        self.fixture = fixture
        self.stateDirectory = stateDirectory
        self.daemon = daemon
    }

    func stop() async {
        fixture.stopDaemon()
        _ = try? await ProcessRunner.run(["umount", "-l", stateDirectory.path])
        fixture.stop()
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
