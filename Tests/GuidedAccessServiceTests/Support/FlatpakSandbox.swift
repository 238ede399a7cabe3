// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GuidedAccessContract
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `flatpak run` builds around an app, built from the two Debian
/// packages Flatpak itself runs (`bubblewrap`, `xdg-dbus-proxy`), with no
/// runtime and no network:
///
/// - the app's bus proxy: `xdg-dbus-proxy --filter` in a bwrap that sees
///   the host's root plus the app's `/.flatpak-info` (Flatpak's
///   `add_bwrap_wrapper`). The bus vouches for the proxy's pid, so that file
///   is what the service finds for the app's calls;
/// - the app: in a bwrap with its own namespaces (`--unshare-all`), the
///   host's `/usr`, `/etc` and the app's files at `/app`, and no bus but
///   the proxy's socket at `/run/flatpak/bus`.
///
/// Both run as the daemon's user (nobody when the harness runs the daemon as
/// nobody), so bwrap builds them in a user namespace, as on a desktop.
final class FlatpakSandbox: Sendable {
    /// Where the app finds its session bus, as under Flatpak.
    static let busInside = "/run/flatpak/bus"

    let appID: String
    /// Holds the `.flatpak-info`, the proxy's socket and the app's files.
    let directory: URL
    private let asNobody: Bool
    private let proxy: Task<ToolResult, any Error>

    private var infoFile: String { directory.appendingPathComponent("flatpak-info").path }
    private var appDirectory: String { directory.appendingPathComponent("app").path }
    private var socketPath: String { directory.appendingPathComponent("proxy/bus").path }

    private init(appID: String, directory: URL, asNobody: Bool, proxy: Task<ToolResult, any Error>) {
        self.appID = appID
        self.directory = directory
        self.asNobody = asNobody
        self.proxy = proxy
    }

    /// Starts the proxy for app `appID` on the harness's bus, letting it talk
    /// to `talkName` (a manifest's `--talk-name=`; nil: no permission), and
    /// returns once the proxy listens. `files` are copied to the app's `/app`.
    static func start(_ appID: String, talkName: String? = GuidedAccessBus.name, files: [URL] = [],
                      in harness: Harness) async throws -> FlatpakSandbox {
        let asNobody = harness.options.asNobody
        let directory = harness.directory.appendingPathComponent("flatpak-\(appID)-\(UUID().uuidString.prefix(8))")
        try prepare(directory, appID: appID, files: files, asNobody: asNobody)
        let socket = directory.appendingPathComponent("proxy/bus").path
        let argv = wrapperArguments(directory: directory) + ["--", "xdg-dbus-proxy",
            // Flatpak's sync descriptor: the proxy writes to it once it
            // listens and exits when its reader (this process) is gone.
            "--fd=1", harness.address, socket, "--filter"] + (talkName.map { ["--talk=\($0)"] } ?? [])
        let proxy = Task {
            let result = try await ProcessRunner.run(asNobody ? ProcessRunner.asUnprivileged(argv) : argv,
                                                     timeout: .seconds(600))
            return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
        }
        let sandbox = FlatpakSandbox(appID: appID, directory: directory, asNobody: asNobody, proxy: proxy)
        guard await eventually(timeout: .seconds(10), { isSocket(socket) }) else {
            proxy.cancel()
            let ended = await proxy.result
            throw HarnessError("xdg-dbus-proxy in bwrap did not listen on \(socket): \(ended)")
        }
        return sandbox
    }

    /// Runs `argv` as the app: inside the app's sandbox, its bus the proxy's.
    func run(_ argv: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)) async throws -> ToolResult {
        var variables = ["PATH": "/app/bin:/usr/bin", "HOME": "/tmp", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(Self.busInside)"]
        variables.merge(environment) { $1 }
        let sandboxArguments = ["bwrap", "--unshare-all", "--die-with-parent", "--clearenv"]
            + Self.usrMergedDirectories() + ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
               "--ro-bind", appDirectory, "/app", "--ro-bind", infoFile, "/.flatpak-info",
               "--ro-bind", socketPath, Self.busInside, "--chdir", "/app"]
            + variables.sorted { $0.key < $1.key }.flatMap { ["--setenv", $0.key, $0.value] }
            + ["--"] + argv
        let result = try await ProcessRunner.run(asNobody ? ProcessRunner.asUnprivileged(sandboxArguments) : sandboxArguments,
                                                 timeout: timeout)
        return ToolResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// `/usr/bin/python3 -c PRELUDE+script` as the app (see `Harness.python`).
    func python(_ script: String, timeout: Duration = .seconds(30)) async throws -> PythonResult {
        let result = try await run([Paths.python, "-c", Python.prelude + script],
                                   environment: ["GA_ADDRESS": "unix:path=\(Self.busInside)"], timeout: timeout)
        guard let line = result.stdout.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("python in the sandbox of \(appID) printed no JSON result: \(result)")
        }
        return PythonResult(values: object, raw: result)
    }

    /// Stops the proxy (its app's connections close with it).
    func stop() async {
        proxy.cancel()
        _ = await proxy.result
    }

    // MARK: - Building it

    /// The `.flatpak-info` Flatpak writes (the keys the service and portals
    /// read), the proxy's socket directory and the app's files, all the
    /// sandbox user's: bwrap runs as that user and cannot bind what it cannot read.
    private static func prepare(_ directory: URL, appID: String, files: [URL], asNobody: Bool) throws {
        let manager = FileManager.default
        for sub in ["proxy", "app"] {
            try manager.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o755])
        }
        let info = """
            [Application]
            name=\(appID)
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Instance]
            instance-id=\(UInt32.random(in: 1_000_000_000...UInt32.max))
            session-bus-proxy=true

            """
        try info.write(to: directory.appendingPathComponent("flatpak-info"), atomically: true, encoding: .utf8)
        for file in files {
            try manager.copyItem(at: file, to: directory.appendingPathComponent("app").appendingPathComponent(file.lastPathComponent))
        }
        guard asNobody else { return }
        let paths = [directory.path] + (manager.subpaths(atPath: directory.path) ?? []).map { directory.appendingPathComponent($0).path }
        for path in paths where chown(path, ProcessRunner.unprivilegedID, ProcessRunner.unprivilegedID) != 0 {
            throw HarnessError("cannot chown \(path) to nobody")
        }
    }

    /// The proxy's bwrap as Flatpak's `add_bwrap_wrapper` builds it: every
    /// directory of the host's `/` read-only (`/tmp`, `/var` and `/run`
    /// writable), its symlinks as symlinks, the socket's directory, and the
    /// app's `/.flatpak-info`.
    private static func wrapperArguments(directory: URL) -> [String] {
        var arguments = ["bwrap", "--die-with-parent"]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? []).sorted() where name != ".flatpak-info" {
            let path = "/" + name
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                arguments += ["--symlink", target, path]
            } else if isDirectory(path) {
                arguments += [["tmp", "var", "run"].contains(name) ? "--bind" : "--ro-bind", path, path]
            }
        }
        let proxyDirectory = directory.appendingPathComponent("proxy").path
        return arguments + ["--bind", proxyDirectory, proxyDirectory,
                            "--ro-bind", directory.appendingPathComponent("flatpak-info").path, "/.flatpak-info"]
    }

    /// `/bin`, `/lib`, ... as the host has them (symlinks into `/usr` on a
    /// merged-/usr system, else directories), so host binaries run.
    private static func usrMergedDirectories() -> [String] {
        ["bin", "sbin", "lib", "lib32", "lib64", "libx32"].flatMap { name -> [String] in
            let path = "/" + name
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) { return ["--symlink", target, path] }
            return isDirectory(path) ? ["--ro-bind", path, path] : []
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    // MARK: - Whether it can run here

    /// Why no sandbox can be built here (nil: one can), for the user that
    /// runs it: bwrap needs unprivileged user namespaces, or root.
    static func problem(asNobody: Bool) -> String? {
        asNobody ? problemAsNobody : problemAsSelf
    }

    private static let problemAsSelf = probe(asNobody: false)
    private static let problemAsNobody = probe(asNobody: true)

    private static func probe(asNobody: Bool) -> String? {
        guard let bwrap = ProcessRunner.findExecutable(named: "bwrap"),
              ProcessRunner.findExecutable(named: "xdg-dbus-proxy") != nil else {
            return "bubblewrap (bwrap) and xdg-dbus-proxy are not installed; scripts/install-deps installs them"
        }
        if asNobody && !ProcessRunner.canRunUnprivileged { return "running the sandbox as nobody needs root and setpriv" }
        let argv = [bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: asNobody ? ProcessRunner.asUnprivileged(argv)[0] : bwrap)
        process.arguments = Array((asNobody ? ProcessRunner.asUnprivileged(argv) : argv).dropFirst())
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return "cannot run bwrap: \(error)" }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return "bwrap cannot create a sandbox here\(asNobody ? " as nobody" : "") (it needs unprivileged user namespaces, or root): "
                + message.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return nil
    }
}

/// Runs `body` with a sandbox for `appID` and stops its proxy afterwards,
/// also when `body` throws.
func withSandbox<T>(_ appID: String, talkName: String? = GuidedAccessBus.name, files: [URL] = [], in harness: Harness,
                    _ body: (FlatpakSandbox) async throws -> T) async throws -> T {
    let sandbox = try await FlatpakSandbox.start(appID, talkName: talkName, files: files, in: harness)
    do {
        let result = try await body(sandbox)
        await sandbox.stop()
        return result
    } catch {
        await sandbox.stop()
        throw error
    }
}
