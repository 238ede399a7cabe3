// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting

// Every performance and footprint target of guided-accessd (release build),
// each beside a reference measured in the same run, in one table. The daemon
// runs on a private desktop: a session bus with GNOME's real dconf, a real
// polkitd on a private system bus (so: root). Exits 1 when a target is missed.
//
//   scripts/bench [--count N]      (builds release, then runs this)

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--count").flatMap { Int(arguments[$0 + 1]) } ?? 200
let daemon = Project.benchmarkedDaemon(arguments)
let launcherPath = "/usr/libexec/at-spi-bus-launcher"
if let reason = PolkitTestAuthority.skipReason {
    print("needs a real polkitd: \(reason)")
    exit(2)
}
guard let echoTool = ProcessRunner.findExecutable(named: "dbus-test-tool"),
      FileManager.default.isExecutableFile(atPath: launcherPath) else {
    print("needs dbus-test-tool and \(launcherPath): apt-get install dbus-tests at-spi2-core")
    exit(2)
}

let desktop = try await Desktop.start(daemon: daemon)
let jiffiesBefore = Measuring.cpuJiffies()
var rows: [Row] = []
let client = try desktop.connect()
let proxy = Proxy(client, destination: .guidedAccess, path: .guidedAccess, timeout: .seconds(30))
let session = Contract.Session.self, restrictions = Contract.Restrictions.self

// MARK: Start-up and footprint, against at-spi-bus-launcher (GNOME's small session service)

var daemonStarts: [Double] = [], launcherStarts: [Double] = []
var launcherRSS = 0.0
let floorPath = URL(fileURLWithPath: daemon).deletingLastPathComponent().appendingPathComponent("footprint-floor").path
dropFromPageCache([daemon, floorPath, launcherPath])  // none of them runs yet
for run in 0..<5 {
    if run > 0 {
        desktop.fixture.stopDaemon()
        try await desktop.fixture.waitUntilNameIsFree()
    }
    daemonStarts.append(try await millisecondsToOwner(.guidedAccess, on: desktop) { try await desktop.fixture.startDaemon() })
    var launcher: Process?
    launcherStarts.append(try await millisecondsToOwner(try BusName(validating: "org.a11y.Bus"), on: desktop) {
        launcher = try desktop.launch([launcherPath])
    })
    try await Task.sleep(for: .milliseconds(500))
    launcherRSS = Measuring.residentMegabytes(launcher!.processIdentifier)
    kill(launcher!.processIdentifier, SIGKILL)  // it may inherit SIGTERM blocked from this process
    launcher!.waitUntilExit()
}
let idleRSS = desktop.daemonRSS()
let startP50 = Measuring.percentile(daemonStarts, 0.5)
rows.append(Row(figure: "exec → name owned, median of 5 (ms)", ours: String(format: "%.1f", startP50),
                reference: String(format: "at-spi-bus-launcher %.1f", Measuring.percentile(launcherStarts, 0.5)),
                target: "< 100 ms", met: startP50 < 100))
rows.append(Row(figure: "idle RSS (MB)", ours: String(format: "%.1f", idleRSS),
                reference: String(format: "at-spi-bus-launcher %.1f", launcherRSS),
                target: String(format: "≤ 2× (%.2f×)", idleRSS / launcherRSS), met: idleRSS <= 2 * launcherRSS))
// The same stack with no Guided Access code (Benchmarks/footprint-floor),
// built beside the daemon: how much of the idle figure the stack itself takes.
let floorName = try BusName(validating: "org.example.FootprintFloor")
var floorProcess: Process?
_ = try await millisecondsToOwner(floorName, on: desktop) {
    floorProcess = try desktop.launch([floorPath])
}
try await Task.sleep(for: .milliseconds(500))
let floorRSS = Measuring.residentMegabytes(floorProcess!.processIdentifier)
kill(floorProcess!.processIdentifier, SIGKILL)
floorProcess!.waitUntilExit()
rows.append(Row(figure: "floor: Swift + DBusKit + GSettings (MB)", ours: String(format: "%.1f", floorRSS),
                reference: String(format: "at-spi-bus-launcher %.1f", launcherRSS),
                target: String(format: "- (%.2f×)", floorRSS / launcherRSS), met: nil))
rows.append(Row(figure: "binary, stripped (MB)", ours: String(format: "%.2f", try await strippedMegabytes(daemon)),
                reference: String(format: "at-spi-bus-launcher %.2f", fileMegabytes(launcherPath)), target: "-", met: nil))
rows.append(try await functionOrderRow(daemon: daemon))

progress("Properties.Get throughput: 5 rounds at depth 1 and 32")
// MARK: Properties.Get throughput, against dbus-test-tool echo (C libdbus)

let echoName = try BusName(validating: "org.example.Echo")
let echo = try desktop.launch([echoTool, "echo", "--name=\(echoName)"])
try await waitForOwner(echoName, client)
for (depth, target) in [(1, 0.9), (32, 0.8)] {
    let property = (session.state.interface.rawValue, session.state.name.rawValue)
    _ = try await getsPerSecond(client, .guidedAccess, .guidedAccess, property, depth: depth, seconds: 0.3)  // warm-up
    _ = try await getsPerSecond(client, echoName, .guidedAccess, property, depth: depth, seconds: 0.3)
    var ours = 0.0, theirs = 0.0
    // Interleaved rounds, best of each: both sides see the same host.
    for _ in 0..<5 {
        ours = max(ours, try await getsPerSecond(client, .guidedAccess, .guidedAccess, property, depth: depth, seconds: 1.5))
        theirs = max(theirs, try await getsPerSecond(client, echoName, .guidedAccess, property, depth: depth, seconds: 1.5))
    }
    rows.append(Row(figure: "Properties.Get, \(depth) in flight (calls/s)", ours: String(format: "%.0f", ours),
                    reference: String(format: "dbus-test-tool echo %.0f", theirs),
                    target: String(format: "≥ %.1f× (%.2f×)", target, ours / theirs), met: ours >= target * theirs))
}
kill(echo.processIdentifier, SIGKILL)

progress("SetState and its fan-out to 100 subscribers")
// MARK: Mutations and fan-out

// An admin's SetState, until its reply (durable) and until all of 100
// subscribed apps have its RestrictionChanged; the reference is the bus
// fanning a plain libdbus client's signal out to the same 100.
let restrictionChanged = Arrivals(), ping = Arrivals()
let subscribers = try await subscribe(100, on: desktop, to: [
    (MatchRule(interface: restrictions.restrictionChanged.interface, member: restrictions.restrictionChanged.name), restrictionChanged),
    (MatchRule(interface: "org.example.FanOut1", member: "Ping"), ping),
])
let emitter = try CEmitter(address: desktop.fixture.address)
var replies: [Double] = [], fanOut: [Double] = [], busAlone: [Double] = []
for index in 0..<count {
    restrictionChanged.reset()
    let start = ContinuousClock.now
    try await proxy.call(restrictions.setState, "com.example.fanout", index % 2 == 0 ? "deny" : "allow")
    replies.append((ContinuousClock.now - start).milliseconds)
    fanOut.append(try await restrictionChanged.wait(for: subscribers.count, since: start))
    ping.reset()
    let pingStart = ContinuousClock.now
    emitter.emit(path: "/org/example/FanOut", interface: "org.example.FanOut1", member: "Ping", value: UInt32(index))
    busAlone.append(try await ping.wait(for: subscribers.count, since: pingStart))
}
for subscriber in subscribers { subscriber.close() }
let stateFile = desktop.fixture.directory.appendingPathComponent("state/state.json").path
// The two waits a SetState cannot avoid, alone: polkit's answer, then the durable write.
let systemBus = try Connection(.address(desktop.fixture.polkitAddress))
let subject = try processSubject(), stateSize = fileBytes(stateFile)
var unavoidable: [Double] = []
for _ in 0..<count {
    let check = try await polkitCheck(AdminAction.configureRestrictions.rawValue, for: subject, on: systemBus)
    unavoidable.append(check + durableReplace(size: stateSize, in: desktop.fixture.directory.path))
}
systemBus.close()
let replyP99 = Measuring.percentile(replies, 0.99), unavoidableP99 = Measuring.percentile(unavoidable, 0.99)
rows.append(Row(figure: "SetState reply, durable (ms)", ours: quantiles(replies),
                reference: "polkit check + write alone \(quantiles(unavoidable))",
                target: "p99 ≤ those + 2 ms", met: replyP99 <= unavoidableP99 + 2))
let fanOutP99 = Measuring.percentile(fanOut, 0.99), busP99 = Measuring.percentile(busAlone, 0.99)
rows.append(Row(figure: "SetState → 100 subscribers (ms)", ours: quantiles(fanOut),
                reference: "C libdbus signal → same 100 \(quantiles(busAlone))",
                target: String(format: "p99 < 5, ≤ 4× (%.1f×)", fanOutP99 / busP99),
                met: fanOutP99 < 5 && fanOutP99 <= 4 * busP99))

progress("Get while hashing and writing")
// Properties.Get while another client sets the passcode (yescrypt) and four
// more keep 100 SetState calls waiting for their writes; reference: idle Get.
var idleGets: [Double] = []
for _ in 0..<count * 5 { idleGets.append(try await Measuring.milliseconds { _ = try await proxy.get(session.state) }) }
let writers = try (0..<4).map { _ in Proxy(try desktop.connect(), destination: .guidedAccess, path: .guidedAccess, timeout: .seconds(30)) }
let slowWork = Task.detached {
    var round = 0
    while !Task.isCancelled {
        round += 1
        try await writers[0].call(session.setPasscode, "\(1000 + round % 9000)")
        let state = round % 2 == 0 ? "deny" : "allow"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {  // 25 per connection: one may have only 32 calls in flight
                group.addTask {
                    try await writers[index % 4].call(restrictions.setState, "com.example.bench.r\(index)", state)
                }
            }
            try await group.waitForAll()
        }
    }
}
try await Task.sleep(for: .milliseconds(50))
var busyGets: [Double] = []
for _ in 0..<count {
    busyGets.append(try await Measuring.milliseconds { _ = try await proxy.get(session.state) })
    try await Task.sleep(for: .milliseconds(1))
}
slowWork.cancel()
if case .failure(let error) = await slowWork.result, !(error is CancellationError) {
    throw BenchmarkFailure(description: "the slow work failed: \(error)")
}
for writer in writers { writer.connection.close() }
rows.append(Row(figure: "Get while hashing + 100 fsyncs (ms)", ours: quantiles(busyGets),
                reference: "Get, daemon idle \(quantiles(idleGets))",
                target: "p99 < 5", met: Measuring.percentile(busyGets, 0.99) < 5))

progress("the desktop's settings through dconf")
// MARK: The desktop's settings (dconf)

// gsettings set → PropertiesChanged at a subscribed client, against the gsettings process alone.
let changes = try await client.signals(MatchRule(path: .guidedAccess, interface: .properties, member: "PropertiesChanged"))
var relay: [Double] = [], gsettingsAlone: [Double] = []
func gsettings(_ key: String, _ value: String) async throws {
    _ = try await ProcessRunner.run(["gsettings", "set", "org.gnome.desktop.a11y.applications", key, value],
                                    environment: desktop.clientEnvironment)
}
for index in 0..<count {
    let value = index % 2 == 0 ? "true" : "false"
    relay.append(try await Measuring.milliseconds {
        try await gsettings("screen-magnifier-enabled", value)
        while let message = await next(changes, timeout: .seconds(5)), !"\(message.arguments)".contains("Zoom") {}
    })
    gsettingsAlone.append(try await Measuring.milliseconds { try await gsettings("screen-reader-enabled", value) })
}
rows.append(Row(figure: "gsettings set → PropertiesChanged (ms)", ours: quantiles(relay),
                reference: "gsettings set alone \(quantiles(gsettingsAlone))",
                target: "p99 < 50", met: Measuring.percentile(relay, 0.99) < 50))

// SetFeature of a GSettings feature (written and synced to dconf), against one the service keeps.
let features = Contract.Features.self
var gsettingsFeature: [Double] = [], serviceFeature: [Double] = []
for index in 0..<count {
    gsettingsFeature.append(try await Measuring.milliseconds { try await proxy.call(features.setFeature, "Zoom", index % 2 == 0) })
    serviceFeature.append(try await Measuring.milliseconds { try await proxy.call(features.setFeature, "BoldText", index % 2 == 0) })
}
rows.append(Row(figure: "SetFeature Zoom, GSettings (ms)", ours: quantiles(gsettingsFeature),
                reference: "SetFeature BoldText, kept \(quantiles(serviceFeature))",
                target: "p99 < 10", met: Measuring.percentile(gsettingsFeature, 0.99) < 10))

// Start with all 8 system restrictions denied (every key written and durable), against Start with none.
let allDenied: [String: Variant] = [session.StartOptions.systemRestrictions.key: Variant(Dictionary(uniqueKeysWithValues: [
    "sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch", "notifications", "app-switching", "power-menu",
].map { ($0, "deny") }))]
var startDenied: [Double] = [], startPlain: [Double] = []
for _ in 0..<max(20, count / 4) {
    startDenied.append(try await Measuring.milliseconds { try await proxy.call(session.start, "/usr/bin/kiosk", allDenied) })
    try await proxy.call(session.end, [:])
    startPlain.append(try await Measuring.milliseconds { try await proxy.call(session.start, "/usr/bin/kiosk", [:]) })
    try await proxy.call(session.end, [:])
}
rows.append(Row(figure: "Start, 8 restrictions denied (ms)", ours: quantiles(startDenied),
                reference: "Start, none denied \(quantiles(startPlain))",
                target: "p99 < 50", met: Measuring.percentile(startDenied, 0.99) < 50))

progress("End with the right passcode")
// End with the right passcode at the shipped hashing cost: what a person
// waits for after typing it. The reference is End that polkit authorizes,
// the same call and write without the hash. yescrypt is memory-hard (16 MiB
// at the shipped cost): the RSS after those Ends says whether it stays.
try await proxy.call(session.setPasscode, "2468")
let rightPasscode: [String: Variant] = [session.EndOptions.passcode.key: Variant("2468")]
let rssBeforeEnds = desktop.daemonRSS()
var endPasscode: [Double] = [], endPolkit: [Double] = []
for _ in 0..<max(20, count / 4) {
    try await proxy.call(session.start, "/usr/bin/kiosk", [:])
    endPasscode.append(try await Measuring.milliseconds { try await proxy.call(session.end, rightPasscode) })
    try await proxy.call(session.start, "/usr/bin/kiosk", [:])
    endPolkit.append(try await Measuring.milliseconds { try await proxy.call(session.end, [:]) })
}
try await Task.sleep(for: .seconds(2))  // as after the registrations below: freed heap goes back after a second
let rssAfterEnds = desktop.daemonRSS()
// The difference of the medians is the hash's share, which load on the host changes least.
let endP50 = Measuring.percentile(endPasscode, 0.5), polkitEndP50 = Measuring.percentile(endPolkit, 0.5)
rows.append(Row(figure: "End, right passcode (ms)", ours: quantiles(endPasscode),
                reference: "End, polkit authorizes \(quantiles(endPolkit))",
                target: String(format: "- (+%.1f ms, %.1f×)", endP50 - polkitEndP50, endP50 / polkitEndP50), met: nil))
rows.append(Row(figure: "RSS after those Ends (MB)", ours: String(format: "%.1f", rssAfterEnds),
                reference: String(format: "before them %.1f", rssBeforeEnds),
                target: String(format: "- (%+.1f MB)", rssAfterEnds - rssBeforeEnds), met: nil))

progress("10,000 registrations from 100 connections")
// MARK: Footprint after load

// 100 connections register 100 each, then leave. Of their entries the
// daemon keeps what RememberedTitles allows (4,096, unregistered) by design;
// the rest goes back to the system (malloc_trim, a second after apps leave)
// as far as the heap allows: the entries kept are spread over its pages.
// A measurement the issue asks for, with no target of its own.
let liveRSS = try await registerAndLeave(100, perConnection: 100, on: desktop)
try await Task.sleep(for: .seconds(2))  // the daemon returns freed heap 1 s after apps leave
let leftRSS = desktop.daemonRSS()
rows.append(Row(figure: "RSS, 10,000 live registrations (MB)", ours: String(format: "%.1f", liveRSS),
                reference: "from 100 connections", target: "-", met: nil))
rows.append(Row(figure: "RSS once those 100 left (MB)", ours: String(format: "%.1f", leftRSS),
                reference: String(format: "4,096 kept; %.0f%% of the rise given back",
                                  (liveRSS - leftRSS) / (liveRSS - idleRSS) * 100),
                target: "-", met: nil))

progress("an exam app's assessment")
// MARK: Assessment

// BeginAssessment from an app managed.json lists (this process, by its
// executable) until its reply, which comes once the lock is on and on
// disk; the reference is a Start by a call (above). EndAssessment between.
let examApp = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
try desktop.fixture.writeManagedConfig(#"{"Limits": {"PerApp": 10000}, "AssessmentApplications": ["\#(examApp)"]}"#)
let listed = ContinuousClock.now
while true {  // managed.json is followed within moments
    do {
        try await proxy.call(session.beginAssessment, [:])
        break
    } catch let error as DBusError where error.name.rawValue == ServiceErrorName.permissionDenied.rawValue && ContinuousClock.now - listed < .seconds(5) {
        try await Task.sleep(for: .milliseconds(10))
    }
}
try await proxy.call(session.endAssessment)
var begins: [Double] = []
for _ in 0..<max(20, count / 4) {
    begins.append(try await Measuring.milliseconds { try await proxy.call(session.beginAssessment, [:]) })
    guard try await proxy.get(session.mode) == "assessment" else { throw BenchmarkFailure(description: "no assessment after BeginAssessment") }
    try await proxy.call(session.endAssessment)
}
rows.append(Row(figure: "BeginAssessment → locked (ms)", ours: quantiles(begins),
                reference: "Start by a call \(quantiles(startPlain))",
                target: "p99 < 50", met: Measuring.percentile(begins, 0.99) < 50))

progress("the administrator's Single App Mode (managed.json)")
// MARK: Managed Single App Mode

// A "reboot" into Single App Mode: exec → name owned, which the daemon
// takes only once it is locked (the reference: the same start without the
// policy, above). Then each edit of managed.json until App says the new
// app, and the key removed until the session has ended, against the same
// change made by a call (Start; End that polkit authorizes, above).
let perApp = #""Limits": {"PerApp": 10000}"#
func singleAppPolicy(_ app: String) -> String { #"{\#(perApp), "SingleAppMode": {"App": "\#(app)"}}"# }
try desktop.fixture.writeManagedConfig(singleAppPolicy("org.example.Kiosk"))
var lockedStarts: [Double] = []
for _ in 0..<5 {
    desktop.fixture.stopDaemon()
    try await desktop.fixture.waitUntilNameIsFree()
    lockedStarts.append(try await millisecondsToOwner(.guidedAccess, on: desktop) { try await desktop.fixture.startDaemon() })
    guard try await proxy.get(session.enabled) else { throw BenchmarkFailure(description: "not locked after the start") }
}
let lockedStartP50 = Measuring.percentile(lockedStarts, 0.5)
rows.append(Row(figure: "exec → owned, locked by managed.json (ms)", ours: String(format: "%.1f", lockedStartP50),
                reference: String(format: "no policy %.1f", startP50),
                target: String(format: "< 1 s (+%.1f ms)", lockedStartP50 - startP50), met: lockedStartP50 < 1000))
/// Milliseconds from writing `policy` until `holds` says the session follows
/// it, asked every millisecond (5 s at most).
func millisecondsUntil(_ policy: String, _ holds: () async throws -> Bool) async throws -> Double {
    let written = ContinuousClock.now
    try desktop.fixture.writeManagedConfig(policy)
    while try await !holds() {
        guard ContinuousClock.now - written < .seconds(5) else {
            throw BenchmarkFailure(description: "managed.json was not followed within 5 s: \(policy)")
        }
        try await Task.sleep(for: .milliseconds(1))
    }
    return (ContinuousClock.now - written).milliseconds
}
var moves: [Double] = [], endings: [Double] = []
for edit in 0..<20 {
    let app = edit % 2 == 0 ? "org.example.Other" : "org.example.Kiosk"
    moves.append(try await millisecondsUntil(singleAppPolicy(app)) { try await proxy.get(session.app) == app })
}
for _ in 0..<20 {
    _ = try await millisecondsUntil(singleAppPolicy("org.example.Kiosk")) { try await proxy.get(session.enabled) }
    endings.append(try await millisecondsUntil("{\(perApp)}") { try await !proxy.get(session.enabled) })
}
rows.append(Row(figure: "managed.json edit → lock moved (ms)", ours: quantiles(moves),
                reference: "Start by a call \(quantiles(startPlain))",
                target: "p99 < 1 s", met: Measuring.percentile(moves, 0.99) < 1000))
rows.append(Row(figure: "SingleAppMode removed → ended (ms)", ours: quantiles(endings),
                reference: "End by a call \(quantiles(endPolkit))",
                target: "p99 < 1 s", met: Measuring.percentile(endings, 0.99) < 1000))

// MARK: The table

print("guided-accessd (release) on a private desktop: dconf, real polkitd; \(count) samples per latency figure")
printTable(rows)
print(String(format: "CPU time stolen by the hypervisor during the run: %.0f%%", Measuring.stolenShare(since: jiffiesBefore) * 100))
client.close()
desktop.fixture.stop()
exit(rows.contains { $0.met == false } ? 1 : 0)
