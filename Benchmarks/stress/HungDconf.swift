// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// Hung dconf: dconf-service is stopped (SIGSTOP) while a `SetFeature Zoom`
/// waits for its write. Meanwhile another client's `Get Enabled`,
/// `Get BoldText`, `GetState` and `Get Zoom` must stay fast with none timing
/// out; after SIGCONT the write must take effect, and `gsettings get` agree.
func hungDconfCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("hung-dconf", daemon: context.daemon,
                                      Stage.Options(dconf: true))
    defer { Task { await stage.stop() } }
    let writer = try stage.proxy(timeout: .seconds(60))
    let reader = try stage.proxy(timeout: .seconds(2))
    let identifier = "org.stress.dconf.r0"
    try await writer.call(Contract.Restrictions.setState, identifier, "deny")
    try await writer.call(Contract.Features.setFeature, "VisualBell", true)  // starts dconf-service
    let dconf = try await stage.dconfServicePID()
    kill(dconf, SIGSTOP)
    let started = ContinuousClock.now
    let write = Task { await errorName { try await writer.call(Contract.Features.setFeature, "Zoom", true) } }
    var reads: [Double] = [], timeouts = 0
    let hung: Duration = context.scale.name == "long" ? .seconds(15) : .seconds(3)
    while ContinuousClock.now - started < hung {
        for read in hungDconfReads(reader, identifier) {
            do { reads.append(try await Measuring.milliseconds(read)) } catch { timeouts += 1 }
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    let zoomWhileHung = try await reader.get(Contract.Features.enabled(.zoom))
    kill(dconf, SIGCONT)
    let outcome = await write.value
    let zoom = try await reader.get(Contract.Features.enabled(.zoom))
    let desktop = try await stage.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled")
    return CaseResult(
        counts: "dconf-service stopped \(hung.components.seconds) s under a SetFeature Zoom; \(reads.count) reads "
            + "(Get Enabled, Get BoldText, GetState, Get Zoom)",
        figures: "reads " + latencies(reads) + ", \(timeouts) timed out; Zoom read \(zoomWhileHung) while hung; "
            + "after SIGCONT SetFeature → \(short(outcome)), Zoom \(zoom), gsettings \(desktop)",
        passed: Measuring.percentile(reads, 0.99) < 50 && timeouts == 0 && !zoomWhileHung
            && outcome == nil && zoom && desktop == "true")
}

private func hungDconfReads(_ reader: Proxy, _ identifier: String) -> [() async throws -> Void] {
    [{ _ = try await reader.get(Contract.Session.enabled) },
     { _ = try await reader.get(Contract.Features.enabled(.boldText)) },
     { _ = try await reader.call(Contract.Restrictions.getState, identifier) },
     { _ = try await reader.get(Contract.Features.enabled(.zoom)) }]
}
