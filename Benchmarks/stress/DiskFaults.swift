// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract

/// Disk faults: the state directory (a 512 KiB tmpfs) is remounted
/// read-only, then filled. Each time a `SetState` and a `SetFeature` must
/// fail with a named error while the published values and the signals stay
/// at the old state; once the disk recovers the next mutation must work,
/// and after a restart nothing acknowledged may be missing.
func diskFaultsCase(_ context: StressContext) async throws -> CaseResult {
    let stage = try await Stage.start("disk", daemon: context.daemon,
                                      Stage.Options(stateTmpfsKiB: 512))
    defer { Task { await stage.stop() } }
    let admin = try stage.proxy()
    let restrictions = Contract.Restrictions.self
    let identifier = "org.stress.disk.r0"
    let watcher = try stage.connect()
    let signals = SignalCounter(try await watcher.signals(MatchRule(sender: .guidedAccess)))
    try await admin.call(restrictions.setState, identifier, "deny")
    var notes: [String] = []
    var holds = true

    for (fault, breakDisk, mendDisk, next) in [
        ("read-only", { try await remount(stage.stateDirectory, "ro") }, { try await remount(stage.stateDirectory, "rw") }, "allow"),
        ("full", { try fill(stage.stateDirectory) }, { try FileManager.default.removeItem(at: stage.stateDirectory.appendingPathComponent("filler")) }, "deny"),
    ] {
        let before = (state: try await admin.call(restrictions.getState, identifier),
                      bold: try await admin.get(Contract.Features.enabled(.boldText)))
        try await Task.sleep(for: .milliseconds(200))
        signals.clear()
        try await breakDisk()
        let stateError = await errorName { try await admin.call(restrictions.setState, identifier, next) }
        let featureError = await errorName { try await admin.call(Contract.Features.setFeature, "BoldText", !before.bold) }
        try await Task.sleep(for: .milliseconds(300))
        let during = (state: try await admin.call(restrictions.getState, identifier),
                      bold: try await admin.get(Contract.Features.enabled(.boldText)))
        let signalled = signals.count
        try await mendDisk()
        let recovered = await errorName { try await admin.call(restrictions.setState, identifier, next) } == nil
        let named = [stateError, featureError].allSatisfy { $0?.hasPrefix("org.guidedaccess.Error.") == true }
        let unchanged = during.state == before.state && during.bold == before.bold && signalled == 0
        holds = holds && named && unchanged && recovered
        notes.append("\(fault): SetState → \(short(stateError)), SetFeature → \(short(featureError)); "
                     + "published \(during.state)/\(during.bold) (was \(before.state)/\(before.bold)), \(signalled) signals; "
                     + "after recovery \(recovered ? "works" : "FAILS")")
    }
    try await stage.fixture.killDaemon()
    try await stage.fixture.startDaemon()
    let restarted = try await stage.proxy().call(restrictions.getState, identifier)
    notes.append("after kill -9 and restart: \(restarted) (acknowledged deny)")
    return CaseResult(counts: "2 faults × (SetState, SetFeature), then recovery and a restart",
                      figures: notes.joined(separator: "; "),
                      passed: holds && restarted == "deny")
}

/// Remounts the tmpfs at `directory` read-only (`ro`) or writable again (`rw`).
func remount(_ directory: URL, _ mode: String) async throws {
    try await ProcessRunner.runSucceeding(["mount", "-o", "remount,\(mode)", directory.path])
}

/// Fills the filesystem of `directory` to the last byte.
func fill(_ directory: URL) throws {
    let path = directory.appendingPathComponent("filler").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw DaemonFixture.Failure("cannot create \(path): errno \(errno)") }
    defer { close(fd) }
    let block = [UInt8](repeating: 0, count: 4096)
    while write(fd, block, block.count) > 0 {}
    var byte: UInt8 = 0
    while write(fd, &byte, 1) > 0 {}
}

/// The D-Bus error name `body` ends with, or nil when it succeeds.
func errorName(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error.name.rawValue
    } catch {
        return "(not a D-Bus error) \(error)"
    }
}

func short(_ name: String?) -> String { name.map { String($0.split(separator: ".").last ?? "") } ?? "succeeded" }
