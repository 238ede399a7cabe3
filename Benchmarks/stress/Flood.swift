// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import Synchronization

/// How far above idle the daemon's RSS may go while one sender floods it.
/// What bounds it: the flood's reads are answered on the daemon's loop as
/// they are read; a sender may have 32 other calls running (past that each
/// is answered `RateLimited` at once, nothing queued); and libdbus stops
/// reading from the bus while the messages it has read wait to be handled,
/// so the rest waits in the bus.
private let floodHeadroomMB = 64.0

/// Flood: one client sends `floodCalls` calls without waiting for replies;
/// another client's `Properties.Get` must stay p99 < 50 ms, and the
/// daemon's RSS must stay bounded.
func floodCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("flood", daemon: context.daemon)
    defer { Task { await stage.stop() } }
    let reader = try stage.proxy(), flooder = try stage.proxy(timeout: .seconds(120))
    _ = try await flooder.call(Contract.Restrictions.list)
    let idle = await settledFootprint(stage)
    let started = ContinuousClock.now
    let finished = Flag()
    let flood = Task {
        defer { finished.set() }
        for index in 0..<context.scale.floodCalls {
            let member: MemberName = index % 2 == 0 ? "GetState" : "IsAllowed"
            flooder.connection.send(try Message.methodCall(
                destination: .guidedAccess, path: .guidedAccess, interface: "org.guidedaccess.Restrictions1", member: member,
                arguments: [.string("org.stress.flood.r\(index % 100)")]))
        }
        try await waitUntilDelivered(flooder)
    }
    var reads: [Double] = [], peak = idle.rss
    while true {
        reads.append(try await Measuring.milliseconds { _ = try await reader.get(Contract.Session.state) })
        peak = max(peak, stage.footprint().rss)
        if reads.count >= 20, finished.isSet { break }
        try await Task.sleep(for: .milliseconds(10))
    }
    let lasted = (ContinuousClock.now - started).milliseconds / 1000
    try await flood.value
    let after = await settledFootprint(stage)
    let alive = await stage.daemonServes()
    return CaseResult(
        counts: "\(context.scale.floodCalls) calls from one sender, unawaited, over \(String(format: "%.1f", lasted)) s; \(reads.count) reads",
        figures: "Get " + latencies(reads) + String(format: "; RSS idle %.1f, peak %.1f, after %.1f MB (cap +%.0f MB)",
                                                   idle.rss, peak, after.rss, floodHeadroomMB),
        passed: alive && Measuring.percentile(reads, 0.99) < 50 && peak <= idle.rss + floodHeadroomMB)
}

/// Returns once the daemon has taken every call `flooder` sent before. The
/// bus delivers one sender's messages in order, so a reply to one more call
/// comes after the rest; the bus itself may refuse that call while the
/// sender has too many replies pending (`max_replies_per_connection`: 50,000
/// on a desktop session bus, 128 built in), so it is sent again until the
/// daemon answers it.
private func waitUntilDelivered(_ flooder: Proxy) async throws {
    while true {
        do {
            _ = try await flooder.call(Contract.Restrictions.list)
            return
        } catch let error as DBusError where error.name == DBusError.limitsExceeded("").name {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A one-way switch that tasks can read without waiting.
final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
