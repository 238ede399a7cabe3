// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// Vanishing clients: `vanishingClients` connections each register four
/// restrictions and close, a third of them with calls still in flight.
/// Afterwards none of their registrations may be live, and the daemon's
/// descriptors, threads and RSS must be back at the baseline (± 10 %).
///
/// Clients reuse 64 slots of identifiers, so the records the daemon keeps
/// of apps that left (by design, `RememberedTitles`) stop growing after
/// the warm-up round; the baseline is taken after it.
func vanishingClientsCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("vanishing", daemon: context.daemon)
    defer { Task { await stage.stop() } }
    let observer = try stage.proxy()
    var inFlightAtClose = 0
    func round(_ clients: Range<Int>) async throws {
        for batch in stride(from: clients.lowerBound, to: clients.upperBound, by: 64) {
            inFlightAtClose += try await withThrowingTaskGroup(of: Int.self) { group in
                for client in batch..<min(clients.upperBound, batch + 64) {
                    group.addTask { try await vanish(client, on: stage) }
                }
                return try await group.reduce(0, +)
            }
            try await waitUntilNoneRegistered(observer)
        }
    }
    try await round(0..<64)
    let baseline = await settledFootprint(stage)
    try await round(64..<(64 + context.scale.vanishingClients))
    try await waitUntilNoneRegistered(observer)
    let after = await settledFootprint(stage)
    let live = try await observer.call(Contract.Restrictions.list).filter(\.registered).count
    return CaseResult(
        counts: "\(context.scale.vanishingClients) clients × 4 registrations, \(inFlightAtClose) left with calls in flight",
        figures: "live registrations after \(live); baseline \(baseline.description) → after \(after.description)",
        passed: live == 0 && after.isWithin(0.1, of: baseline))
}

/// One client: registers four restrictions, then leaves; every third one
/// leaves with three calls sent and unanswered. Returns 1 when it did.
private func vanish(_ client: Int, on stage: Stage) async throws -> Int {
    let proxy = try stage.proxy()
    let slot = client % 64
    _ = try await proxy.call(Contract.Restrictions.register, (0..<4).map {
        RestrictionEntry(identifier: "org.stress.vanish.c\(slot).r\($0)", text: "Vanishing \(slot).\($0)", detail: "")
    })
    let leavesMidCall = client % 3 == 0
    if leavesMidCall {
        for member: MemberName in ["List", "GetState", "IsAllowed"] {
            let arguments: [DBusValue] = member == "List" ? [] : [.string("org.stress.vanish.c\(slot).r0")]
            proxy.connection.send(try Message.methodCall(destination: .guidedAccess, path: .guidedAccess,
                                                         interface: "org.guidedaccess.Restrictions1", member: member,
                                                         arguments: arguments))
        }
    }
    proxy.connection.close()
    return leavesMidCall ? 1 : 0
}

/// Returns once the daemon lists no live registration (it has seen every
/// client leave); throws after 30 s.
func waitUntilNoneRegistered(_ observer: Proxy) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try await observer.call(Contract.Restrictions.list).contains(where: \.registered) {
        guard ContinuousClock.now < deadline else {
            throw DaemonFixture.Failure("registrations of closed connections were still live after 30 s")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
