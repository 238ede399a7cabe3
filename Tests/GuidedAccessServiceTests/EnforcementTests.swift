// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
@testable import GuidedAccessService
import GuidedAccessContract
import GuidedAccessTesting
import Testing

/// What a shell needs to enforce the session on screen: one identity rule
/// for apps (`GetAppIds`, `Start`'s normalised app) and `RegisterEnforcer`.
@Suite("Enforcement by the shell", .timeLimit(.minutes(2)))
struct EnforcementTests {
    /// Starts `argv` and returns it running; the caller ends it with ``end(_:)``.
    static func spawn(_ argv: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        try process.run()
        return process
    }

    /// SIGKILL: children inherit the test runner's blocked SIGTERM.
    static func end(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("GetAppIds: a symlinked, then replaced, executable has one id, the one Start stores for the typed symlink",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func oneIdentityHoweverStarted() async throws {
        try await withHarness(.init(polkit: .real())) { h in
            let client = try h.connect()
            let directory = h.directory.appendingPathComponent("apps")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let binary = directory.appendingPathComponent("kiosk").path
            let link = directory.appendingPathComponent("kiosk-link").path
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: binary)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: binary)

            let app = try Self.spawn([link, "60"])
            defer { Self.end(app) }
            let ids = try await client.ga(.session, "GetAppIds", [.uint32(UInt32(app.processIdentifier))])
            #expect(ids == [.array(element: "s", [.string(binary)])], "the kernel's resolved path, not the symlink")

            // An upgrade replaces the binary under the running process: /proc says "(deleted)".
            try FileManager.default.removeItem(atPath: binary)
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: binary)
            let afterUpgrade = try await client.ga(.session, "GetAppIds", [.uint32(UInt32(app.processIdentifier))])
            #expect(afterUpgrade == [.array(element: "s", [.string(binary)])])

            // Start with the symlink stores the resolved path: the process's id.
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", link, "0"]).ok)
            #expect(try await client.property(.session, "App", as: String.self) == binary)
            #expect(try await h.busctlCall(.session, "End", ["a{sv}", "0"]).ok)

            // A path that does not exist keeps its spelling; a relative one can never match.
            #expect(try await h.busctlCall(.session, "Start", ["sa{sv}", "/usr/bin/not-installed-kiosk", "0"]).ok)
            #expect(try await client.property(.session, "App", as: String.self) == "/usr/bin/not-installed-kiosk")
            #expect(try await h.busctlCall(.session, "End", ["a{sv}", "0"]).ok)
            let relative = try await h.gdbus(.session, "Start", ["'bin/kiosk'", "{}"])
            #expect(relative.errorName == ServiceErrorName.invalidArgument.rawValue, "\(relative)")
            #expect(relative.stderr.contains("relative path"))
        }
    }

    @Test("GetAppIds refuses another user's process (PermissionDenied) and a pid that does not exist (InvalidArgument)",
          .enabled(if: Requirements.canRunPolkit, .polkitReason))
    func appIdsOfOthers() async throws {
        try await withHarness { h in
            let client = try h.connect()
            let other = try Self.spawn(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sleep", "60"])
            defer { Self.end(other) }
            // setpriv execs sleep in the same process once it has dropped to uid 65534.
            #expect(await eventually(timeout: .seconds(5)) {
                (try? String(contentsOfFile: "/proc/\(other.processIdentifier)/comm", encoding: .utf8)) == "sleep\n"
            })
            let refused = try await h.gdbus(.session, "GetAppIds", ["\(other.processIdentifier)"])
            #expect(refused.errorName == ServiceErrorName.permissionDenied.rawValue, "\(refused)")
            #expect(refused.stderr.contains("belongs to user 65534"))

            let gone = try Self.spawn(["/bin/true"])
            gone.waitUntilExit()
            let missing = await client.gaError(.session, "GetAppIds", [.uint32(UInt32(gone.processIdentifier))])
            #expect(missing == ServiceErrorName.invalidArgument.rawValue)

            // KWin's scripts can send the pid only as `i`: the same answer.
            let mine = try await h.busctlCall(.session, "GetAppIds", ["i", "\(getpid())"])
            #expect(mine.ok && mine.output.hasPrefix("as 1 "), "\(mine)")
            let negative = await client.gaError(.session, "GetAppIds", [.int32(-1)])
            #expect(negative == ErrorName.invalidArgs.rawValue)
        }
    }

    @Test("RegisterEnforcer: Enforcers and SystemRestrictionSources name the shell while its connection lives, with PropertiesChanged")
    func registerEnforcer() async throws {
        try await withHarness { h in
            let observer = try h.connect()
            let changes = try await observer.gaSignals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            let before = try await observer.property(.session, "SystemRestrictionSources", as: [String: String].self)

            let shell = try h.connect()
            #expect(try await shell.ga(.session, "RegisterEnforcer", [.string("test-shell"), strings(["app-lock", "keyboards", "keyboards"])]) == [])
            #expect(await next(changes)?.arguments.first == .string(ServiceInterface.session.rawValue))
            let busctl = try await h.busctl(getProperty(.session, "Enforcers"))
            #expect(busctl.output == #"a{sas} 1 "test-shell" 2 "app-lock" "keyboards""#, "\(busctl)")
            let sources = try await observer.property(.session, "SystemRestrictionSources", as: [String: String].self)
            let desktopKeyboards = try #require(before["keyboards"])
            #expect(sources["keyboards"] == (desktopKeyboards == "published" ? "shell:test-shell" : "shell:test-shell,\(desktopKeyboards)"))
            #expect(sources["touch"] == before["touch"], "what the shell does not enforce keeps its source")

            // A second call replaces the first.
            _ = try await shell.ga(.session, "RegisterEnforcer", [.string("test-shell"), strings(["touch"])])
            #expect(await eventually(timeout: .seconds(5)) {
                (try? await observer.property(.session, "Enforcers", as: [String: [String]].self)) == ["test-shell": ["touch"]]
            })

            // Bad input names the problem.
            #expect(await shell.gaError(.session, "RegisterEnforcer", [.string("test-shell"), strings(["teleport"])])
                    == ServiceErrorName.invalidArgument.rawValue)
            #expect(await shell.gaError(.session, "RegisterEnforcer", [.string("no spaces"), strings([])])
                    == ServiceErrorName.invalidArgument.rawValue)

            // The registration ends with the connection.
            shell.close()
            #expect(await eventually(timeout: .seconds(10)) {
                (try? await observer.property(.session, "Enforcers", as: [String: [String]].self)) == [:]
            })
            #expect(try await observer.property(.session, "SystemRestrictionSources", as: [String: String].self) == before)
        }
    }

    @Test("LaunchApp: PermissionDenied to a connection that is no enforcer, NotActive without a session, each naming the next step")
    func launchAppRefusals() async throws {
        try await withHarness { h in
            let stranger = try h.connect()
            let refused = try await h.gdbus(.session, "LaunchApp")
            #expect(refused.errorName == ServiceErrorName.permissionDenied.rawValue, "\(refused)")
            #expect(refused.stderr.contains("call RegisterEnforcer on this connection first"), "\(refused)")
            _ = try await stranger.ga(.session, "RegisterEnforcer", [.string("test-shell"), strings(["app-lock"])])
            #expect(await stranger.gaError(.session, "LaunchApp", []) == ServiceErrorName.notActive.rawValue)
        }
    }

    @Test("Scope names: launcher and random suffix dropped, systemd's \\x2d escapes decoded")
    func scopeNames() {
        #expect(CallerIdentity.parseScopeName("gnome-org.gnome.TextEditor-4242") == "org.gnome.TextEditor")
        #expect(CallerIdentity.parseScopeName("gnome-firefox\\x2desr-4242") == "firefox-esr")
        #expect(CallerIdentity.unescapeUnitName("a\\x2db\\x2") == "a-b\\x2", "an incomplete escape stays as written")
    }
}

/// A caller's identities from what /proc says of it, on a crafted /proc
/// tree, for the cases no test machine has (scopes, upgraded binaries);
/// FlatpakSandboxTests runs a real sandbox.
@Suite("Caller identity from /proc")
struct CallerIdentityProcTests {
    @Test("a Flatpak app is its app id first, then its scope's id, then its executable; a plain process its executable")
    func flatpakScopeAndExecutable() throws {
        let proc = FileManager.default.temporaryDirectory.appendingPathComponent("fake-proc-\(getpid())")
        defer { try? FileManager.default.removeItem(at: proc) }
        let sandboxed = proc.appendingPathComponent("4242"), plain = proc.appendingPathComponent("4343")
        try FileManager.default.createDirectory(at: sandboxed.appendingPathComponent("root"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        try "[Application]\nname=org.example.Notes\nruntime=runtime/org.gnome.Platform/x86_64/43\n\n[Instance]\ninstance-id=1\n"
            .write(to: sandboxed.appendingPathComponent("root/.flatpak-info"), atomically: true, encoding: .utf8)
        try "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Notes-123.scope\n"
            .write(to: sandboxed.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: sandboxed.appendingPathComponent("exe").path,
                                                   withDestinationPath: "/app/bin/notes (deleted)")
        try "0::/user.slice/user-1000.slice/session-2.scope\n"
            .write(to: plain.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: plain.appendingPathComponent("exe").path,
                                                   withDestinationPath: "/usr/bin/exam-browser")

        #expect(CallerIdentity.appIDs(of: 4242, procRoot: proc.path) == ["org.example.Notes", "org.example.Notes", "/app/bin/notes"])
        #expect(CallerIdentity.appIDs(of: 4343, procRoot: proc.path) == ["/usr/bin/exam-browser"])
        #expect(CallerIdentity.appIDs(of: 4444, procRoot: proc.path) == ["pid:4444"])
    }

    @Test("a .flatpak-info without an [Application] name gives no Flatpak id")
    func flatpakInfoWithoutName() throws {
        let proc = FileManager.default.temporaryDirectory.appendingPathComponent("fake-proc-name-\(getpid())")
        defer { try? FileManager.default.removeItem(at: proc) }
        let root = proc.appendingPathComponent("7/root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try "[Instance]\nname=not-the-app\n".write(to: root.appendingPathComponent(".flatpak-info"), atomically: true, encoding: .utf8)
        #expect(CallerIdentity.flatpakID(of: 7, procRoot: proc.path) == nil)
    }
}
