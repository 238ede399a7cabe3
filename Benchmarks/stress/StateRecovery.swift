// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// A transient fault of the disk (the state directory and dconf's
/// database, each a 256 KiB tmpfs, made immutable, remounted read-only,
/// then filled): `SetFeature Zoom` (a GSettings feature), `SetState` and a
/// `Start` that denies notifications (whose originals are journaled) must
/// fail with a named error and change nothing; once the disk is back, the
/// very same calls must work from the same daemon, without a restart
/// (reply, signal, the value in dconf and in `state.json`), and `End` must
/// put the banners back.
func stateRecoveryCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("state-recovery", daemon: context.daemon,
                                      Stage.Options(stateTmpfsKiB: 256, dconf: true, dconfTmpfsKiB: 256))
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let restrictions = Contract.Restrictions.self
    let identifier = "org.stress.recovery.r0"
    let watcher = try stage.connect()
    let signals = SignalCounter(try await watcher.signals(MatchRule(sender: .guidedAccess)))
    try await admin.call(restrictions.setState, identifier, "deny")  // acknowledged, and starts dconf-service
    let pid = stage.fixture.fixture.daemonPID
    let kiosk = "/usr/bin/stress-kiosk"
    let deniedBanners = ["system-restrictions": Variant(["notifications": "deny"])]
    var notes: [String] = [], holds = true

    guard let dconf = stage.dconfDirectory else { throw DaemonFixture.Failure("no dconf directory") }
    let disks = [stage.stateDirectory, dconf]
    for (fault, breakDisk, mendDisk) in [
        // What a directory the daemon may not write gives, even to root: EPERM.
        ("unwritable", { for disk in disks { try await chattr(disk, "+i") } }, { for disk in disks { try await chattr(disk, "-i") } }),
        ("read-only", { for disk in disks { try await remount(disk, "ro") } }, { for disk in disks { try await remount(disk, "rw") } }),
        ("full", { for disk in disks { try fill(disk) } },
         { for disk in disks { try FileManager.default.removeItem(at: disk.appendingPathComponent("filler")) } }),
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
            await errorName { try await admin.call(Contract.Session.start, kiosk, deniedBanners) },
        ]
        try await Task.sleep(for: .milliseconds(300))
        let published = (zoom: try await admin.get(Contract.Features.enabled(.zoom)),
                         state: try await admin.call(restrictions.getState, identifier),
                         dconf: try await stage.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled"))
        let banners = try await stage.gsettingsGet("org.gnome.desktop.notifications", "show-banners")
        let enabled = try await admin.get(Contract.Session.enabled)
        let unchanged = published.zoom == zoom && published.state == state && published.dconf == "\(zoom)"
            && banners == "true" && !enabled && signals.count == 0
        try await mendDisk()

        signals.clear()
        let afterward = [
            await errorName { try await admin.call(Contract.Features.setFeature, "Zoom", !zoom) },
            await errorName { try await admin.call(restrictions.setState, identifier, next) },
            await errorName { try await admin.call(Contract.Session.start, kiosk, deniedBanners) },
        ]
        try await Task.sleep(for: .milliseconds(300))
        // The session's journal of desktop originals: banners off during it, back at End.
        let during = try await stage.gsettingsGet("org.gnome.desktop.notifications", "show-banners")
        let ended = await errorName { try await admin.call(Contract.Session.end, [:]) }
        let restored = try await stage.gsettingsGet("org.gnome.desktop.notifications", "show-banners")
        let journal = during == "false" && ended == nil && restored == "true"
        let inDconf = try await stage.gsettingsGet("org.gnome.desktop.a11y.applications", "screen-magnifier-enabled")
        let onDisk = (try? String(contentsOf: stage.stateDirectory.appendingPathComponent("state.json"), encoding: .utf8))?
            .contains("\"\(identifier)\":\"deny\"") == (next == "deny")
        let samePid = pid != nil && stage.fixture.fixture.daemonPID == pid
        let named = underFault.allSatisfy { $0?.hasPrefix("org.guidedaccess.Error.") == true }
        let works = afterward.allSatisfy { $0 == nil } && inDconf == "\(!zoom)" && onDisk && signals.count > 0 && journal
            && samePid
        holds = holds && named && unchanged && works
        notes.append("\(fault): under the fault SetFeature Zoom → \(short(underFault[0])), SetState → \(short(underFault[1])), "
                     + "Start → \(short(underFault[2])), \(unchanged ? "nothing changed" : "SOMETHING CHANGED"); after: "
                     + "SetFeature Zoom → \(short(afterward[0])), SetState → \(short(afterward[1])), Start → \(short(afterward[2])), "
                     + "\(signals.count) signals, dconf Zoom \(inDconf), state.json \(onDisk ? "has" : "LACKS") \(next), "
                     + "banners \(during) in the session and \(restored) after End, \(samePid ? "same pid" : "ANOTHER PID")")
    }
    return CaseResult(counts: "3 faults × (SetFeature Zoom, SetState, Start denying notifications), then the same calls and End once the disk is back",
                      figures: notes.joined(separator: "; "), passed: holds)
}

/// Makes `directory` immutable (`+i`: nothing in it can be created, renamed
/// or removed, even by root) or writable again (`-i`).
func chattr(_ directory: URL, _ flag: String) async throws {
    try await ProcessRunner.runSucceeding(["chattr", flag, directory.path])
}
