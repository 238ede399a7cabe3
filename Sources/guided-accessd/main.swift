import ArgumentParser
import DBusKit
import Dispatch
import FoundationEssentials
import Glibc
import GuidedAccessCore
import GSettingsBridge
import GuidedAccessContract
import GuidedAccessService

/// The daemon: options, logging, signals. Everything else is in GuidedAccessService.
@main
struct GuidedAccessDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guided-accessd",
        abstract: "Guided Access for the Linux desktop: the session-bus service.",
        discussion: """
            Serves org.guidedaccess.GuidedAccess1 on the session bus. Usually started by D-Bus
            activation; run it by hand to debug. Logs go to stderr. Stop with SIGTERM or Ctrl-C.
            Environment: GUIDED_ACCESS_MANAGED_CONFIG overrides the managed config path;
            DBUS_SYSTEM_BUS_ADDRESS points polkit checks at another system bus; GSETTINGS_BACKEND
            picks where desktop settings live (dconf on GNOME; memory keeps them in the process).
            """,
        version: "1.0.0")

    @Option(help: "Bus address to serve on (default: the session bus).")
    var address: String?

    @Option(help: "State directory (default: $XDG_STATE_HOME/guided-access, else ~/.local/state/guided-access).")
    var stateDir: String?

    @Option(help: "Managed configuration file (default: /etc/guided-access/managed.json).")
    var managedConfig: String?

    @Option(help: "Bus address polkit is reached on (default: the system bus).")
    var polkitAddress: String?

    @Option(help: "Seconds to wait for polkit before refusing.")
    var polkitTimeout: Double = 25

    @Option(help: .hidden)
    var passcodeIterations: Int?

    @Flag(help: "Print the introspection XML of the served interfaces and exit.")
    var printIntrospection = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        if printIntrospection {
            print(try Self.introspection(), terminator: "")
            return
        }
        var configuration = ServiceConfiguration(
            stateDirectory: try stateDir ?? StateStore.defaultDirectory(environment: environment))
        configuration.busAddress = address.map(BusAddress.address) ?? .session
        configuration.managedConfigPath = managedConfig ?? environment["GUIDED_ACCESS_MANAGED_CONFIG"] ?? ManagedConfig.defaultPath
        configuration.polkitAddress = polkitAddress.map(BusAddress.address) ?? .system
        configuration.polkitTimeout = .milliseconds(Int(polkitTimeout * 1000))
        if let passcodeIterations { configuration.passcodeIterations = passcodeIterations }
        // Whatever backend GIO picks: dconf on GNOME, keyfile or memory elsewhere (GSETTINGS_BACKEND).
        configuration.desktop = GSettingsDesktop()

        let service: GuidedAccessService
        let bus: Connection
        do {
            service = try GuidedAccessService(configuration, log: Log.warning)
            bus = try Connection(configuration.busAddress)
            try await service.start(on: bus)
        } catch {
            Log.error("cannot start: \(error)")
            throw ExitCode(1)
        }
        Log.info("ready on \(bus.uniqueName) as \(BusName.guidedAccess), state in \(configuration.stateDirectory)")
        switch await Self.waitForEnd(serving: BusName.guidedAccess, on: bus) {
        case .terminated(let signal):
            // Every change is already on disk; stopping only ends timers and the connection.
            service.stop()
            await bus.flush()
            bus.close()
            Log.info("stopped by \(signal)")
        case .lostName(let reason):
            // A daemon that no longer owns the name must not go on as if it did:
            // exit, and let activation start a fresh one. Everything is on disk.
            Log.error("stopping: \(reason)")
            service.stop()
            bus.close()
            throw ExitCode(1)
        }
    }

    /// Why the daemon stops.
    enum Ending: Sendable {
        case terminated(String)
        case lostName(String)
    }

    /// Suspends until SIGTERM or SIGINT arrives, or the connection stops owning `name`.
    static func waitForEnd(serving name: BusName, on bus: Connection) async -> Ending {
        let (endings, ending) = AsyncStream.makeStream(of: Ending.self)
        let signals = terminationSources { ending.yield(.terminated($0)) }
        defer { signals.forEach { $0.cancel() } }  // also keeps them alive until then
        let watch = Task { ending.yield(.lostName(await bus.waitUntilLost(name))) }
        defer { watch.cancel() }
        for await first in endings { return first }
        return .terminated("the end of the process")
    }

    /// The XML of the three contract interfaces, from a throwaway service in a temp dir.
    static func introspection() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guided-accessd-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServiceConfiguration(stateDirectory: directory.path)
        configuration.managedConfigPath = "/nonexistent"
        return Interface.introspectionDocument(try GuidedAccessService(configuration, log: { _ in }).contractInterfaces)
    }

    /// Calls `arrived` with the signal's name on SIGTERM and SIGINT.
    static func terminationSources(_ arrived: @escaping @Sendable (String) -> Void) -> [any DispatchSourceSignal] {
        [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { arrived(name) }
            source.resume()
            return source
        }
    }
}

/// Structured log lines on stderr: `level=... msg="..."`, one per event.
enum Log {
    static func info(_ message: String) { write("info", message) }
    @Sendable static func warning(_ message: String) { write("warning", message) }
    static func error(_ message: String) { write("error", message) }

    private static func write(_ level: String, _ message: String) {
        let time = Date().formatted(.iso8601)
        let line = Array("time=\(time) level=\(level) msg=\(message.debugDescription)\n".utf8)
        _ = Glibc.write(STDERR_FILENO, line, line.count)  // one write per line: lines never interleave
    }
}
