// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Model: session")
struct ModelSessionTests {
    @Test func startReportsStatusAndPropertiesAndPersistsBeforeReturning() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let changes = try model.start(
                app: "org.example.Kiosk", timeLimit: 600, systemRestrictions: ["touch": "deny"],
                disabledRegions: [Region(x: 0, y: 0, width: 10, height: 10)], now: t0)
            #expect(try StateStore(directory: directory).load(now: t0).state.session == GuidedAccessSession(),
                    "a change writes nothing itself")
            try model.carryOut(in: directory)
            #expect(changes == [
                .statusChanged(enabled: true),
                .sessionPropertiesChanged([.enabled, .state, .app, .startedAt, .timeLimit, .systemRestrictions, .disabledRegions, .mode]),
            ])
            let onDisk = try StateStore(directory: directory).load(now: t0).state
            #expect(onDisk.session == model.session)
        }
    }

    @Test func startRejectsBadValuesByName() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect { try model.start(app: "a.b", systemRestrictions: ["elbows": "deny"], now: t0) } throws: {
                ($0 as? DomainError)?.message.contains("elbows") == true
            }
            #expect { try model.start(app: "a.b", systemRestrictions: ["touch": "sometimes"], now: t0) } throws: {
                ($0 as? DomainError)?.message.contains("sometimes") == true
            }
            #expect { try model.start(app: "a.b", restrictions: ["x": "deny"], now: t0) } throws: {
                ($0 as? DomainError)?.name == "InvalidArgument"
            }
            #expect(model.sessionState == .inactive)
            _ = try model.start(app: "a.b", now: t0)
            #expect { try model.start(app: "a.b", now: t0) } throws: { ($0 as? DomainError)?.name == "AlreadyActive" }
        }
    }

    @Test func startWithRestrictionsIsAllOrNothing() throws {
        try withTemporaryDirectory { directory in
            let config = ManagedConfig(restrictions: ["com.example.forced": .deny])
            var model = try makeModel(in: directory, config: config)
            #expect(throws: DomainError.self) {
                try model.start(
                    app: "a.b", restrictions: ["com.example.buy": "deny", "com.example.forced": "allow"], now: t0)
            }
            #expect(model.sessionState == .inactive)
            #expect(model.restrictionState(of: "com.example.buy") == .allow)
            let changes = try model.start(app: "a.b", restrictions: ["com.example.buy": "deny"], now: t0)
            #expect(changes.contains(.restrictionChanged(identifier: "com.example.buy", state: .deny)))
            #expect(model.isRestrictionAllowed("com.example.buy") == false)
        }
    }

    @Test func ticksEmitWarningsThenExpiry() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(app: "a.b", timeLimit: 30, now: t0)
            #expect(model.nextDeadline == at(20))
            #expect(try model.tick(now: at(19)) == [])
            #expect(try model.tick(now: at(20)) == [.timeLimitWarning(secondsLeft: 10)])
            #expect(try model.tick(now: at(30)) == [.sessionPropertiesChanged([.state]), .timeExpired])
            #expect(model.sessionState == .expired)
            #expect(model.enabled, "an expired session stays locked")
            #expect(try model.extendTimeLimit(seconds: 60, now: at(45)) == [.sessionPropertiesChanged([.state, .timeLimit])])
            #expect(model.timeRemaining(now: at(45)) == 60)
        }
    }

    @Test func endAndOwnership() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(throws: DomainError.noSession) { try model.end(now: t0) }
            #expect(throws: DomainError.noSession) { try model.extendTimeLimit(seconds: 5, now: t0) }
            _ = try model.start(app: "org.example.Game", requestedBy: "org.example.Game", now: t0)
            #expect { try model.end(requestedBy: "org.example.Other", now: t0) } throws: {
                ($0 as? DomainError)?.name == "NotOwner"
            }
            let changes = try model.end(requestedBy: "org.example.Game", now: t0)
            #expect(changes.first == .statusChanged(enabled: false))
            #expect(model.app == "")
        }
    }

    @Test func unchangedValuesReportNothing() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(app: "a.b", systemRestrictions: ["touch": "deny"], now: t0)
            #expect(try model.setSystemRestrictions(["touch": "deny"]) == [])
            #expect(try model.setSystemRestrictions(["touch": "allow"]) == [.sessionPropertiesChanged([.systemRestrictions])])
            #expect(try model.setRestrictionState("allow", for: "com.example.x") == [])
        }
    }

    @Test func passcodeBackOffSurvivesARestart() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(try model.setPasscode("2468") == [.sessionPropertiesChanged([.passcodeSet])])
            #expect(try model.setPasscode("1357") == [], "replacing keeps PasscodeSet true")
            for _ in 0..<3 { #expect(throws: DomainError.self) { try model.verifyPasscode("0000", now: t0) } }
            try model.carryOut(in: directory)
            var restarted = try makeModel(in: directory, now: at(1))
            #expect(throws: DomainError.passcodeBackOff(seconds: 4)) {
                try restarted.verifyPasscode("1357", now: at(1))
            }
            try restarted.verifyPasscode("1357", now: at(5))
            #expect(restarted.passcodeIsSet)
        }
    }

    @Test func aPBKDF2PasscodeIsStoredAsYescryptOnceRightAndSoAfterARestart() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/" + StateStore.fileName
            // state.json as the PBKDF2 version left it.
            var state = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(PersistentState())) as? [String: Any])
            state["passcode"] = try JSONSerialization.jsonObject(with: Data(LegacyPasscodeTests.written[0].json.utf8))
            try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))
            func storedAlgorithm() throws -> String? {
                let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
                return ((saved?["passcode"] as? [String: Any])?["stored"] as? [String: Any])?["algorithm"] as? String
            }

            var model = try makeModel(in: directory)
            #expect(throws: DomainError.self) { try model.verifyPasscode("1357", now: t0) }
            try model.carryOut(in: directory)
            #expect(try storedAlgorithm() == "pbkdf2-sha256", "a wrong passcode changes no hash")
            try model.verifyPasscode("2468", now: t0)
            try model.carryOut(in: directory)
            #expect(try storedAlgorithm() == "crypt", "the new hash is on disk once the check's save is carried out")
            var restarted = try makeModel(in: directory)
            try restarted.verifyPasscode("2468", now: t0)
            #expect(throws: DomainError.self) { try restarted.verifyPasscode("1357", now: t0) }
        }
    }
}

@Suite("Model: restart")
struct ModelRestartTests {
    @Test func resumesAnActiveSession() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(
                app: "org.example.Kiosk", timeLimit: 600, systemRestrictions: ["touch": "deny"],
                disabledRegions: [Region(x: 1, y: 2, width: 3, height: 4)],
                restrictions: ["com.example.buy": "deny"], now: t0)
            _ = try model.tick(now: at(300))
            try model.carryOut(in: directory)
            let restarted = try makeModel(in: directory, now: at(400))
            #expect(restarted.sessionState == .active)
            #expect(restarted.app == "org.example.Kiosk")
            #expect(restarted.startedAtMicroseconds == model.startedAtMicroseconds)
            #expect(restarted.timeLimit == 600)
            #expect(restarted.systemRestrictions["touch"] == .deny)
            #expect(restarted.disabledRegions == model.disabledRegions)
            #expect(restarted.isRestrictionAllowed("com.example.buy") == false)
            #expect(restarted.nextDeadline == at(540), "the 5-minute warning is not repeated")
            #expect(restarted.startupWarnings.isEmpty)
        }
    }

    @Test func comesBackExpiredWhenTheTimeRanOutWhileDown() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(app: "org.example.Kiosk", timeLimit: 60, now: t0)
            try model.carryOut(in: directory)
            let restarted = try makeModel(in: directory, now: at(3600))
            #expect(restarted.sessionState == .expired)
            #expect(restarted.enabled)
            #expect(restarted.app == "org.example.Kiosk")
            #expect(restarted.nextDeadline == nil)
            #expect(try StateStore(directory: directory).load(now: t0).state.session.state == .expired)
        }
    }

    @Test func corruptStateStartsFreshAndSaysSo() throws {
        try withTemporaryDirectory { directory in
            try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/state.json"))
            let model = try makeModel(in: directory)
            #expect(model.sessionState == .inactive)
            #expect(model.startupWarnings.count == 1)
        }
    }

    @Test func failedSaveChangesNothing() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            // A directory where the state file should be makes the rename fail.
            try FileManager.default.createDirectory(atPath: directory + "/state.json", withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: directory + "/state.json/x", withIntermediateDirectories: false)
            _ = try model.start(app: "a.b", now: t0)
            #expect { try model.carryOut(in: directory) } throws: { ($0 as? DomainError)?.name == "Failed" }
            #expect(model.sessionState == .inactive, "the failed save undid the start")
        }
    }
}

@Suite("Model: restrictions")
struct ModelRestrictionTests {
    @Test func registrationLifecycleReportsObjectChanges() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let buy = RestrictionDeclaration(identifier: "com.example.buy", text: "Purchases", detail: "")
            #expect(try model.register(owner: ":1.5", app: "org.example.Shop", [buy]) == [.restrictionAdded(identifier: "com.example.buy")])
            #expect(try model.register(owner: ":1.5", app: "org.example.Shop", [buy]) == [])
            #expect(try model.setRestrictionState("deny", for: "com.example.buy")
                == [.restrictionChanged(identifier: "com.example.buy", state: .deny)])
            #expect(model.ownerLeft(":1.5") == [.restrictionRecordChanged(identifier: "com.example.buy")])
            #expect(model.ownerLeft(":1.5") == [])
            #expect(model.restriction("com.example.buy")?.state == .deny)
            #expect(try model.resetRestrictions([]) == [.restrictionChanged(identifier: "com.example.buy", state: .allow)])
        }
    }

    @Test func resettingAPreDeniedIdentifierRemovesIt() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(try model.setRestrictionState("deny", for: "com.example.pre") == [
                .restrictionAdded(identifier: "com.example.pre"),
                .restrictionChanged(identifier: "com.example.pre", state: .deny),
            ])
            #expect(try model.resetRestrictions(["com.example.pre"]) == [
                .restrictionChanged(identifier: "com.example.pre", state: .allow),
                .restrictionRemoved(identifier: "com.example.pre"),
            ])
        }
    }

    @Test func restrictionStatesPersistButRegistrationsDoNot() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.register(owner: ":1.5", app: "org.example.Shop",
                                   [.init(identifier: "com.example.buy", text: "Purchases", detail: "More")])
            _ = try model.setRestrictionState("deny", for: "com.example.buy")
            try model.carryOut(in: directory)
            let restarted = try makeModel(in: directory)
            let listing = try #require(restarted.restriction("com.example.buy"))
            #expect(listing == RestrictionListing(
                identifier: "com.example.buy", text: "Purchases", detail: "More", state: .deny,
                app: "org.example.Shop", registered: false))
        }
    }
}

@Suite("Model: features")
struct ModelFeatureTests {
    final class FailingSource: FeatureValueSource {
        func value(of feature: Feature) -> Bool { false }
        func set(_ enabled: Bool, for feature: Feature) throws { throw CocoaError(.fileWriteNoPermission) }
        func sourceDescription(of feature: Feature) -> String { "gsettings:org.gnome.desktop.a11y/x" }
    }

    @Test func ownValuesPersistAndReportChanges() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(try model.setFeature(named: "BoldText", enabled: true) == [.featureChanged(.boldText, true)])
            #expect(try model.setFeature(.boldText, enabled: true) == [])
            #expect(throws: DomainError.self) { try model.setFeature(named: "Bold", enabled: true) }
            try model.carryOut(in: directory)
            #expect(try makeModel(in: directory).featureValue(.boldText))
            #expect(model.featureSourceDescriptions[.boldText] == "service")
        }
    }

    @Test func lockedFeaturesRejectChanges() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory, config: ManagedConfig(lockedFeatures: [.zoom: true]))
            #expect(model.featureValue(.zoom), "the locked value is applied at start-up")
            #expect { try model.setFeature(.zoom, enabled: false) } throws: {
                ($0 as? DomainError)?.name == "PermissionDenied"
            }
        }
    }

    @Test func configureForGuidedAccessNeedsASessionAndKnownNames() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory, config: ManagedConfig(lockedFeatures: [.grayscale: false]))
            #expect(throws: DomainError.noSession) {
                try model.configureForGuidedAccess(features: ["zoom"], enabled: true)
            }
            _ = try model.start(app: "a.b", now: t0)
            #expect { try model.configureForGuidedAccess(features: ["zoom", "voice-over"], enabled: true) } throws: {
                ($0 as? DomainError)?.name == "UnknownFeature"
            }
            #expect(model.featureValue(.zoom) == false, "nothing changes when one name is bad")
            #expect { try model.configureForGuidedAccess(features: ["grayscale"], enabled: true) } throws: {
                ($0 as? DomainError)?.name == "PermissionDenied"
            }
            #expect(try model.configureForGuidedAccess(features: ["screen-reader", "zoom"], enabled: true)
                == [.featureChanged(.screenReader, true), .featureChanged(.zoom, true)])
        }
    }

    @Test func failingSourceIsFailed() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            model.setFeatureSource(FailingSource(), for: [.largeText])
            #expect(model.featureSourceDescriptions[.largeText] == "gsettings:org.gnome.desktop.a11y/x")
            _ = try model.setFeature(.largeText, enabled: true)
            #expect { try model.carryOut(in: directory) } throws: {
                ($0 as? DomainError)?.name == "Failed"
            }
            #expect(model.takePendingSave() == nil && !model.featureValue(.largeText))
        }
    }

    @Test func managedConfigReloadReportsAllowListAndForcedStates() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let config = ManagedConfig(allowedApplications: ["org.example.Kiosk"], restrictions: ["com.example.buy": .deny])
            #expect(try model.applyManagedConfig(config, now: t0) == [
                .sessionPropertiesChanged([.allowedApplications]),
                .restrictionAdded(identifier: "com.example.buy"),
                .restrictionChanged(identifier: "com.example.buy", state: .deny),
            ])
            #expect(model.mayRequestSession(app: "org.example.Kiosk"))
            #expect(!model.mayRequestSession(app: "org.example.Other"))
        }
    }
}
