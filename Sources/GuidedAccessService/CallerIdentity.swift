// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import Locking

/// Who is calling: process and user from the bus, app id from `/proc`.
/// Never taken from call arguments.
public struct CallerIdentity: Sendable, Hashable {
    /// The caller's unique bus name.
    public let busName: BusName
    public let processID: UInt32
    public let userID: UInt32
    /// Process start time (clock ticks since boot), so polkit can tell a
    /// recycled pid from the original process.
    public let startTime: UInt64
    /// Every id of the caller's app, preferred first (``appIDs(of:procRoot:)``);
    /// for a sandboxed caller its Flatpak id alone.
    public let appIDs: [String]
    /// The Flatpak id when the caller runs in a Flatpak sandbox, else nil.
    /// Such a caller is untrusted code: it never acts as an administrator
    /// unless managed config says so (see `GuidedAccessService.sandboxRefusal`).
    public let flatpakID: String?
    /// The preferred one: Flatpak id, else systemd scope app id, else executable path.
    public var app: String { appIDs[0] }

    /// Resolves the caller of `call`.
    ///
    /// A Flatpak app's calls come through the `xdg-dbus-proxy` that
    /// `flatpak run` starts for it, so the bus vouches for the proxy's pid.
    /// Flatpak runs that proxy in a bubblewrap sandbox holding the app's
    /// `/.flatpak-info`, which is where the id is read; the proxy's
    /// executable and scope say nothing of the app, so they are not its ids.
    public static func of(_ call: MethodCall, procRoot: String = "/proc") async throws -> CallerIdentity {
        let credentials = try await call.callerCredentials()
        let pid = credentials.processID
        let flatpak = flatpakID(of: pid, procRoot: procRoot)
        return CallerIdentity(
            busName: call.sender, processID: pid, userID: credentials.userID,
            startTime: startTime(of: pid, procRoot: procRoot) ?? 0,
            appIDs: flatpak.map { [$0] } ?? appIDs(of: pid, procRoot: procRoot),
            flatpakID: flatpak)
    }

    /// Field 22 of `/proc/PID/stat`. The command name (field 2) may contain
    /// spaces and parentheses, so fields are counted after its closing `)`.
    static func startTime(of pid: UInt32, procRoot: String) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "\(procRoot)/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")" come field 3 (state) onwards; field 22 is at index 19.
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// Every id the service gives process `pid`, preferred first: its
    /// Flatpak id, its systemd scope's app id, its executable's path (as the
    /// kernel resolved it, so symlinks are followed). One app started from
    /// the shell and from a terminal shares the executable form. Never
    /// empty: `pid:N` when none can be read.
    static func appIDs(of pid: UInt32, procRoot: String) -> [String] {
        let ids = [flatpakID(of: pid, procRoot: procRoot), scopeAppID(of: pid, procRoot: procRoot),
                   executablePath(of: pid, procRoot: procRoot)].compactMap { $0 }
        return ids.isEmpty ? ["pid:\(pid)"] : ids
    }

    /// `/proc/PID/exe`. A binary replaced since the process started (an
    /// upgrade) reads `PATH (deleted)`; the app is still the one at `PATH`.
    static func executablePath(of pid: UInt32, procRoot: String) -> String? {
        guard var path = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(procRoot)/\(pid)/exe"),
              !path.isEmpty else { return nil }
        let deleted = " (deleted)"
        if path.hasSuffix(deleted) { path.removeLast(deleted.count) }
        return path
    }

    /// `[Application] name=` in the sandbox's `/.flatpak-info`.
    static func flatpakID(of pid: UInt32, procRoot: String) -> String? {
        guard let info = try? String(contentsOfFile: "\(procRoot)/\(pid)/root/.flatpak-info", encoding: .utf8) else { return nil }
        var inApplication = false
        for line in info.split(separator: "\n") {
            if line.hasPrefix("[") { inApplication = line == "[Application]"; continue }
            if inApplication, line.hasPrefix("name=") { return String(line.dropFirst(5)) }
        }
        return nil
    }

    /// The app id in a systemd scope such as `app-gnome-org.gnome.Terminal-1234.scope`
    /// (launcher, id, random suffix) from the process's cgroup path.
    static func scopeAppID(of pid: UInt32, procRoot: String) -> String? {
        guard let cgroup = try? String(contentsOfFile: "\(procRoot)/\(pid)/cgroup", encoding: .utf8) else { return nil }
        for unit in cgroup.split(whereSeparator: { $0 == "/" || $0 == "\n" }).reversed() {
            guard unit.hasPrefix("app-"), unit.hasSuffix(".scope") || unit.hasSuffix(".service") else { continue }
            let name = unit.dropFirst(4).split(separator: ".").dropLast().joined(separator: ".")
            return parseScopeName(name)
        }
        return nil
    }

    /// `LAUNCHER-ID-RANDOM` → `ID`; `ID@INSTANCE` → `ID`; ids themselves may
    /// contain `-`, which systemd writes as `\x2d` (decoded here).
    static func parseScopeName(_ name: String) -> String? {
        let base = name.split(separator: "@").first.map(String.init) ?? name
        let parts = base.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return parts.count == 2 ? unescapeUnitName(String(parts[1])) : nil }
        let id = parts.dropFirst().dropLast().joined(separator: "-")
        return id.isEmpty ? nil : unescapeUnitName(id)
    }

    /// Undoes systemd's unit-name escaping: each `\xNN` is the byte NN.
    /// Anything that is not a complete escape stays as written.
    static func unescapeUnitName(_ escaped: String) -> String {
        guard escaped.contains("\\x") else { return escaped }
        var bytes: [UInt8] = []
        var rest = Substring(escaped).utf8[...]
        while let first = rest.first {
            if first == UInt8(ascii: "\\"), rest.count >= 4, rest.dropFirst().first == UInt8(ascii: "x"),
               let byte = UInt8(String(decoding: rest.dropFirst(2).prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(byte)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(first)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Caller identities by unique bus name, so a call costs no
/// `GetConnectionCredentials` round trip and no `/proc` reads once its
/// connection has called before. A unique name belongs to one connection of
/// one process for its whole life and is never reused, so an entry holds
/// until the name leaves the bus; the process start time in it still keeps
/// polkit from trusting a recycled pid (CVE-2013-4288).
final class CallerIdentityCache: Sendable {
    private let entries = Locked<[BusName: CallerIdentity]>([:])
    /// Past this many callers the cache starts over (names missed while
    /// leaving, e.g. during a race with their first call, cannot pile up).
    static let bound = 8_192

    /// The identity of the caller of `call`, resolved on its first call.
    func identity(of call: MethodCall) async throws -> CallerIdentity {
        if let known = entries.withLock({ $0[call.sender] }) { return known }
        let identity = try await CallerIdentity.of(call)
        entries.withLock { entries in
            if entries.count >= Self.bound { entries.removeAll() }
            entries[call.sender] = identity
        }
        return identity
    }

    /// How many callers are remembered.
    var count: Int { entries.withLock { $0.count } }

    /// Whether `name` is still on the bus. A remembered caller is connected
    /// until its `NameOwnerChanged` arrives, which costs no round trip; any
    /// other name is asked of the bus.
    func isConnected(_ name: BusName, on bus: Connection) async throws -> Bool {
        if entries.withLock({ $0[name] != nil }) { return true }
        return try await bus.owner(of: name) != nil
    }

    /// Forgets each unique name as it leaves `bus`, for as long as `bus` is open.
    func follow(_ bus: Connection) async throws {
        let changes = try await bus.signals(MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged"))
        Task { [weak self] in
            for await change in changes {
                guard change.arguments.count == 3, case .string(let raw) = change.arguments[0], raw.hasPrefix(":"),
                      change.arguments[2] == .string(""), let name = try? BusName(validating: raw) else { continue }
                self?.entries.withLock { _ = $0.removeValue(forKey: name) }
            }
        }
    }
}
