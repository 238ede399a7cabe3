// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("State store")
struct StateStoreTests {
    @Test func directoryFromEnvironment() throws {
        #expect(try StateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/guided-access")
        #expect(try StateStore.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.local/state/guided-access")
        #expect(try StateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"])
            == "/h/.local/state/guided-access")
        #expect(throws: DomainError.self) { try StateStore.defaultDirectory(environment: [:]) }
    }

    @Test func missingFileIsFreshAndCreatesAPrivateDirectory() throws {
        try withTemporaryDirectory { base in
            let store = StateStore(directory: base + "/state/guided-access")
            let loaded = try store.load(now: t0)
            #expect(loaded.state == PersistentState())
            #expect(loaded.warning == nil)
            #expect(permissions(of: store.directory) == 0o700)
        }
    }

    @Test func atomicRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let store = StateStore(directory: directory)
            var state = PersistentState()
            try state.session.start(
                app: "org.example.Kiosk", timeLimit: 600, systemRestrictions: ["keyboards": .deny],
                disabledRegions: [Region(x: 1, y: 2, width: 3, height: 4)], requestedBy: "org.example.Kiosk", now: t0)
            state.restrictionStates = ["com.example.buy": .deny]
            state.featureValues = ["Zoom": true]
            state.passcode = PasscodeVault(cost: testCost)
            try state.passcode.setPasscode("2468")
            try store.save(state)
            #expect(try store.load(now: t0).state == state)
            #expect(permissions(of: store.path) == 0o600)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(leftovers == ["state.json"], "no temporary files remain")
            state.featureValues = [:]
            try store.save(state)
            #expect(try store.load(now: t0).state.featureValues.isEmpty, "a second save replaces the first")
        }
    }

    @Test func corruptFileIsMovedAsideWithAWarning() throws {
        try withTemporaryDirectory { directory in
            let store = StateStore(directory: directory)
            let garbage = Data("{\"version\": 1, \"session\": tru".utf8)
            try garbage.write(to: URL(fileURLWithPath: store.path))
            let loaded = try store.load(now: t0)
            #expect(loaded.state == PersistentState())
            let aside = store.path + ".corrupt-1700000000"
            #expect(loaded.warning?.contains(aside) == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == garbage, "the bad file is kept, not overwritten")
            #expect(!FileManager.default.fileExists(atPath: store.path))
        }
    }

    @Test func newerFormatIsMovedAsideToo() throws {
        try withTemporaryDirectory { directory in
            let store = StateStore(directory: directory)
            var state = PersistentState()
            state.version = 99
            try store.save(state)
            let loaded = try store.load(now: t0)
            #expect(loaded.warning?.contains("version 99") == true)
        }
    }
}
