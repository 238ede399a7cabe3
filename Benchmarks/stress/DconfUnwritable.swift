// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// dconf unwritable: `XDG_CONFIG_HOME/dconf` (a 256 KiB tmpfs) is remounted
/// read-only, then filled. Each time `SetFeature` of a GSettings feature
/// must fail with a named error while the published value, the signals and
/// `gsettings get` stay; once the store recovers the next write works, and
/// after kill -9 and restart every acknowledged value is there.
func dconfUnwritableCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("dconf-unwritable", daemon: context.daemon,
                                      Stage.Options(dconf: true, dconfTmpfsKiB: 256))
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let watcher = try stage.connect()
    let signals = SignalCounter(try await watcher.signals(MatchRule(sender: .guidedAccess)))
    guard let dconf = stage.dconfDirectory else { throw DaemonFixture.Failure("no dconf directory") }
    try await admin.call(Contract.Features.setFeature, "Zoom", true)  // acknowledged, and starts dconf-service
    let rounds = context.scale.name == "long" ? 20 : 2
    var notes: [String] = [], holds = true
    for (fault, breakStore, mendStore) in [
        ("read-only", { try await remount(dconf, "ro") }, { try await remount(dconf, "rw") }),
        ("full", { try fill(dconf) }, { try FileManager.default.removeItem(at: dconf.appendingPathComponent("filler")) }),
    ] as [(String, () async throws -> Void, () async throws -> Void)] {
        try await Task.sleep(for: .milliseconds(200))
        signals.clear()
        try await breakStore()
        var outcomes: [String: Int] = [:]
        for _ in 0..<rounds {
            for (feature, value) in [(AccessibilityFeature.zoom, false), (.visualBell, true)] {
                let name = await errorName { try await admin.call(Contract.Features.setFeature, feature.name, value) }
                outcomes[short(name), default: 0] += 1
            }
        }
        let zoom = try await admin.get(Contract.Features.enabled(.zoom))
        let bell = try await admin.get(Contract.Features.enabled(.visualBell))
        let desktop = try await stage.gsettingsGet("org.gnome.desktop.wm.preferences", "visual-bell")
        let signalled = signals.count
        try await mendStore()
        let recovered = await errorName { try await admin.call(Contract.Features.setFeature, "ReduceMotion", fault == "full") } == nil
        let ok = outcomes.keys.allSatisfy { $0 == "Failed" } && zoom && !bell && desktop == "false" && signalled == 0 && recovered
        holds = holds && ok
        notes.append("\(fault): " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                     + "; published Zoom \(zoom)/VisualBell \(bell), gsettings visual-bell \(desktop), \(signalled) signals; "
                     + "after recovery \(recovered ? "works" : "FAILS")")
    }
    try await stage.fixture.killDaemon()
    try await stage.fixture.startDaemon()
    let after = try stage.proxy()
    let zoom = try await after.get(Contract.Features.enabled(.zoom))
    let motion = try await after.get(Contract.Features.enabled(.reduceMotion))
    notes.append("after kill -9 and restart: Zoom \(zoom), ReduceMotion \(motion) (acknowledged true, true)")
    return CaseResult(counts: "2 faults × \(rounds * 2) SetFeature, then recovery and a restart",
                      figures: notes.joined(separator: "; "), passed: holds && zoom && motion)
}
