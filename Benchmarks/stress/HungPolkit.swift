// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// The polkit timeout the hung-polkit case runs the daemon with (the
/// shipped default is 25 s, `--polkit-timeout`).
private let polkitTimeout = 3.0

/// Hung polkit: polkitd is stopped (SIGSTOP) and `hungStarts` admin `Start`
/// calls arrive from 8 connections. Another client's `Properties.Get` must
/// stay fast meanwhile; every `Start` must end in a named error within the
/// timeout (plus 2 s of slack); no session may start; after SIGCONT the
/// next `Start` must work.
func hungPolkitCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("hung-polkit", daemon: context.daemon,
                                      Stage.Options(polkitTimeout: polkitTimeout))
    defer { Task { await stage.stop() } }
    let polkit = try stage.fixture.polkit ?? { throw DaemonFixture.Failure("no polkitd") }()
    let reader = try stage.proxy()
    let callers = try (0..<8).map { _ in try stage.proxy(timeout: .seconds(60)) }
    polkit.pause()
    let started = ContinuousClock.now
    let calls = Task {
        await withTaskGroup(of: (String, Double).self) { group in
            for index in 0..<context.scale.hungStarts {
                group.addTask {
                    do {
                        try await callers[index % 8].call(Contract.Session.start, "/usr/bin/stress-kiosk", [:])
                        return ("succeeded", (ContinuousClock.now - started).milliseconds)
                    } catch let error as DBusError {
                        return (error.name.rawValue, (ContinuousClock.now - started).milliseconds)
                    } catch {
                        return ("(not a D-Bus error)", (ContinuousClock.now - started).milliseconds)
                    }
                }
            }
            return await group.reduce(into: [(String, Double)]()) { $0.append($1) }
        }
    }
    var reads: [Double] = []
    while ContinuousClock.now - started < .seconds(polkitTimeout + 1) {
        reads.append(try await Measuring.milliseconds { _ = try await reader.get(Contract.Session.state) })
        try await Task.sleep(for: .milliseconds(10))
    }
    let outcomes = await calls.value
    let appliedWhileHung = try await reader.get(Contract.Session.enabled)
    polkit.resume()
    var worksAfter = "works"
    do {
        try await reader.call(Contract.Session.start, "/usr/bin/stress-kiosk", [:])
        try await reader.call(Contract.Session.end, [:])
    } catch {
        worksAfter = "FAILS: \(error)"
    }
    let byName = Dictionary(grouping: outcomes, by: \.0).mapValues(\.count)
    let slowest = outcomes.map(\.1).max() ?? 0
    let allNamed = byName.keys.allSatisfy { $0.hasPrefix("org.guidedaccess.Error.") }
    return CaseResult(
        counts: "\(context.scale.hungStarts) Start calls from 8 connections while polkitd is stopped; \(reads.count) reads",
        figures: "Get " + latencies(reads) + "; outcomes "
            + byName.sorted { $0.key < $1.key }.map { "\($0.key.split(separator: ".").last!) \($0.value)" }.joined(separator: ", ")
            + String(format: "; last ended after %.2f s (timeout %.0f s)", slowest / 1000, polkitTimeout)
            + "; session started while hung: \(appliedWhileHung); Start after SIGCONT: \(worksAfter)",
        passed: Measuring.percentile(reads, 0.99) < 50 && allNamed && slowest < (polkitTimeout + 2) * 1000
            && !appliedWhileHung && worksAfter == "works")
}
