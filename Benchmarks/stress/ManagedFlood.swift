// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// Managed flood: a configuration tool gone wrong rewrites managed.json as
/// fast as it can while the administrator's Single App Mode holds the
/// session: renames into place, writes in place (read half-written), files
/// that do not parse. The session must never look unlocked, reads must stay
/// fast, and once the writes stop the lock must follow the last good file.
func managedFloodCase(_ context: StressContext) async throws -> CaseResult {
    let policy = { (app: String) in #"{"SingleAppMode": {"App": "\#(app)"}}"# }
    var options = Stage.Options()
    options.managedConfig = policy("org.stress.Kiosk0")
    let stage = try await Stage.start("managed-flood", daemon: context.daemon, options)
    defer { Task { await stage.stop() } }
    let reader = try stage.proxy()
    guard try await reader.get(Contract.Session.enabled) else {
        return CaseResult(counts: "-", figures: "not locked when the daemon started", passed: false)
    }
    let writes = context.scale.name == "long" ? 5_000 : 500
    let file = stage.fixture.managedConfig
    let finished = Flag()
    let flood = Task { () -> (lastGood: String, kinds: [String: Int]) in
        defer { finished.set() }
        var lastGood = "org.stress.Kiosk0"
        var kinds: [String: Int] = [:]
        for index in 1...writes {
            let app = "org.stress.Kiosk\(index % 7)"
            switch index % 4 {
            case 0:
                try stage.fixture.writeManagedConfig(policy(app))  // renamed into place
                lastGood = app
                kinds["renamed", default: 0] += 1
            case 1:
                try Data(policy(app).utf8).write(to: file)  // written in place: may be read half-done
                lastGood = app
                kinds["in place", default: 0] += 1
            case 2:
                try stage.fixture.writeManagedConfig(#"{"SingleAppMode": {"App": "#)  // does not parse
                kinds["malformed", default: 0] += 1
            default:
                try stage.fixture.writeManagedConfig(#"{"SingleAppMode": {"Options": {}}}"#)  // no App
                kinds["without App", default: 0] += 1
            }
            if index % 4 == 3 {
                // End on a good file now and then, so a slow reader still sees one.
                try stage.fixture.writeManagedConfig(policy(lastGood))
            }
        }
        return (lastGood, kinds)
    }
    var reads: [Double] = [], unlocked = 0
    while true {
        var enabled = true
        reads.append(try await Measuring.milliseconds { enabled = try await reader.get(Contract.Session.enabled) })
        if !enabled { unlocked += 1 }
        if reads.count >= 20, finished.isSet { break }
        try await Task.sleep(for: .milliseconds(2))
    }
    let (lastGood, kinds) = try await flood.value
    let settled = ContinuousClock.now
    var app = ""
    while ContinuousClock.now - settled < .seconds(1) {
        app = try await reader.get(Contract.Session.app)
        if app == lastGood { break }
        try await Task.sleep(for: .milliseconds(5))
    }
    let followed = app == lastGood
    let took = (ContinuousClock.now - settled).milliseconds
    let alive = await stage.daemonServes()
    return CaseResult(
        counts: "\(writes) writes (" + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            + "); \(reads.count) reads of Enabled, \(unlocked) unlocked",
        figures: "Get " + latencies(reads) + "; after the last write App is the last good file's "
            + (followed ? String(format: "after %.0f ms", took) : "NOT within 1 s (\(app), wanted \(lastGood))"),
        passed: alive && unlocked == 0 && followed && Measuring.percentile(reads, 0.99) < 50)
}
