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
            let options = try SessionOptions(timeLimit: 600, systemRestrictions: ["keyboards": "deny"],
                                             disabledRegions: [Region(x: 1, y: 2, width: 3, height: 4)])
            try state.session.start(app: "org.example.Kiosk", options: options, requestedBy: "org.example.Kiosk", now: t0)
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

    /// `state.json` as the daemon wrote it before the core stopped speaking
    /// the bus's names (commit 113fd91): a running session, with every part
    /// of the file filled. Kept byte for byte, so any change of the format shows here.
    static let writtenBefore = #"""
        {"desktopOriginals":{"org.gnome.desktop.notifications/show-banners":{"userValue":"true"}},\#
        "featureValues":{"BoldText":true,"MonoAudio":true},"lastOptions":[{"app":"org.example.Shop",\#
        "options":{"autoLock":300,"disabledRegions":[{"height":200,"width":300,"x":10,"y":20}],\#
        "presentation":"fullscreen","restrictions":{"org.example.shop.purchase":"deny"},\#
        "systemRestrictions":{"app-switching":"allow","keyboards":"allow","motion":"allow",\#
        "notifications":"deny","power-menu":"allow","sleep-wake-button":"allow","touch":"deny",\#
        "volume-buttons":"allow"},"timeLimit":600}}],"passcode":{"backoff":{"consecutiveFailures":0,\#
        "lockedUntilMicroseconds":0},"stored":{"algorithm":"crypt",\#
        "crypt":"$y$j75$CstEk42XsddgZNBVDe1y0/$EUrsdovgz9stbvV1Kko9quqvt7Cs/ADnMZN3Ghh1StB"}},\#
        "restrictionRecords":[{"app":"org.example.Shop","detail":"","identifier":"org.example.shop.chat",\#
        "sequence":2,"text":"Chat"},{"app":"org.example.Shop","detail":"Buy \"things\"",\#
        "identifier":"org.example.shop.purchase","sequence":1,"text":"Purchases"}],\#
        "restrictionStates":{"org.example.shop.chat":"deny","org.example.shop.purchase":"deny"},\#
        "session":{"app":"org.example.Shop","autoLock":300,"disabledRegions":[{"height":200,"width":300,\#
        "x":10,"y":20}],"pendingWarnings":[300,60,10],"presentation":"fullscreen",\#
        "startedAtMicroseconds":1700000000000000,"state":"active",\#
        "systemRestrictions":{"app-switching":"allow","keyboards":"allow","motion":"allow",\#
        "notifications":"deny","power-menu":"allow","sleep-wake-button":"allow","touch":"deny",\#
        "volume-buttons":"allow"},"timeLimit":600},"version":1}
        """# + "\n"

    @Test("a state file of the previous version loads whole and is written back the same")
    func stateFileOfThePreviousVersion() throws {
        try withTemporaryDirectory { directory in
            let store = StateStore(directory: directory)
            try Data(Self.writtenBefore.utf8).write(to: URL(fileURLWithPath: store.path))
            #expect(try store.load(now: t0).warning == nil)
            let model = try makeModel(in: directory, now: at(1))
            #expect(model.sessionState == .active && model.app == "org.example.Shop" && model.timeLimit == 600)
            #expect(model.systemRestrictions["touch"] == .deny && model.disabledRegions.count == 1)
            #expect(model.presentation == .fullscreen && model.autoLock == 300)
            #expect(model.featureValue(.boldText) && model.featureValue(.monoAudio) && !model.featureValue(.zoom))
            #expect(model.restrictionState(of: "org.example.shop.chat") == .deny)
            #expect(model.restriction("org.example.shop.purchase")?.text == "Purchases")
            #expect(model.passcodeIsSet)
            #expect(model.lastOptions(for: "org.example.Shop")?.restrictions == ["org.example.shop.purchase": .deny])
            #expect(model.persistentState.desktopOriginals?.keys.sorted() == ["org.gnome.desktop.notifications/show-banners"])
            try store.save(model.persistentState)
            #expect(try String(contentsOfFile: store.path, encoding: .utf8) == Self.writtenBefore)
        }
    }
}
