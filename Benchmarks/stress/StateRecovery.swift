// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// A transient fault of the state directory (a 256 KiB tmpfs, remounted
/// read-only, then filled), with dconf working: `SetFeature Zoom` (a
/// GSettings feature) and `SetState` must fail with a named error and
/// change nothing; once the disk is back, the very next `SetFeature Zoom`
/// and `SetState` must work (reply, signal, the value in dconf and in
/// `state.json`), from the same daemon, without a restart.
func stateRecoveryCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("state-recovery", daemon: context.daemon,
                                      Stage.Options(stateTmpfsKiB: 256, dconf: true))
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let restrictions = Contract.Restrictions.self
    let identifier = "org.stress.recovery.r0"
    let watcher = try stage.connect()
    let signals = SignalCounter(try await watcher.signals(MatchRule(sender: .guidedAccess)))
    try await admin.call(restrictions.setState, identifier, "deny")  // acknowledged, and starts dconf-service
    let pid = stage.fixture.fixture.daemonPID
    var notes: [String] = [], holds = true

    for (fault, breakDisk, mendDisk) in [
        ("read-only", { try await remount(stage.stateDirectory, "ro") }, { try await remount(stage.stateDirectory, "rw") }),
        ("full", { try fill(stage.stateDirectory) },
         { try FileManager.default.removeItem(at: stage.stateDirectory.appendingPathComponent("filler")) }),
    ] as [(String, () async throws -> Void, () async throws -> Void)] {
        let zoom = try await admin.get(Contract.Features.enabled(.zoom))
        let state = try await admin.call(restrictions.getState, identifier)
        let next = state == "deny" ? "allow" : "deny"
        try await Task.sleep(for: .milliseconds(200))
        signals.clear()
        try await breakDisk()
        let underFault = [
            await errorName { try await admin.call(Contract.Features.setFeature, "Zoom", !zoom) },
            await errorName { try await admin.call(restrictions.setState, identifier, next) },
        ]
        try await Task.sleep(for: .milliseconds(300))
        let published = (zoom: try await admin.get(Contract.Features.enabled(.zoom)),
                         state: try await admin.call(restrictions.getState, identifier),
                         dconf: try await stage.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled"))
        let unchanged = published.zoom == zoom && published.state == state && published.dconf == "\(zoom)" && signals.count == 0
        try await mendDisk()

        signals.clear()
        let afterward = [
            await errorName { try await admin.call(Contract.Features.setFeature, "Zoom", !zoom) },
            await errorName { try await admin.call(restrictions.setState, identifier, next) },
        ]
        try await Task.sleep(for: .milliseconds(300))
        let inDconf = try await stage.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled")
        let onDisk = (try? String(contentsOf: stage.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8))?
            .contains("\"\(identifier)\":\"\(next)\"") == true
        let samePid = pid != nil && stage.fixture.fixture.daemonPID == pid
        let named = underFault.allSatisfy { $0?.hasPrefix("org.guidedaccess.Error.") == true }
        let works = afterward.allSatisfy { $0 == nil } && inDconf == "\(!zoom)" && onDisk && signals.count > 0 && samePid
        holds = holds && named && unchanged && works
        notes.append("\(fault): under the fault SetFeature Zoom → \(short(underFault[0])), SetState → \(short(underFault[1])), "
                     + "\(unchanged ? "nothing changed" : "SOMETHING CHANGED"); after: SetFeature Zoom → \(short(afterward[0])), "
                     + "SetState → \(short(afterward[1])), \(signals.count) signals, dconf \(inDconf), state.json "
                     + "\(onDisk ? "has" : "LACKS") \(next), \(samePid ? "same pid" : "ANOTHER PID")")
    }
    return CaseResult(counts: "2 faults × (SetFeature Zoom, SetState), then the same calls once the disk is back",
                      figures: notes.joined(separator: "; "), passed: holds)
}
