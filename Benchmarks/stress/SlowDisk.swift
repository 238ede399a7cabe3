// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import Locking

/// The fsync delay of the slow-disk case (test-only `GUIDED_ACCESS_TEST_FSYNC_DELAY_MS`).
private let fsyncDelayMilliseconds = 200

/// Slow disk: every write of state.json takes 200 ms more after its fsync
/// while 8 writers change restriction states. Reads (`Get Enabled`, and
/// `GetState`, a method served by the same pool as the writers) must stay
/// fast; writers queue; after kill -9 every acknowledged state is on disk.
func slowDiskCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start(
        "slow-disk", daemon: context.daemon,
        Stage.Options(environment: ["GUIDED_ACCESS_TEST_FSYNC_DELAY_MS": String(fsyncDelayMilliseconds)]))
    defer { Task { await stage.stop() } }
    let writesEach = context.scale.name == "long" ? 10 : 3
    let writers = try (0..<8).map { _ in try stage.proxy(timeout: .seconds(120)) }
    let reader = try stage.proxy(timeout: .seconds(5))
    let started = ContinuousClock.now
    let done = Locked(false)
    let writes = Task {
        defer { done.withLock { $0 = true } }
        return await withTaskGroup(of: (String, String?).self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    var acknowledged: String?
                    for round in 0..<writesEach {
                        let state = round % 2 == 0 ? "deny" : "allow"
                        if await errorName({ try await writer.call(Contract.Restrictions.setState, "org.stress.slow.r\(index)", state) }) == nil {
                            acknowledged = state
                        }
                    }
                    return ("org.stress.slow.r\(index)", acknowledged)
                }
            }
            return await group.reduce(into: [String: String?]()) { $0[$1.0] = $1.1 }
        }
    }
    var reads: [Double] = [], failures = 0
    while !done.withLock({ $0 }), ContinuousClock.now - started < .seconds(120) {
        for read in [{ _ = try await reader.get(Contract.Session.enabled) },
                     { _ = try await reader.call(Contract.Restrictions.getState, "org.stress.slow.r0") }] as [() async throws -> Void] {
            do { reads.append(try await Measuring.milliseconds(read)) } catch { failures += 1 }
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    let acknowledged = await writes.value
    let wrote = ContinuousClock.now - started
    try await stage.fixture.killDaemon()
    try await stage.fixture.startDaemon()
    let after = try stage.proxy()
    var lost = 0
    for (identifier, state) in acknowledged {
        if try await after.call(Contract.Restrictions.getState, identifier) != (state ?? "allow") { lost += 1 }
    }
    let count = acknowledged.values.compactMap { $0 }.count
    return CaseResult(
        counts: "8 writers × \(writesEach) SetState with fsync +\(fsyncDelayMilliseconds) ms; \(reads.count) reads meanwhile",
        figures: "reads " + latencies(reads) + ", \(failures) failed; writes took "
            + String(format: "%.1f s", wrote.milliseconds / 1000)
            + "; \(count)/8 writers acknowledged; after kill -9 \(lost) acknowledged states missing",
        passed: Measuring.percentile(reads, 0.99) < 50 && failures == 0 && count == 8 && lost == 0)
}

