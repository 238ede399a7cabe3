import DBusKit
import FoundationEssentials
import Synchronization

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
    /// Flatpak id, else systemd scope app id, else executable path.
    public let app: String

    /// Resolves the caller of `call`.
    public static func of(_ call: MethodCall, procRoot: String = "/proc") async throws -> CallerIdentity {
        let credentials = try await call.callerCredentials()
        let pid = credentials.processID
        return CallerIdentity(
            busName: call.sender, processID: pid, userID: credentials.userID,
            startTime: startTime(of: pid, procRoot: procRoot) ?? 0,
            app: appID(of: pid, procRoot: procRoot))
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

    static func appID(of pid: UInt32, procRoot: String) -> String {
        if let flatpak = flatpakID(of: pid, procRoot: procRoot) { return flatpak }
        if let scope = scopeAppID(of: pid, procRoot: procRoot) { return scope }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(procRoot)/\(pid)/exe")) ?? ""
        return exe.isEmpty ? "pid:\(pid)" : exe
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

    /// `LAUNCHER-ID-RANDOM` → `ID`; `ID@INSTANCE` → `ID`; ids themselves may contain `-`.
    static func parseScopeName(_ name: String) -> String? {
        let base = name.split(separator: "@").first.map(String.init) ?? name
        let parts = base.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return parts.count == 2 ? String(parts[1]) : nil }
        let id = parts.dropFirst().dropLast().joined(separator: "-")
        return id.isEmpty ? nil : id
    }
}

/// Caller identities by unique bus name, so a call costs no
/// `GetConnectionCredentials` round trip and no `/proc` reads once its
/// connection has called before. A unique name belongs to one connection of
/// one process for its whole life and is never reused, so an entry holds
/// until the name leaves the bus; the process start time in it still keeps
/// polkit from trusting a recycled pid (CVE-2013-4288).
final class CallerIdentityCache: Sendable {
    private let entries = Mutex<[BusName: CallerIdentity]>([:])
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
