// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

/// A change does no I/O: it is in memory at once and leaves a pending save
/// that the service writes outside the lock readers take; on disk only
/// after `write`, and undone as a whole when the write fails.
@Suite struct DeferredSaveTests {
    /// What a daemon starting now would load.
    func onDisk(_ directory: String) throws -> PersistentState {
        try StateStore(directory: directory).load(now: t0).state
    }

    @Test func aChangeIsOnDiskOnlyAfterItsWrite() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(app: "/usr/bin/kiosk", now: t0)
            #expect(model.enabled)
            #expect(try !onDisk(directory).session.isLocked, "nothing may be written before the caller writes")

            let taken = model.takePendingSave()
            let pending = try #require(taken)
            let again = model.takePendingSave()
            #expect(again == nil, "a pending save is handed out once")
            try pending.write(to: StateStore(directory: directory))
            _ = model.saved(pending)
            #expect(try onDisk(directory).session.isLocked)
        }
    }

    @Test func commitsBeforeTheWriteAreSavedTogetherAndUndoneTogether() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.setRestrictionState("deny", for: "com.example.purchase")
            _ = try model.start(app: "/usr/bin/kiosk", now: t0)
            let taken = model.takePendingSave()
            let pending = try #require(taken)
            #expect(pending.state.session.isLocked && pending.state.restrictionStates["com.example.purchase"] == .deny)

            // The write failed (say, a full disk): both changes are gone, as if they had thrown.
            model.saveFailed(pending)
            #expect(!model.enabled)
            #expect(model.restrictionState(of: "com.example.purchase") == .allow)
            #expect(try !onDisk(directory).session.isLocked)

            // The next change starts from the undone state and saves normally.
            _ = try model.setRestrictionState("deny", for: "com.example.export")
            let next = model.takePendingSave()
            try #require(next).write(to: StateStore(directory: directory))
            let saved = try onDisk(directory)
            #expect(saved.restrictionStates["com.example.export"] == .deny)
            #expect(saved.restrictionStates["com.example.purchase"] == nil)
        }
    }
}
