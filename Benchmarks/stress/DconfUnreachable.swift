// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// dconf unreachable: the session bus cannot start dconf-service. Each
/// `SetFeature` of a GSettings feature must end in a named error while the
/// published value stays and no signal goes out; a service-kept feature is
/// acknowledged; after kill -9 and restart every acknowledged value is there.
func dconfUnreachableCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("dconf-unreachable", daemon: context.daemon,
                                      Stage.Options(dconf: true, dconfActivatable: false))
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let watcher = try stage.connect()
    let signals = SignalCounter(try await watcher.signals(MatchRule(sender: .guidedAccess)))
    let rounds = context.scale.name == "long" ? 50 : 5
    var errors: [String: Int] = [:], published = 0
    for _ in 0..<rounds {
        for feature in [AccessibilityFeature.zoom, .visualBell] {
            let name = await errorName { try await admin.call(Contract.Features.setFeature, feature.name, true) }
            errors[short(name), default: 0] += 1
            if try await admin.get(Contract.Features.enabled(feature)) { published += 1 }
        }
    }
    try await admin.call(Contract.Features.setFeature, "BoldText", true)
    try await Task.sleep(for: .milliseconds(300))
    let featureSignals = signals.count - 1  // BoldText's own
    try await stage.fixture.killDaemon()
    try await stage.fixture.startDaemon()
    let after = try stage.proxy()
    let zoom = try await after.get(Contract.Features.enabled(.zoom))
    let bell = try await after.get(Contract.Features.enabled(.visualBell))
    let bold = try await after.get(Contract.Features.enabled(.boldText))
    let named = errors.keys.allSatisfy { $0 == "Failed" }
    return CaseResult(
        counts: "\(rounds * 2) SetFeature (Zoom, VisualBell) without dconf-service, then kill -9 and restart",
        figures: "outcomes " + errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            + "; published true \(published) times, \(featureSignals) signals; after restart Zoom \(zoom), VisualBell \(bell), "
            + "BoldText \(bold) (acknowledged true)",
        passed: named && published == 0 && featureSignals == 0 && !zoom && !bell && bold)
}
