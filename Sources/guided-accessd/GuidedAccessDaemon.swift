// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import Dispatch
import FoundationEssentials
import Glibc
import GuidedAccessCore
import GSettingsBridge
import GuidedAccessContract
import GuidedAccessService
import PlasmaBridge

/// The daemon: options, logging, signals. Everything else is in GuidedAccessService.
@main
struct GuidedAccessDaemon {
    static func main() {
        HeapRelease.limitHeaps()
        let options: DaemonOptions
        do {
            switch try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst())) {
            case .help: return print(DaemonOptions.help, terminator: "")
            case .version: return print(DaemonOptions.version)
            case .run(let parsed): options = parsed
            }
        } catch {
            // 64 is EX_USAGE (sysexits.h), as swift-argument-parser exited before.
            let text = Array("guided-accessd: error: \(error.message)\nUsage: guided-accessd [options]; see guided-accessd --help\n".utf8)
            _ = Glibc.write(STDERR_FILENO, text, text.count)
            exit(64)
        }
        Task.detached {
            do {
                try await run(options)
                exit(0)
            } catch is Stopped {
                exit(1)
            } catch {
                Log.error("cannot start: \(error)")
                exit(1)
            }
        }
        // The main thread waits here for good and the task ends the process
        // (the main actor is never used: the task is detached, signals arrive
        // on a global queue). An async main would end this thread with
        // dispatch_main(), whose pthread_exit unwinds the stack: that loads
        // libgcc_s and reads the binary's unwind tables, 0.5 MB resident for
        // the daemon's life.
        DispatchSemaphore(value: 0).wait()
    }

    /// Plasma's own settings when the session is KDE Plasma and has a
    /// configuration directory; nil: GSettings.
    private static func plasmaDesktop(_ environment: [String: String], configHome: String?) -> PlasmaDesktop? {
        guard case .plasma(let version) = LiveDesktop(environment: environment), let configHome else { return nil }
        return PlasmaDesktop(version: version, userDirectory: configHome,
                             systemDirectories: PlasmaDesktop.systemDirectories(from: environment["XDG_CONFIG_DIRS"]),
                             executablePath: environment["PATH"], inputMethod: GSettingsDesktop(scope: .inputMethod),
                             log: Log.warning)
    }

    /// Serves until a signal or the loss of the name; throws when it cannot start or lost the name.
    static func run(_ options: DaemonOptions) async throws {
        let environment = ProcessInfo.processInfo.environment
        if options.printIntrospection {
            print(try Self.introspection(), terminator: "")
            return
        }
        if options.printShellContract {
            print(ShellContract.javaScript, terminator: "")
            return
        }
        var configuration = ServiceConfiguration(
            stateDirectory: try options.stateDir ?? StateStore.defaultDirectory(environment: environment))
        configuration.busAddress = options.address.map(BusAddress.address) ?? .session
        let namedManagedConfig = options.managedConfig ?? environment["GUIDED_ACCESS_MANAGED_CONFIG"]
        configuration.managedConfigPath = namedManagedConfig ?? ManagedConfig.defaultPath
        let managedConfigExists = FileManager.default.fileExists(atPath: configuration.managedConfigPath)
        if let named = namedManagedConfig, !managedConfigExists {
            // Named on purpose, so a typo must not leave the machine unmanaged without a word.
            Log.error("cannot start: the managed config \(named) does not exist; name an existing file, "
                + "or leave out --managed-config (and GUIDED_ACCESS_MANAGED_CONFIG) for none")
            throw Stopped()
        }
        configuration.polkitAddress = options.polkitAddress.map(BusAddress.address) ?? .system
        configuration.polkitTimeout = .milliseconds(Int(options.polkitTimeout * 1000))
        if let cost = options.passcodeCost { configuration.passcodeCost = cost }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].map { $0 + "/.config" }
        let liveDesktop = LiveDesktop(environment: environment)
        let plasma = Self.plasmaDesktop(environment, configHome: configHome)
        // Elsewhere whatever backend GIO picks: dconf on GNOME and Cinnamon, keyfile or memory (GSETTINGS_BACKEND).
        configuration.desktop = plasma ?? GSettingsDesktop(scope: .desktop(liveDesktop == .cinnamon ? .cinnamon : .gnome))
        configuration.launcher = DesktopAppLauncher()
        // Only in Cinnamon: the setting keeps a GLib thread of its own for the daemon's life.
        if liveDesktop == .cinnamon { configuration.enforcerOffSettings["cinnamon"] = GSettingsListMember.cinnamonExtension }
        if let configHome { configuration.enforcerOffSettings["kwin"] = KConfigSetting.kwinScript(in: configHome) }

        let service: GuidedAccessService
        let bus: Connection
        do {
            service = try GuidedAccessService(configuration, log: Log.warning)
            bus = try Connection(configuration.busAddress)
            try await service.start(on: bus)
            await plasma?.connect(to: bus)
        } catch {
            Log.error("cannot start: \(error)")
            throw Stopped()
        }
        let managed = managedConfigExists ? "managed config \(configuration.managedConfigPath)"
            : "no managed config (\(configuration.managedConfigPath) absent)"
        Log.info("ready on \(bus.uniqueName) as \(BusName.guidedAccess), state in \(configuration.stateDirectory), \(managed), "
                 + "desktop settings in \(plasma == nil && liveDesktop != .cinnamon ? LiveDesktop.gsettings.name : liveDesktop.name)")
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
            throw Stopped()
        }
    }

    /// The daemon could not start, or stopped because it lost its name (already logged).
    struct Stopped: Error {}

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
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
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
        let time = UTCTimestamp.string(Date())
        let line = Array("time=\(time) level=\(level) msg=\(message.debugDescription)\n".utf8)
        _ = Glibc.write(STDERR_FILENO, line, line.count)  // one write per line: lines never interleave
    }
}
