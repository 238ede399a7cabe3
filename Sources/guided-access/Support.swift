// SPDX-License-Identifier: LGPL-2.1-or-later
import ArgumentParser
import DBusKit
import Foundation
import GuidedAccess

/// Options every command shares.
struct BusOptions: ParsableArguments {
    @Option(help: ArgumentHelp("D-Bus address of the bus the service is on.",
                               discussion: "Default: $GUIDED_ACCESS_BUS_ADDRESS, else the session bus.",
                               valueName: "address"))
    var address: String?

    var explicitAddress: String? {
        if let address, !address.isEmpty { return address }
        if let fromEnvironment = ProcessInfo.processInfo.environment["GUIDED_ACCESS_BUS_ADDRESS"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return nil
    }

    /// Connects, runs `body`, and turns service errors into messages and exit codes.
    func withAdmin<T>(_ body: (GuidedAccessAdmin) async throws -> T) async throws -> T {
        let admin: GuidedAccessAdmin
        do {
            admin = try GuidedAccessAdmin(bus: explicitAddress.map { .address($0) } ?? .session)
        } catch let error as GuidedAccessAdminError {
            // The bus itself, not the service on it.
            let check = explicitAddress.map { "the bus at \($0) cannot be reached; check --address / GUIDED_ACCESS_BUS_ADDRESS" }
                ?? "no session bus can be reached; check DBUS_SESSION_BUS_ADDRESS (scripts/run-daemon starts a bus when there is none)"
            printError("\(check)\n(\(error.message))")
            throw ExitCode(ExitStatus.unreachable)
        }
        do {
            defer { admin.close() }
            return try await body(admin)
        } catch let error as GuidedAccessAdminError {
            throw await report(error)
        }
    }

    /// Prints what went wrong and the one next step that helps; returns the
    /// exit code to throw. The service's own message names the step where
    /// it can (a wrong passcode, a password polkit would ask for, an
    /// administrator's refusal); the one it cannot see is a machine whose
    /// system bus has no polkit, where every admin action is refused.
    func report(_ error: GuidedAccessAdminError) async -> ExitCode {
        let (status, text): (Int32, String)
        switch error.reason {
        case .interactiveAuthorizationRequired:
            (status, text) = (ExitStatus.notAuthorized, error.message)
        case .permissionDenied:
            // The service names polkit in each of its refusals; another user's, a sandbox's do not.
            var hint = ""
            if error.message.contains("polkit"), await !polkitAvailable() { hint = "\n" + Self.noPolkitHint }
            (status, text) = (ExitStatus.notAuthorized, error.message + hint)
        case .serviceUnavailable:
            let check = explicitAddress == nil ? "check DBUS_SESSION_BUS_ADDRESS" : "check --address / GUIDED_ACCESS_BUS_ADDRESS"
            (status, text) = (ExitStatus.unreachable,
                              "the Guided Access service is not running: start guided-accessd or \(check)\n(\(error.message))")
        case .notActive, .alreadyActive, .notOwner:
            (status, text) = (ExitStatus.invalidState, error.message)
        case .rateLimited:
            (status, text) = (ExitStatus.rateLimited, error.message)
        case .invalidArgument:
            (status, text) = (ExitStatus.usage, error.message)
        case .quotaExceeded, .failed:
            (status, text) = (ExitStatus.failure, error.message.isEmpty ? error.name : error.message)
        }
        printError(text)
        return ExitCode(status)
    }
}

extension BusOptions {
    static let noPolkitHint = "no polkit answers on this machine's system bus: to try Guided Access without it, "
        + "run the daemon with scripts/run-daemon --try from a checkout (as root, or with sudo)"

    /// Whether polkit can answer on the system bus this command sees:
    /// running, or started on demand (bus activation).
    func polkitAvailable() async -> Bool {
        guard let bus = try? Connection(.system) else { return false }
        defer { bus.close() }
        let polkit: BusName = "org.freedesktop.PolicyKit1"
        if case .some(.some) = try? await bus.owner(of: polkit) { return true }
        guard let reply = try? await bus.call(.bus, "/org/freedesktop/DBus", .bus, "ListActivatableNames", []),
              let first = reply.first, let names = try? [String](dbusValue: first) else { return false }
        return names.contains(polkit.rawValue)
    }
}

/// Writes `guided-access: error: …` to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data("guided-access: error: \(text)\n".utf8))
}

/// Prints a line and flushes, so pipes see it at once.
func emit(_ line: String) {
    print(line)
    fflush(nil)
}

/// Prints `object` as JSON (sorted keys; one line when `compact`).
func emitJSON(_ object: Any, compact: Bool = false) throws {
    // Foundation pretty-prints an empty array as "[\n\n]" (and a map so).
    if let array = object as? [Any], array.isEmpty { return emit("[]") }
    if let map = object as? [String: Any], map.isEmpty { return emit("{}") }
    var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
    if !compact { options.insert(.prettyPrinted) }
    let data = try JSONSerialization.data(withJSONObject: object, options: options)
    emit(String(decoding: data, as: UTF8.self))
}

/// Columns padded to the widest cell; the last column is not padded.
func table(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}

/// `10m`, `90s`, `1h30m` or plain seconds (`600`).
struct TimeLimit: ExpressibleByArgument {
    let seconds: UInt64

    init?(argument: String) {
        if let plain = UInt64(argument) { seconds = plain; return }
        var total: UInt64 = 0
        var number = ""
        var sawUnit = false
        for character in argument.lowercased() {
            if character.isASCII, character.isNumber { number.append(character); continue }
            let factor: UInt64
            switch character {
            case "h": factor = 3600
            case "m": factor = 60
            case "s": factor = 1
            default: return nil
            }
            guard let value = UInt64(number) else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            guard !overflow else { return nil }
            total += product
            number = ""
            sawUnit = true
        }
        guard sawUnit, number.isEmpty, total > 0 else { return nil }
        seconds = total
    }

    static var defaultValueDescription: String { "10m|90s|1h30m|600" }
}

/// `--auto-lock`: `never` (0), `desktop` (-1, the desktop's own), or a
/// duration as ``TimeLimit`` reads it (`5m`, `300`).
struct AutoLockArgument: ExpressibleByArgument {
    let seconds: Int64

    init?(argument: String) {
        switch argument.lowercased() {
        case "never": seconds = AutoLock.never
        case "desktop": seconds = AutoLock.desktop
        default:
            guard let duration = TimeLimit(argument: argument), duration.seconds <= UInt64(Int64.max) else { return nil }
            seconds = Int64(duration.seconds)
        }
    }

    static var defaultValueDescription: String { "5m|300|never|desktop" }
}

/// How the app's windows are shown: `as-is`, `maximized`, `fullscreen`.
extension GuidedAccessPresentation: ExpressibleByArgument {}

/// `x,y,width,height`.
extension GuidedAccessRegion: ExpressibleByArgument {
    public init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
            .map { Int32($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3],
              width > 0, height > 0 else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }
}

/// `FEATURE=on|off` for `start --feature`, e.g. `zoom=on`.
struct FeatureSetting: ExpressibleByArgument {
    var feature: AccessibilityFeature
    var isOn: Bool

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let feature = AccessibilityFeature(name: parts[0]), let value = Switch(argument: parts[1]) else {
            return nil
        }
        self.feature = feature
        isOn = value.isOn
    }
}

/// Comma-separated or repeated values as one list, blanks dropped.
func commaSeparated(_ values: [String]) -> [String] {
    values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
}

/// `on`/`off` (also true/false, yes/no, 1/0).
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off

    init?(argument: String) {
        switch argument.lowercased() {
        case "on", "true", "yes", "1", "enable", "enabled": self = .on
        case "off", "false", "no", "0", "disable", "disabled": self = .off
        default: return nil
        }
    }

    var isOn: Bool { self == .on }
}

/// Regions as `x,y,w,h` separated by spaces, or `none`.
func formatRegions(_ regions: [GuidedAccessRegion]) -> String {
    regions.isEmpty ? "none" : regions.map { "\($0.x),\($0.y),\($0.width),\($0.height)" }.joined(separator: " ")
}

/// An `AutoLock` value: `never`, `the desktop's own`, or a duration.
func formatAutoLock(_ seconds: Int64) -> String {
    switch seconds {
    case AutoLock.never: "never"
    case ..<0: "the desktop's own"
    default: "after \(formatDuration(UInt64(seconds)))"
    }
}

/// Seconds as `1h30m`, `10m`, `45s`.
func formatDuration(_ seconds: UInt64) -> String {
    if seconds == 0 { return "0s" }
    let hours = seconds / 3600, minutes = seconds % 3600 / 60, rest = seconds % 60
    var text = ""
    if hours > 0 { text += "\(hours)h" }
    if minutes > 0 { text += "\(minutes)m" }
    if rest > 0 { text += "\(rest)s" }
    return text
}

/// Reads one secret line from stdin; prompts without echo on a terminal.
func readSecret(prompt: String) -> String? {
    let terminal = isatty(STDIN_FILENO) != 0
    var saved = termios()
    if terminal {
        FileHandle.standardError.write(Data(prompt.utf8))
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
    }
    defer {
        if terminal {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }
    return readLine(strippingNewline: true)
}

/// A D-Bus value as a JSON value: variants unwrapped, structs as arrays,
/// string-keyed dictionaries as objects.
func jsonValue(_ value: DBusValue) -> Any {
    switch value {
    case .byte(let v): return Int(v)
    case .bool(let v): return v
    case .int16(let v): return Int(v)
    case .uint16(let v): return Int(v)
    case .int32(let v): return Int(v)
    case .uint32(let v): return Int(v)
    case .int64(let v): return v
    case .uint64(let v): return v
    case .double(let v): return v
    case .string(let v): return v
    case .objectPath(let v): return v.rawValue
    case .signature(let v): return v.rawValue
    case .unixFD(let v): return Int(v)
    case .array(_, let items): return items.map(jsonValue)
    case .structure(let fields): return fields.map(jsonValue)
    case .variant(let inner): return jsonValue(inner)
    case .dictionary(_, _, let entries):
        var object: [String: Any] = [:]
        for entry in entries {
            let key: String = switch entry.key {
            case .string(let s): s
            case .objectPath(let p): p.rawValue
            default: entry.key.description
            }
            object[key] = jsonValue(entry.value)
        }
        return object
    }
}
