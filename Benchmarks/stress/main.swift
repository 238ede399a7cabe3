// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GuidedAccessTesting

// The stress suite: real faults made to the release daemon, each case on
// private buses of its own with a real polkitd (so: root). It prints one
// table, a row per case with its counts, and exits 1 when a case fails
// (2 when it cannot run).
//
//   scripts/stress                  the short form (CI)
//   scripts/stress --long           the full counts
//   scripts/stress --only fuzz,flood --seed 42   (ids: fuzz crash vanishing polkit flood disk forged limits names
//                                   hung-dconf slow-disk dconf-unreachable dconf-unwritable managed-flood)

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "--hold-registrations" {
    await holdRegistrations(Array(arguments.dropFirst(2)))  // one app of the limits case
}
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
if let reason = PolkitTestAuthority.skipReason {
    print("needs a real polkitd: \(reason)")
    exit(2)
}
let context = StressContext(
    daemon: Project.benchmarkedDaemon(arguments),
    scale: arguments.contains("--long") ? .long : .short,
    seed: option("--seed").flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999))
let selected = option("--only").map { Set($0.split(separator: ",").map(String.init)) }

let cases: [(id: String, name: String, must: String, run: (StressContext) async throws -> CaseResult)] = [
    ("fuzz", "fuzz", "every call answered or a named error; daemon lives; RSS after a settle ≤ 1.2× before, huge messages in the mix", fuzzCase),
    ("burst", "burst", "RSS 5 s after the burst ≤ 1.2× before it (a daemon after 200 ordinary calls); the daemon lives; calls past any member's size refused unread", burstCase),
    ("crash", "crash consistency", "every acknowledged mutation survives kill -9; state loads; no temp files", crashCase),
    ("vanishing", "vanishing clients", "registrations gone; fds, threads, RSS back to baseline ± 10 %", vanishingClientsCase),
    ("polkit", "hung polkit", "Get p99 < 50 ms; every Start ends in a named error within the timeout; nothing applied; works after SIGCONT", hungPolkitCase),
    ("flood", "flood", "another client's Get p99 < 50 ms; peak RSS ≤ idle + 64 MB", floodCase),
    ("disk", "disk faults", "named error; published value and signals unchanged; works after recovery; nothing lost", diskFaultsCase),
    ("state-recovery", "state directory recovers", "under the fault named errors and nothing changed; the next SetFeature Zoom, SetState and Start work (reply, signal, dconf, state.json) and End puts the banners back, same pid", stateRecoveryCase),
    ("forged", "forged signals", "client library and `guided-access monitor` see only the owner's signals", forgedSignalsCase),
    ("limits", "limits", "next Register is QuotaExceeded; List at full p99 < 10 ms, or within 1.25× of the bus alone carrying its reply; built again after a change p99 ≤ 100 ms", limitsCase),
    ("hung-dconf", "hung dconf", "Get Enabled/BoldText/Zoom and GetState p99 < 50 ms, none times out; after SIGCONT the write takes effect, gsettings agrees", hungDconfCase),
    ("slow-disk", "slow disk", "reads p99 < 50 ms while writers queue behind a slow fsync; every acknowledged write on disk after kill -9", slowDiskCase),
    ("dconf-unreachable", "dconf unreachable", "named error; nothing published the store does not hold; no signal; nothing acknowledged lost", dconfUnreachableCase),
    ("dconf-unwritable", "dconf unwritable", "named error; published value, signals and gsettings unchanged; works after recovery; nothing lost", dconfUnwritableCase),
    ("managed-flood", "managed.json flood", "during Single App Mode: never unlocked, Get p99 < 50 ms; App follows the last good file within 1 s after the flood", managedFloodCase),
    ("names", "second instance, lost name", "second exits 1 naming the owner; a daemon whose bus goes away exits non-zero", nameOwnershipCase),
]

var rows: [(name: String, must: String, result: CaseResult)] = []
for stressCase in cases where selected?.contains(stressCase.id) ?? true {
    progress("\(stressCase.name)")
    let started = ContinuousClock.now
    var result: CaseResult
    do {
        result = try await stressCase.run(context)
    } catch {
        result = CaseResult(counts: "-", figures: "could not run: \(error)", passed: false)
    }
    result.seconds = (ContinuousClock.now - started).milliseconds / 1000
    rows.append((stressCase.name, stressCase.must, result))
}

print("guided-accessd (release) stress suite, \(context.scale.name) form, seed \(context.seed)")
for row in rows {
    print("")
    print("\(row.result.passed ? "ok    " : "FAILED") \(row.name) (\(String(format: "%.0f", row.result.seconds)) s)")
    print("       counts:  \(row.result.counts)")
    print("       figures: \(row.result.figures)")
    print("       holds:   \(row.must)")
}
let failed = rows.filter { !$0.result.passed }.map(\.name)
print("")
print(failed.isEmpty ? "all \(rows.count) cases hold" : "FAILED: \(failed.joined(separator: ", "))")
exit(failed.isEmpty ? 0 : 1)
