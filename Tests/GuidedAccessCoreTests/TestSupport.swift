// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
@testable import GuidedAccessCore

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed when the test body returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/guided-access-core-test-XXXXXX".utf8CString)
    guard let created = mkdtemp(&template) else { throw DomainError.failed("mkdtemp failed") }
    let path = String(cString: created)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A fixed point in time so schedules are easy to read: t0 + seconds.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// The cheapest yescrypt cost keeps tests fast; production uses PasscodeVault.defaultCost.
let testCost = 1

func makeModel(
    in directory: String, config: ManagedConfig = ManagedConfig(), now: Date = t0
) throws -> GuidedAccessModel {
    try StateStore(directory: directory).loadModel(managedConfig: config, passcodeCost: testCost, now: now)
}

extension GuidedAccessModel {
    /// Carries out what the changes so far ask of the disk and the desktop,
    /// in the service's order (`LockedModel`): the pending save written
    /// (the desktop's features, then `state.json`), undone when that fails,
    /// then the desktop settled and what it restored recorded.
    mutating func carryOut(in directory: String) throws(DomainError) {
        guard let pending = takePendingSave() else { return }
        let store = StateStore(directory: directory)
        do throws(DomainError) {
            try pending.write(to: store)
        } catch {
            saveFailed(pending)
            throw error
        }
        guard let settlement = saved(pending) else { return }
        _ = settlement.perform()
        if let state = settled(settlement) { try store.save(state) }
    }
}

/// POSIX permission bits of `path`.
func permissions(of path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
}

extension GuidedAccessModel {
    /// `start` with its options spelt out and parsed as the service parses
    /// them at the edge (the app id checked, then the options).
    mutating func start(
        app: String, timeLimit: UInt64 = 0, systemRestrictions: [String: String] = [:], disabledRegions: [Region] = [],
        restrictions: [String: String] = [:], presentation: Presentation = .asIs, autoLock: Int64 = AutoLock.desktop,
        requestedBy: String? = nil, now: Date
    ) throws(DomainError) -> [ModelChange] {
        try AppIdentifier.validate(app)
        let options = try SessionOptions(timeLimit: timeLimit, systemRestrictions: systemRestrictions, disabledRegions: disabledRegions,
                                         restrictions: restrictions, presentation: presentation, autoLock: autoLock)
        return try start(app: app, options: options, requestedBy: requestedBy, now: now)
    }
}
