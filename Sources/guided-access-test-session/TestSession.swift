// SPDX-License-Identifier: LGPL-2.1-or-later
import ArgumentParser
import DBusTesting
import Dispatch
import Foundation
import GuidedAccessContract
import GuidedAccessTesting
import Locking

/// The private desktop plumbing of the on-screen tests, from the same
/// library the Swift tests start the daemon with: a private system bus with
/// a real polkitd (the project's policy and the caller's rules), a private
/// session bus that bus-activates `guided-accessd` (so that a killed daemon
/// comes back when the extension calls it, as on a desktop), and nothing
/// else. With `--polkit-only`, the system bus and polkitd alone: what
/// `scripts/run-daemon --try` runs its daemon against. A developer's tool:
/// `make install` leaves it out.
@main
struct TestSession: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guided-access-test-session",
        abstract: "Private buses, polkitd and the bus-activated guided-accessd for the on-screen tests and try mode.",
        discussion: """
            Needs root (polkitd reads actions and rules only from the system's directories). \
            Prints NAME=VALUE lines (DBUS_SYSTEM_BUS_ADDRESS, POLKITD_PID, a POLKIT_FILE line per installed \
            file, DBUS_SESSION_BUS_ADDRESS), then READY, and stops everything and removes what it \
            installed when its standard input ends or it gets SIGTERM or SIGINT. \
            The daemon is $GUIDED_ACCESSD, else the one built beside this program.
            """)

    @Option(help: ArgumentHelp("A polkit rules file installed for the run, beside the project's policy.", valueName: "file"))
    var polkitRules: String?

    @Flag(help: "Only the private system bus and polkitd: no session bus, no daemon.")
    var polkitOnly = false

    @Option(help: ArgumentHelp("How long to wait for another private polkitd (a test run) to stop.", valueName: "seconds"))
    var polkitLockTimeout = 180

    @Flag(help: "Run the session bus, and so everything it activates, as nobody (65534).")
    var unprivileged = false

    @Option(name: .customLong("setenv"),
            help: ArgumentHelp("The session bus's environment, which what it activates inherits; only these, and DBUS_SYSTEM_BUS_ADDRESS.",
                               valueName: "name=value"))
    var environment: [String] = []

    @Option(help: ArgumentHelp("The session bus's service directory; the daemon's activation file goes here.", valueName: "dir"))
    var services: String?

    @Option(help: ArgumentHelp("Where the daemon is copied first, for a bus user who cannot read the checkout.", valueName: "path"))
    var daemonCopy: String?

    @Option(help: ArgumentHelp("The daemon's --state-dir.", valueName: "dir"))
    var stateDir: String?

    @Option(help: ArgumentHelp("The daemon's --managed-config.", valueName: "path"))
    var managedConfig: String?

    @Option(help: ArgumentHelp("The daemon's --polkit-timeout.", valueName: "seconds"))
    var polkitTimeout: Double?

    @Option(help: ArgumentHelp("The daemon's --passcode-cost.", valueName: "cost"))
    var passcodeCost: Int?

    @Option(help: ArgumentHelp("The daemon's stderr is appended here.", valueName: "path"))
    var daemonLog: String?

    @Option(help: ArgumentHelp("The daemon's activation fails while this file exists.", valueName: "path"))
    var holdFile: String?

    @Option(help: ArgumentHelp("NAME=value lines read at each activation, over the daemon's environment "
                               + "(GSETTINGS_BACKEND=dconf: the desktop's own settings).", valueName: "path"))
    var daemonEnvironmentFile: String?

    @Option(help: ArgumentHelp("polkitd's and the session bus's output are copied here at the end.", valueName: "dir"))
    var logs: String?

    func validate() throws {
        guard !polkitOnly else { return }
        let missing = [("--services", services), ("--daemon-copy", daemonCopy), ("--state-dir", stateDir),
                       ("--managed-config", managedConfig)].filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty else {
            throw ValidationError("give \(missing.joined(separator: ", ")) for the session bus and its daemon, or --polkit-only")
        }
    }

    func run() async throws {
        let rules = try polkitRules.map { try String(contentsOfFile: $0, encoding: .utf8) }
        let lockTimeout = polkitLockTimeout
        let polkit = try await PolkitTestAuthority.start(
            policyFiles: [Project.policyFile], rules: rules, lockTimeout: .seconds(lockTimeout),
            waiting: {
                FileHandle.standardError.write(Data(("==> waiting for another private polkitd (a test run?) to stop: every polkitd "
                    + "reads every rule, so one runs at a time (up to \(lockTimeout) s)\n").utf8))
            })
        var lines = ["DBUS_SYSTEM_BUS_ADDRESS=\(polkit.systemBusAddress)", "POLKITD_PID=\(polkit.polkitdPID)"]
            + polkit.installedFiles.map { "POLKIT_FILE=\($0.path)" }
        var bus: PrivateBus?
        if !polkitOnly, let services {  // validate() saw to the daemon's options
            do {
                try installDaemon()
                let session = try PrivateBus.startSession(serviceDirectories: [services], environment: try busEnvironment(polkit),
                                                          inheritsEnvironment: false, asUnprivileged: unprivileged)
                lines.append("DBUS_SESSION_BUS_ADDRESS=\(session.address)")
                bus = session
            } catch {
                polkit.stop()
                throw error
            }
        }
        FileHandle.standardOutput.write(Data((lines + ["READY"]).map { $0 + "\n" }.joined().utf8))
        await untilInputEndsOrTerminated()
        keepLogs(polkit: polkit, bus: bus)
        bus?.stop()
        polkit.stop()
    }

    /// The daemon's copy and its activation file: the command line and
    /// environment the tests run it with, on the bus that activated it and
    /// asking polkit on `DBUS_SYSTEM_BUS_ADDRESS`.
    private func installDaemon() throws {
        guard let daemonCopy, let services else { return }  // validate() saw to them
        try? FileManager.default.removeItem(atPath: daemonCopy)
        try FileManager.default.copyItem(atPath: Project.daemon, toPath: daemonCopy)
        var commandLine = DaemonCommandLine(executable: daemonCopy)
        commandLine.stateDirectory = stateDir
        commandLine.managedConfig = managedConfig
        commandLine.polkitTimeout = polkitTimeout
        commandLine.passcodeCost = passcodeCost
        var service = ActivatableService(busName: GuidedAccessBus.name, argv: commandLine.argv)
        service.environment = DaemonCommandLine.environment
        service.log = daemonLog.map { URL(fileURLWithPath: $0) }
        service.holdFile = holdFile.map { URL(fileURLWithPath: $0) }
        service.environmentFile = daemonEnvironmentFile.map { URL(fileURLWithPath: $0) }
        let copy = URL(fileURLWithPath: daemonCopy)
        try service.install(in: URL(fileURLWithPath: services),
                            wrapper: copy.deletingLastPathComponent().appendingPathComponent("run-\(copy.lastPathComponent)"))
    }

    private func busEnvironment(_ polkit: PolkitTestAuthority) throws -> [String: String] {
        var variables = polkit.clientEnvironment
        for assignment in environment {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw ValidationError("--setenv \(assignment): give NAME=VALUE")
            }
            variables[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        return variables
    }

    private func keepLogs(polkit: PolkitTestAuthority, bus: PrivateBus?) {
        guard let logs else { return }
        let directory = URL(fileURLWithPath: logs)
        try? polkit.log().write(to: directory.appendingPathComponent("polkitd.log"), atomically: true, encoding: .utf8)
        try? bus?.log().write(to: directory.appendingPathComponent("session-bus.log"), atomically: true, encoding: .utf8)
    }
}

/// Returns when standard input ends (the caller closed it or died) or
/// SIGTERM or SIGINT arrives.
func untilInputEndsOrTerminated() async {
    let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
    let finish: @Sendable () -> Void = { waiting.withLock { $0.take() }?.resume() }
    let signals = [SIGTERM, SIGINT].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: finish)
        return source
    }
    await withCheckedContinuation { continuation in
        waiting.withLock { $0 = continuation }
        signals.forEach { $0.resume() }
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(0, &byte, 1)
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                break
            }
            finish()
        }
    }
    signals.forEach { $0.cancel() }
}
