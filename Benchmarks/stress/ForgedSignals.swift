// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessTesting
import GuidedAccess
import GuidedAccessContract
import Locking

/// Forged signals: a plain client (Python, `forge-signals.py`) emits
/// signals that look like the service's, broadcast and addressed to the
/// listeners. The client library and `guided-access monitor` must ignore
/// every one of them, and still see the service's own (the control).
func forgedSignalsCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("forged", daemon: context.daemon)
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let appConnection = try stage.connect()
    let client = GuidedAccessClient(connection: appConnection)
    await client.refresh()
    let statuses = SignalCounter(client.statusChanges)
    let restrictionChanges = SignalCounter(client.restrictionChanges)

    let cli = URL(fileURLWithPath: context.daemon).deletingLastPathComponent().appendingPathComponent("guided-access").path
    let monitorSeconds = 8
    let monitor = Task {
        try await ProcessRunner.run([cli, "monitor", "--json", "--address", stage.fixture.address],
                                    timeout: .seconds(monitorSeconds))
    }
    try await Task.sleep(for: .seconds(1))  // the monitor subscribes

    let forger = Project.root.appendingPathComponent("Benchmarks/stress/forge-signals.py").path
    let rounds = context.scale.forgedSignals / 8
    let sent = try await ProcessRunner.runSucceeding(["/usr/bin/python3", forger, stage.fixture.address,
                                                      appConnection.uniqueName.rawValue, String(rounds)],
                                                     timeout: .seconds(60))
    let forged = Int(sent.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    try await Task.sleep(for: .milliseconds(500))
    let libraryForged = statuses.count + restrictionChanges.count + (client.isGuidedAccessEnabled ? 1 : 0)
    // The control: the service's own signals get through.
    try await admin.call(Contract.Restrictions.setState, "org.stress.genuine", "deny")
    try await admin.call(Contract.Session.start, "/usr/bin/stress-genuine", [:])
    try await Task.sleep(for: .milliseconds(500))
    let enabledByControl = client.isGuidedAccessEnabled
    try await admin.call(Contract.Session.end, [:])

    let lines: [Substring]
    do {
        _ = try await monitor.value
        lines = []
    } catch let failure as ProcessRunner.Failure {
        lines = failure.stdout.split(separator: "\n")  // it ran until its time was up, as intended
    }
    let monitorForged = lines.filter { $0.contains("forged") }.count
    let monitorGenuine = lines.filter { $0.contains("org.stress.genuine") }.count
    return CaseResult(
        counts: "\(forged) forged signals (\(rounds) rounds of 4 kinds, broadcast and addressed to the client)",
        figures: "library: \(libraryForged) forged seen, session start seen \(enabledByControl); "
            + "monitor: \(monitorForged) forged lines, \(monitorGenuine) lines of the genuine control",
        passed: forged > 0 && libraryForged == 0 && enabledByControl && monitorForged == 0 && monitorGenuine > 0)
}

/// Collects what an async stream yields, in the background.
final class SignalCounter<Element: Sendable>: Sendable {
    private let received = Locked<[Element]>([])
    private let task = Locked<Task<Void, Never>?>(nil)

    init(_ stream: some AsyncSequence<Element, Never> & Sendable) {
        task.withLock { $0 = Task { [weak self] in for await element in stream { self?.received.withLock { $0.append(element) } } } }
    }

    deinit { task.withLock { $0?.cancel() } }

    var values: [Element] { received.withLock { $0 } }
    var count: Int { received.withLock(\.count) }
    func clear() { received.withLock { $0.removeAll() } }
}
