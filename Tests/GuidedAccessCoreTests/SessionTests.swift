// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Session state machine")
struct SessionTests {
    private func started(limit: UInt64, at start: Date = t0) throws -> GuidedAccessSession {
        var session = GuidedAccessSession()
        try session.start(app: "org.example.Kiosk", options: SessionOptions(timeLimit: limit, systemRestrictions: ["touch": "deny"]),
                          requestedBy: nil, now: start)
        return session
    }

    @Test func startFillsAllEightSystemRestrictions() throws {
        let session = try started(limit: 0)
        #expect(session.state == .active)
        #expect(session.systemRestrictions.count == 8)
        #expect(session.systemRestrictions["touch"] == .deny)
        #expect(session.systemRestrictions["motion"] == .allow)
        #expect(session.startedAtMicroseconds == 1_700_000_000_000_000)
    }

    @Test func startTwiceIsAlreadyActive() throws {
        var session = try started(limit: 0)
        #expect(throws: DomainError.self) {
            try session.start(app: "b", options: SessionOptions(), requestedBy: nil, now: t0)
        }
    }

    @Test func fullCycleInactiveActiveExpiredInactive() throws {
        var session = try started(limit: 30)
        #expect(session.advance(to: at(30)) == [.expired])
        #expect(session.state == .expired)
        #expect(session.isLocked)
        try session.end()
        #expect(session == GuidedAccessSession())
        #expect(throws: DomainError.noSession) { try session.end() }
    }

    @Test func warningsAtFiveMinutesOneMinuteTenSeconds() throws {
        var session = try started(limit: 600)
        #expect(session.nextDeadline == at(300))
        #expect(session.advance(to: at(299.9)) == [])
        #expect(session.advance(to: at(300)) == [.warning(secondsLeft: 300)])
        #expect(session.advance(to: at(300)) == [], "each warning is emitted once")
        #expect(session.nextDeadline == at(540))
        #expect(session.advance(to: at(540)) == [.warning(secondsLeft: 60)])
        #expect(session.nextDeadline == at(590))
        #expect(session.advance(to: at(590)) == [.warning(secondsLeft: 10)])
        #expect(session.nextDeadline == at(600))
        #expect(session.timeRemaining(now: at(595)) == 5)
        #expect(session.advance(to: at(600)) == [.expired])
        #expect(session.nextDeadline == nil)
        #expect(session.timeRemaining(now: at(601)) == 0)
    }

    @Test func thirtySecondLimitOnlyWarnsAtTenSeconds() throws {
        var session = try started(limit: 30)
        #expect(session.pendingWarnings == [10])
        #expect(session.nextDeadline == at(20))
        #expect(session.advance(to: at(20)) == [.warning(secondsLeft: 10)])
    }

    @Test func lateTickAnnouncesOnlyTheSmallestDueWarningWithTheTrueTimeLeft() throws {
        var session = try started(limit: 600)
        #expect(session.advance(to: at(592)) == [.warning(secondsLeft: 8)])
        #expect(session.pendingWarnings.isEmpty)
    }

    @Test func noLimitMeansNoDeadline() throws {
        var session = try started(limit: 0)
        #expect(session.nextDeadline == nil)
        #expect(session.advance(to: at(1_000_000)) == [])
        #expect(session.timeRemaining(now: at(5)) == 0)
    }

    @Test func extendRearmsWarningsThatAreInTheFutureAgain() throws {
        var session = try started(limit: 600)
        _ = session.advance(to: at(300))
        _ = session.advance(to: at(540))
        try session.extendTimeLimit(by: 300, now: at(545))
        #expect(session.timeLimit == 900)
        #expect(session.pendingWarnings == [300, 60, 10])
        #expect(session.nextDeadline == at(600))
    }

    @Test func extendFromExpiredGivesTheSecondsFromNow() throws {
        var session = try started(limit: 30)
        _ = session.advance(to: at(100))
        #expect(session.state == .expired)
        try session.extendTimeLimit(by: 120, now: at(100))
        #expect(session.state == .active)
        #expect(session.timeRemaining(now: at(100)) == 120)
        #expect(session.pendingWarnings == [60, 10])
    }

    @Test func extendNeedsASessionWithALimit() throws {
        var idle = GuidedAccessSession()
        #expect(throws: DomainError.noSession) { try idle.extendTimeLimit(by: 5, now: t0) }
        var unlimited = try started(limit: 0)
        #expect(throws: DomainError.self) { try unlimited.extendTimeLimit(by: 5, now: t0) }
        var limited = try started(limit: 10)
        #expect(throws: DomainError.self) { try limited.extendTimeLimit(by: 0, now: t0) }
    }

    @Test func timeLimitHasAnUpperBound() throws {
        #expect(throws: DomainError.self) { try SessionOptions(timeLimit: GuidedAccessSession.maximumTimeLimit + 1) }
        _ = try SessionOptions(timeLimit: GuidedAccessSession.maximumTimeLimit)
    }

    @Test func codableRoundTripKeepsPendingWarnings() throws {
        var session = try started(limit: 600)
        _ = session.advance(to: at(300))
        let decoded = try JSONDecoder().decode(
            GuidedAccessSession.self, from: JSONEncoder().encode(session))
        #expect(decoded == session)
        #expect(decoded.startedAt == t0)
    }
}

@Suite("Loosen or tighten")
struct SessionChangePolicyTests {
    @Test func restrictionDirections() {
        #expect(SessionChangePolicy.effect(from: .deny, to: .allow) == .loosens)
        #expect(SessionChangePolicy.effect(from: .allow, to: .deny) == .tightens)
        #expect(SessionChangePolicy.effect(from: .deny, to: .deny) == .unchanged)
    }

    @Test func authorityOnlyMattersWhileLocked() {
        #expect(SessionChangePolicy.sessionAuthority(for: .loosens, sessionLocked: true) == .endSession)
        #expect(SessionChangePolicy.sessionAuthority(for: .tightens, sessionLocked: true) == .startSession)
        #expect(SessionChangePolicy.sessionAuthority(for: .unchanged, sessionLocked: true) == nil)
        #expect(SessionChangePolicy.sessionAuthority(for: .loosens, sessionLocked: false) == nil)
    }

    @Test func modelClassifiesAgainstTheRunningSession() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.setRestrictionState("deny", for: "com.example.buy")
            #expect(model.sessionAuthority(for: .setRestriction(identifier: "com.example.buy", .allow)) == nil)
            _ = try model.start(
                app: "org.example.Kiosk", timeLimit: 60, systemRestrictions: ["touch": "deny"], now: t0)
            #expect(model.sessionAuthority(for: .end) == .endSession)
            #expect(model.sessionAuthority(for: .extendTimeLimit(seconds: 10)) == .endSession)
            #expect(model.sessionAuthority(for: .setSystemRestriction(.touch, .allow)) == .endSession)
            #expect(model.sessionAuthority(for: .setSystemRestriction(.motion, .deny)) == .startSession)
            #expect(model.sessionAuthority(for: .setSystemRestriction(.touch, .deny)) == nil)
            #expect(model.sessionAuthority(for: .setRestriction(identifier: "com.example.buy", .allow)) == .endSession)
            #expect(model.sessionAuthority(for: .setRestriction(identifier: "com.example.new", .deny)) == .startSession)
        }
    }
}
