import DBusKit
import DBusTesting
import Foundation
import Synchronization

// The desktop-settings figures of guided-accessd (release build) against
// GNOME's real dconf, on a private session bus with its own XDG directories
// and a real polkitd on a private system bus (so: root). Each figure is
// printed beside a reference measured in the same run:
//
// - gsettings set → PropertiesChanged at a subscribed client, against the
//   `gsettings set` process alone (spawn to exit);
// - SetFeature of a GSettings-backed feature, against one the service keeps;
// - Start with all 8 system restrictions denied (every key written and
//   durable at the reply), against Start with none.
//
//   swift build -c release && swift run -c release desktop-benchmark [--count N]

let name: BusName = "org.guidedaccess.GuidedAccess1"
let path: ObjectPath = "/org/guidedaccess/GuidedAccess1"
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--count").flatMap { Int(arguments[$0 + 1]) } ?? 200
let daemon = Measuring.daemonPath(arguments)
if let reason = PolkitTestAuthority.skipReason {
    print("needs a real polkitd: \(reason)")
    exit(2)
}

// MARK: Set-up: private buses, dconf, polkitd, the daemon

let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ga-desktop-bench-\(getpid())")
let config = root.appendingPathComponent("config"), runtime = root.appendingPathComponent("runtime")
let services = root.appendingPathComponent("services"), state = root.appendingPathComponent("state")
for url in [config, runtime, services, state] {
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
}
try "[D-BUS Service]\nName=ca.desrt.dconf\nExec=/usr/libexec/dconf-service\n"
    .write(to: services.appendingPathComponent("ca.desrt.dconf.service"), atomically: true, encoding: .utf8)
let settingsEnvironment = ["XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": runtime.path, "GSETTINGS_BACKEND": "dconf"]
let polkit = try await PolkitTestAuthority.start(policyFiles: [packageRoot.appendingPathComponent("polkit/org.guidedaccess.policy")])
let bus = try PrivateBus.startSession(serviceDirectories: [services.path], environment: settingsEnvironment)
let clientEnvironment = settingsEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }

let service = Process()
service.executableURL = URL(fileURLWithPath: daemon)
service.arguments = ["--address", bus.address, "--state-dir", state.path, "--managed-config", "/nonexistent",
                     "--polkit-address", polkit.systemBusAddress]
service.environment = ProcessInfo.processInfo.environment.merging(clientEnvironment) { $1 }
service.standardError = FileHandle.nullDevice
try service.run()

func cleanUp() {
    service.terminate()
    service.waitUntilExit()
    bus.stop()
    polkit.stop()
    try? FileManager.default.removeItem(at: root)
}

let client = try Connection(.address(bus.address))
for _ in 0..<200 where try await client.owner(of: name) == nil { try await Task.sleep(for: .milliseconds(25)) }

// MARK: Measuring

let milliseconds = Measuring.milliseconds
let percentile = Measuring.percentile

func call(_ interface: InterfaceName, _ member: MemberName, _ values: [DBusValue]) async throws {
    _ = try await client.call(name, path, interface, member, values, timeout: .seconds(30))
}

func options(_ entries: [String: DBusValue]) -> DBusValue {
    .dictionary(key: "s", value: "v", entries.map { .init(key: .string($0.key), value: .variant($0.value)) })
}

struct Row {
    let figure: String
    let samples: [Double]
    let reference: String
    let referenceSamples: [Double]
    let target: Double
}

var rows: [Row] = []
let jiffiesBefore = Measuring.cpuJiffies()

// gsettings set → PropertiesChanged, against the gsettings process alone.
let changes = try await client.signals(MatchRule(path: path, interface: .properties, member: "PropertiesChanged"))
var relay: [Double] = [], gsettingsAlone: [Double] = []
for index in 0..<count {
    let value = index % 2 == 0 ? "true" : "false"
    relay.append(try await milliseconds {
        _ = try await ProcessRunner.run(["gsettings", "set", "org.gnome.desktop.a11y.applications", "screen-magnifier-enabled", value],
                                        environment: clientEnvironment)
        while let message = await next(changes, timeout: .seconds(5)) {
            if "\(message.arguments)".contains("Zoom") { break }
        }
    })
    gsettingsAlone.append(try await milliseconds {
        _ = try await ProcessRunner.run(["gsettings", "set", "org.gnome.desktop.a11y.applications", "screen-reader-enabled", value],
                                        environment: clientEnvironment)
    })
}
rows.append(Row(figure: "gsettings set → PropertiesChanged", samples: relay,
                reference: "gsettings set alone", referenceSamples: gsettingsAlone, target: 50))

// SetFeature: GSettings-backed (written and synced to dconf) against service-kept.
let features: InterfaceName = "org.guidedaccess.Features1"
var gsettingsFeature: [Double] = [], serviceFeature: [Double] = []
for index in 0..<count {
    let on = DBusValue.bool(index % 2 == 0)
    gsettingsFeature.append(try await milliseconds { try await call(features, "SetFeature", [.string("Zoom"), on]) })
    serviceFeature.append(try await milliseconds { try await call(features, "SetFeature", [.string("BoldText"), on]) })
}
rows.append(Row(figure: "SetFeature Zoom (GSettings)", samples: gsettingsFeature,
                reference: "SetFeature BoldText (service)", referenceSamples: serviceFeature, target: 10))

// Start with every restriction denied, against Start with none; End between.
let session: InterfaceName = "org.guidedaccess.GuidedAccess1"
let allDenied = options(["system-restrictions": .dictionary(key: "s", value: "s", [
    "sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch", "notifications", "app-switching", "power-menu",
].map { .init(key: .string($0), value: .string("deny")) })])
var startDenied: [Double] = [], startPlain: [Double] = []
for _ in 0..<max(20, count / 4) {
    startDenied.append(try await milliseconds { try await call(session, "Start", [.string("/usr/bin/kiosk"), allDenied]) })
    try await call(session, "End", [options([:])])
    startPlain.append(try await milliseconds { try await call(session, "Start", [.string("/usr/bin/kiosk"), options([:])]) })
    try await call(session, "End", [options([:])])
}
rows.append(Row(figure: "Start, 8 restrictions denied", samples: startDenied,
                reference: "Start, none denied", referenceSamples: startPlain, target: 50))

// Properties.Get while slow work runs (PBKDF2 in SetPasscode, the fsync of
// 100 SetState calls at once), against Get on the idle daemon.
let restrictionsInterface: InterfaceName = "org.guidedaccess.Restrictions1"
func getState(on connection: Connection) async throws {
    _ = try await connection.call(name, path, .properties, "Get", [.string(session.rawValue), .string("State")])
}
var idleGets: [Double] = []
for _ in 0..<count * 5 { idleGets.append(try await milliseconds { try await getState(on: client) }) }
// Four writers of 25 calls each: one connection may have only 32 in flight.
let writers = try (0..<4).map { _ in try Connection(.address(bus.address)) }
let slowWork = Task.detached { [writers, name, path, session, restrictionsInterface] in
    let writer = writers[0]
    var round = 0
    while !Task.isCancelled {
        round += 1
        try await writer.call(name, path, session, "SetPasscode", [.string("\(1000 + round % 9000)")], timeout: .seconds(30))
        let state = round % 2 == 0 ? "deny" : "allow"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    _ = try await writers[index % 4].call(name, path, restrictionsInterface, "SetState",
                                              [.string("com.example.bench.r\(index)"), .string(state)])
                }
            }
            try await group.waitForAll()
        }
    }
}
try await Task.sleep(for: .milliseconds(50))
var busyGets: [Double] = []
for _ in 0..<count {
    busyGets.append(try await milliseconds { try await getState(on: client) })
    try await Task.sleep(for: .milliseconds(1))
}
slowWork.cancel()
if case .failure(let error) = await slowWork.result, !(error is CancellationError) {
    print("the slow work failed: \(error)")
    exit(1)
}
for writer in writers { writer.close() }
rows.append(Row(figure: "Get while hashing + 100 fsyncs", samples: busyGets,
                reference: "Get, daemon idle", referenceSamples: idleGets, target: 5))

// An admin's SetState → RestrictionChanged seen by all of 100 subscribed
// apps, against the bus alone fanning out a plain libdbus client's signal to
// the same 100.
final class Arrivals: Sendable {
    private let state = Mutex<(count: Int, last: ContinuousClock.Instant)>((0, .now))
    func arrived() { state.withLock { $0 = ($0.count + 1, .now) } }
    func reset() { state.withLock { $0 = (0, .now) } }
    /// Milliseconds from `start` to the `expected`-th arrival.
    func wait(for expected: Int, since start: ContinuousClock.Instant) async throws -> Double {
        while true {
            let (count, last) = state.withLock { $0 }
            if count >= expected { return (last - start).milliseconds }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}
let subscriberCount = 100
let restrictionChanged = Arrivals(), ping = Arrivals()
let pingInterface: InterfaceName = "org.example.FanOut1"
var subscribers: [Connection] = []
for _ in 0..<subscriberCount {
    let subscriber = try Connection(.address(bus.address))
    subscribers.append(subscriber)
    for (rule, arrivals) in [(MatchRule(interface: restrictionsInterface, member: "RestrictionChanged"), restrictionChanged),
                             (MatchRule(interface: pingInterface, member: "Ping"), ping)] {
        let stream = try await subscriber.signals(rule)
        Task.detached { for await _ in stream { arrivals.arrived() } }
    }
}
let emitter = try Connection(.address(bus.address))
var fanOut: [Double] = [], busAlone: [Double] = []
for index in 0..<count {
    restrictionChanged.reset()
    let start = ContinuousClock.now
    try await call(restrictionsInterface, "SetState", [.string("com.example.fanout"), .string(index % 2 == 0 ? "deny" : "allow")])
    fanOut.append(try await restrictionChanged.wait(for: subscriberCount, since: start))
    ping.reset()
    let pingStart = ContinuousClock.now
    try emitter.emit("/org/example/FanOut", pingInterface, "Ping", [.uint32(UInt32(index))])
    busAlone.append(try await ping.wait(for: subscriberCount, since: pingStart))
}
for subscriber in subscribers { subscriber.close() }
emitter.close()
rows.append(Row(figure: "SetState → 100 subscribers", samples: fanOut,
                reference: "a client's signal → same 100", referenceSamples: busAlone, target: 5))

// MARK: The table

print("guided-accessd with dconf on a private bus, real polkitd; \(count) samples (Start: \(startDenied.count)); milliseconds")
print("figure                              p50     p99   target   | reference                        p50     p99")
var failed = false
for row in rows {
    let p99 = percentile(row.samples, 0.99)
    let ok = p99 < row.target
    if !ok { failed = true }
    print(String(format: "%@ %7.2f %7.2f   < %3.0f %@ | %@ %7.2f %7.2f",
                 row.figure.padding(toLength: 34, withPad: " ", startingAt: 0), percentile(row.samples, 0.5), p99, row.target,
                 ok ? "ok" : "MISSED", row.reference.padding(toLength: 31, withPad: " ", startingAt: 0),
                 percentile(row.referenceSamples, 0.5), percentile(row.referenceSamples, 0.99)))
}
print(String(format: "CPU time stolen by the hypervisor during the run: %.0f%%", Measuring.stolenShare(since: jiffiesBefore) * 100))
client.close()
cleanUp()
exit(failed ? 1 : 0)
