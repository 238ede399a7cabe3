// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Passcode vault")
struct PasscodeVaultTests {
    private func vault(_ passcode: String = "2468") throws -> PasscodeVault {
        var vault = PasscodeVault(iterations: testIterations)
        try vault.setPasscode(passcode)
        return vault
    }

    @Test func storesOnlyASaltedHash() throws {
        let vault = try vault("secret-passcode-4711")
        let stored = try #require(vault.stored)
        #expect(stored.salt.count == 16)
        #expect(stored.hash.count == 32)
        #expect(stored.algorithm == "pbkdf2-sha256")
        let json = try String(decoding: JSONEncoder().encode(vault), as: UTF8.self)
        #expect(!json.contains("secret-passcode-4711"))
        #expect(!json.contains(Data("secret-passcode-4711".utf8).base64EncodedString()))
        let other = try self.vault("secret-passcode-4711")
        #expect(other.stored?.salt != stored.salt, "each passcode gets its own salt")
        #expect(other.stored?.hash != stored.hash)
    }

    @Test func defaultIsStrongAndWorks() throws {
        var vault = PasscodeVault()
        #expect(vault.iterations >= 100_000)
        try vault.setPasscode("2468")
        #expect(vault.stored?.iterations == PasscodeVault.defaultIterations)
        try vault.verify("2468", now: t0)
    }

    @Test func rightAndWrong() throws {
        var vault = try vault()
        try vault.verify("2468", now: t0)
        #expect(throws: DomainError.permissionDenied("wrong passcode; check it and try again")) {
            try vault.verify("1357", now: t0)
        }
        #expect(vault.backoff.consecutiveFailures == 1)
    }

    @Test func splitCheckRecordsAgainstTheHashItChecked() throws {
        var vault = try vault()
        let expected = try vault.challenge(now: t0)
        #expect(try PasscodeVault.matches("2468", expected))
        #expect(try !PasscodeVault.matches("1357", expected))
        // The passcode was replaced while the slow hash ran: the outcome is void.
        try vault.setPasscode("9999")
        #expect(throws: DomainError.failed("the passcode changed while it was being checked; try again")) {
            try vault.record(matched: true, against: expected, now: t0)
        }
        #expect(vault.backoff.consecutiveFailures == 0)
        let current = try vault.challenge(now: t0)
        #expect(throws: DomainError.self) { try vault.record(matched: false, against: current, now: t0) }
        #expect(vault.backoff.consecutiveFailures == 1)
    }

    @Test func noPasscodeSetIsDenied() {
        var vault = PasscodeVault(iterations: testIterations)
        #expect { try vault.verify("2468", now: t0) } throws: { ($0 as? DomainError)?.errorName.shortName == "PermissionDenied" }
    }

    @Test(arguments: [("", false), ("123", false), ("1234", true), (String(repeating: "x", count: 64), true),
                      (String(repeating: "x", count: 65), false)])
    func lengthRules(passcode: String, valid: Bool) {
        var vault = PasscodeVault(iterations: testIterations)
        if valid {
            #expect(throws: Never.self) { try vault.setPasscode(passcode) }
        } else {
            #expect(throws: DomainError.self) { try vault.setPasscode(passcode) }
        }
    }

    @Test func delaysDoubleAfterThreeFailuresAndCapAtFifteenMinutes() {
        #expect((1...9).map { PasscodeVault.delay(afterFailures: $0) } == [0, 0, 5, 10, 20, 40, 80, 160, 320])
        #expect(PasscodeVault.delay(afterFailures: 11) == 900)
        #expect(PasscodeVault.delay(afterFailures: 40) == 900)
        #expect(PasscodeVault.delay(afterFailures: .max) == 900)
    }

    @Test func backOffRefusesWithoutEvaluatingAndSuccessResets() throws {
        var vault = try vault()
        for _ in 0..<3 { #expect(throws: DomainError.self) { try vault.verify("0000", now: t0) } }
        // Locked out for 5 s: even the right passcode is not evaluated.
        #expect(throws: DomainError.passcodeBackOff(seconds: 5)) { try vault.verify("2468", now: t0) }
        #expect(throws: DomainError.passcodeBackOff(seconds: 1)) { try vault.verify("0000", now: at(4.5)) }
        #expect(vault.backoff.consecutiveFailures == 3, "refused attempts are not counted")
        // The fourth failure doubles the delay.
        #expect(throws: DomainError.permissionDenied("wrong passcode; check it and try again")) {
            try vault.verify("0000", now: at(5))
        }
        #expect(vault.retryAfter(now: at(5)) == 10)
        try vault.verify("2468", now: at(15))
        #expect(vault.backoff == PasscodeBackoff())
        #expect(throws: DomainError.permissionDenied("wrong passcode; check it and try again")) {
            try vault.verify("0000", now: at(15))
        }
    }

    @Test func constantTimeCompare() {
        #expect(PasscodeVault.constantTimeEqual(Data([1, 2, 3]), Data([1, 2, 3])))
        #expect(!PasscodeVault.constantTimeEqual(Data([1, 2, 3]), Data([1, 2, 4])))
        #expect(!PasscodeVault.constantTimeEqual(Data([1, 2]), Data([1, 2, 3])))
    }
}
