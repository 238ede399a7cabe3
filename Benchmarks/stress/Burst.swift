// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessTesting

/// Burst: a daemon takes a burst of fuzzed calls, one in 40 of them a
/// message of 64 KiB to 4 MiB, from four connections that stay connected;
/// after 5 s of quiet its RSS must be within 1.2× of what it was before
/// (a session daemon runs for weeks). "Before" is the daemon after 200
/// ordinary calls, as any daemon in use is; its RSS cold (fresh from its
/// start: code not yet paged in) is printed beside it. Calls larger than
/// any member takes are refused unread (`LimitsExceeded`), and memory freed
/// after the others goes back to the system.
func burstCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("burst", daemon: context.daemon, Stage.Options(passcodeCost: 1))
    defer { Task { await stage.stop() } }
    _ = try await stage.proxy().get(Contract.Session.enabled)
    try await Task.sleep(for: .milliseconds(500))
    let cold = stage.footprint()
    let members = try ContractMember.load(from: Project.root.appendingPathComponent("dbus"))
    let paths: [ObjectPath] = [.guidedAccess, "/", "/org/example/Unknown"]
    var fuzzer = CallFuzzer(random: SeededRandom(seed: context.seed), members: members, paths: paths)
    let connections = try (0..<4).map { _ in try stage.connect() }
    func fuzz(_ count: Int) async throws -> CallOutcome { try await fuzzer.sendCalls(count, over: connections) }
    _ = try await fuzz(200)
    try await Task.sleep(for: .seconds(2))
    let before = stage.footprint()
    fuzzer.hugeAllowed = true
    let calls = context.scale.burstCalls
    let (outcome, peak) = try await sampledPeak(of: stage) { try await fuzz(calls) }
    try await Task.sleep(for: .seconds(5))
    let after = stage.footprint()
    let alive = await stage.daemonServes()
    let refused = outcome.errors[ErrorName.limitsExceeded.rawValue] ?? 0
    let ratio = after.rss / before.rss
    return CaseResult(
        counts: "\(calls) calls (seed \(context.seed)), \(fuzzer.hugeCalls) of them huge (64 KiB to 4 MiB), "
            + "from 4 connections that stay",
        figures: String(format: "RSS cold %.1f, before %.1f → peak %.1f → %.1f MB after 5 s of quiet: %.2f× before, %.2f× cold "
                        + "(anonymous %.1f, %.1f → %.1f → %.1f); ", cold.rss, before.rss, peak.rss, after.rss, ratio,
                        after.rss / cold.rss, cold.anonymous, before.anonymous, peak.anonymous, after.anonymous)
            + "\(refused) refused unread as too large; \(outcome.replies) replies",
        passed: alive && ratio <= 1.2)
}
