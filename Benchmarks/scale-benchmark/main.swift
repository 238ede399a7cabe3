// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessCore
import GuidedAccessTesting

// How the release daemon's cost grows with what it holds: N = 100, 1,000
// and 10,000 known restrictions (every one denied, so none may be
// forgotten) spread over 25 apps, read from the state file at start; and
// how well it serves one client while another floods it. Private bus, no
// polkit needed (nothing measured here asks it).
//
//   swift build -c release && .build/release/scale-benchmark [--flood N]

let name = BusName.guidedAccess
let root = ObjectPath.guidedAccess
let restrictions = ServiceInterface.restrictions.name
let session = ServiceInterface.session.rawValue
let arguments = CommandLine.arguments
let floodCount = arguments.firstIndex(of: "--flood").flatMap { Int(arguments[$0 + 1]) } ?? 100_000
let daemon = Project.benchmarkedDaemon(arguments)
let workDirectory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ga-scale-bench-\(getpid())")
let bus = try PrivateBus.startSession()
let client = try Connection(.address(bus.address))

/// A state file with `count` denied restrictions of 25 apps.
func writeState(_ count: Int, to directory: String) throws {
    var state = PersistentState()
    state.restrictionRecords = (0..<count).map { index in
        RestrictionRecord(identifier: "com.example.app\(index % 25).r\(index)", text: "Restriction \(index)",
                          detail: "What restriction \(index) keeps the person from doing", app: "/usr/bin/app-\(index % 25)",
                          owner: nil, sequence: UInt64(index + 1))
    }
    state.restrictionStates = Dictionary(uniqueKeysWithValues: state.restrictionRecords.map { ($0.identifier, RestrictionState.deny) })
    try StateStore(directory: directory).save(state)
}

/// Starts the daemon on `stateDirectory`; returns it and the milliseconds until it owned the name.
func startDaemon(_ stateDirectory: String) async throws -> (Process, Double) {
    // A process of its own, not a DaemonFixture: the start figure is timed to the millisecond.
    var commandLine = DaemonCommandLine(executable: daemon)
    commandLine.address = bus.address
    commandLine.stateDirectory = stateDirectory
    commandLine.managedConfig = "/nonexistent"
    commandLine.polkitAddress = "unix:path=/nonexistent"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: daemon)
    process.arguments = Array(commandLine.argv.dropFirst())
    process.environment = ProcessInfo.processInfo.environment.merging(DaemonCommandLine.environment) { $1 }
    process.standardError = FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    while try await client.owner(of: name) == nil { try await Task.sleep(for: .milliseconds(1)) }
    return (process, (ContinuousClock.now - start).milliseconds)
}

func stop(_ process: Process) async throws {
    process.terminate()
    process.waitUntilExit()
    while try await client.owner(of: name) != nil { try await Task.sleep(for: .milliseconds(5)) }
}

func get(_ path: ObjectPath, _ interface: String, _ property: String, on connection: Connection = client) async throws {
    _ = try await connection.call(name, path, .properties, "Get", [.string(interface), .string(property)])
}

func median(_ runs: Int, _ body: () async throws -> Void) async throws -> Double {
    var samples: [Double] = []
    for _ in 0..<runs { samples.append(try await Measuring.milliseconds(body)) }
    return Measuring.percentile(samples, 0.5)
}

struct ScaleRow {
    var count = 0
    var getP50 = 0.0, getP99 = 0.0, managedObjects = 0.0, decode = 0.0, list = 0.0, register = 0.0, cleanup = 0.0, start = 0.0, rss = 0.0
}

/// Every figure for one N.
func measureScale(_ count: Int) async throws -> ScaleRow {
    let stateDirectory = workDirectory.appendingPathComponent("n\(count)").path
    try writeState(count, to: stateDirectory)
    let (process, startMilliseconds) = try await startDaemon(stateDirectory)
    var row = ScaleRow(count: count, start: startMilliseconds, rss: Measuring.residentMegabytes(process.processIdentifier))
    let one = ObjectPath.restriction("com.example.app7.r\(count / 2 + 7)")!
    var gets: [Double] = []
    for _ in 0..<2_000 { gets.append(try await Measuring.milliseconds { try await get(one, ServiceInterface.restriction.rawValue, "State") }) }
    row.getP50 = Measuring.percentile(gets, 0.5)
    row.getP99 = Measuring.percentile(gets, 0.99)
    // Until the reply is in: what the daemon costs, as any client sees it.
    // DBusKit's decoding of that reply into values is shown apart.
    var reply: Message?
    row.managedObjects = try await median(3) {
        reply = try await client.call(try Message.methodCall(destination: name, path: root, interface: .objectManager, member: "GetManagedObjects"))
    }
    row.decode = await Measuring.milliseconds { _ = reply?.arguments }
    row.list = try await median(3) { _ = try await client.call(name, root, restrictions, "List", []) }

    // 256 more from a new connection, then that connection leaves.
    let watcher = try await client.signals(MatchRule(interface: .properties, member: "PropertiesChanged"))
    let app = try Connection(.address(bus.address))
    let batch = DBusValue.array(element: "(sss)", (0..<256).map {
        .structure([.string("org.example.newcomer.r\($0)"), .string("New \($0)"), .string("")])
    })
    row.register = try await Measuring.milliseconds { _ = try await app.call(name, root, restrictions, "Register", [batch]) }
    row.cleanup = await Measuring.milliseconds {
        app.close()
        _ = await collect(256, from: watcher, timeout: .seconds(30)) { $0.path?.rawValue.contains("newcomer") == true }
    }
    try await stop(process)
    return row
}

struct FloodRow {
    var noReply = false
    var getP99 = 0.0, getMax = 0.0, idle = 0.0, peak = 0.0, after = 0.0, seconds = 0.0
}

/// Another client's Get while one sender pipelines `floodCount` GetState calls.
func measureFlood(noReply: Bool) async throws -> FloodRow {
    let stateDirectory = workDirectory.appendingPathComponent("flood-\(noReply)").path
    try writeState(100, to: stateDirectory)
    let (process, _) = try await startDaemon(stateDirectory)
    let pid = process.processIdentifier
    try await get(root, session, "State")
    try await Task.sleep(for: .seconds(1))
    var row = FloodRow(noReply: noReply, idle: Measuring.residentMegabytes(pid))
    row.peak = row.idle
    let flooder = try Connection(.address(bus.address))
    let started = ContinuousClock.now
    let flood = Task.detached {
        for index in 0..<floodCount {
            let message = try Message.methodCall(destination: name, path: root, interface: restrictions, member: "GetState",
                                                 arguments: [.string("com.example.flood.r\(index % 1000)")], noReplyExpected: noReply)
            flooder.send(message)
        }
        // In-order delivery: once this is answered, the daemon has read the whole flood.
        _ = try await flooder.call(name, root, .properties, "Get", [.string(session), .string("State")],
                                   timeout: .seconds(120))
    }
    var gets: [Double] = []
    while !flood.isCancelled {
        gets.append(try await Measuring.milliseconds { try await get(root, session, "State") })
        row.peak = max(row.peak, Measuring.residentMegabytes(pid))
        if gets.count % 20 == 0, await isFinished(flood) { break }
        try await Task.sleep(for: .milliseconds(5))
    }
    try await flood.value
    row.seconds = (ContinuousClock.now - started).milliseconds / 1000
    row.getP99 = Measuring.percentile(gets, 0.99)
    row.getMax = gets.max() ?? 0
    flooder.close()
    try await Task.sleep(for: .seconds(10))
    row.after = Measuring.residentMegabytes(pid)
    try await stop(process)
    return row
}

func isFinished(_ task: Task<Void, any Error>) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask { _ = try? await task.value; return true }
        group.addTask { try? await Task.sleep(for: .microseconds(1)); return false }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

var failed = false
@MainActor func verdict(_ ok: Bool) -> String {
    if !ok { failed = true }
    return ok ? "ok" : "MISSED"
}

var rows: [ScaleRow] = []
for count in [100, 1_000, 10_000] { rows.append(try await measureScale(count)) }
print("Scale: N known restrictions over 25 apps, read from state.json at start; milliseconds, RSS in MB")
print("      N  Get p50  Get p99  GetManagedObjects  (DBusKit decode)     List  Register 256  cleanup  start  RSS")
for row in rows {
    print(String(format: "%7d  %7.3f  %7.3f  %17.1f  %16.1f  %7.1f  %12.1f  %7.1f  %5.0f  %4.1f", row.count, row.getP50, row.getP99,
                 row.managedObjects, row.decode, row.list, row.register, row.cleanup, row.start, row.rss))
}
let small = rows[0], large = rows[2]
print(String(format: "targets at 10,000: Get p50 %.2f× the 100 figure (<= 1.5) %@; GetManagedObjects %.1f < 100 %@; List %.1f < 100 %@; Register %.1f < 50 %@; cleanup %.1f < 20 %@",
             large.getP50 / small.getP50, verdict(large.getP50 <= 1.5 * small.getP50),
             large.managedObjects, verdict(large.managedObjects < 100), large.list, verdict(large.list < 100),
             large.register, verdict(large.register < 50), large.cleanup, verdict(large.cleanup < 20)))

print("")
print("Flood: one sender pipelines \(floodCount) GetState calls; another client's Properties.Get meanwhile (ms); daemon RSS (MB)")
print("flag              Get p99  Get max  idle RSS  peak RSS  RSS 10 s after  flood took  targets")
for noReply in [true, false] {
    let row = try await measureFlood(noReply: noReply)
    let ok = row.getP99 < 50 && row.peak < 2 * row.idle && row.after <= 1.2 * row.idle
    print(String(format: "%@  %7.2f  %7.1f  %8.1f  %8.1f  %14.1f  %8.1f s  p99 < 50, peak < 2×, after <= 1.2× %@",
                 (noReply ? "NO_REPLY_EXPECTED" : "replies wanted   "), row.getP99, row.getMax, row.idle, row.peak, row.after,
                 row.seconds, verdict(ok)))
}
client.close()
bus.stop()
try? FileManager.default.removeItem(at: workDirectory)
exit(failed ? 1 : 0)
