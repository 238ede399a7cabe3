// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Passcode vault")
struct PasscodeVaultTests {
    private func vault(_ passcode: String = "2468") throws -> PasscodeVault {
        var vault = PasscodeVault(cost: testCost)
        try vault.setPasscode(passcode)
        return vault
    }

    /// The crypt string a vault stores, or nil when it holds none.
    private func cryptString(_ vault: PasscodeVault) -> String? {
        if case .crypt(let string) = vault.stored { return string }
        return nil
    }

    @Test func storesOnlyASaltedYescryptHash() throws {
        let vault = try vault("secret-passcode-4711")
        let stored = try #require(cryptString(vault))
        // $y$, parameters, 22 characters of salt, 43 of hash: the form /etc/shadow holds.
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        #expect(fields.count == 5 && fields[1] == "y", "\(stored)")
        #expect(fields.count == 5 && fields[3].count == 22 && fields[4].count == 43, "\(stored)")
        let json = try String(decoding: JSONEncoder().encode(vault), as: UTF8.self)
        #expect(json.contains(#""algorithm":"crypt""#) && json.contains(#""crypt":"$y$"#), "\(json)")
        #expect(!json.contains("secret-passcode-4711"))
        let other = try self.vault("secret-passcode-4711")
        #expect(cryptString(other) != stored, "each passcode gets its own salt")
        #expect(try PasscodeVault.matches("secret-passcode-4711", try #require(other.stored)))
    }

    @Test func defaultIsDebiansPasswordCostAndWorks() throws {
        var vault = PasscodeVault()
        #expect(vault.cost == 5)
        try vault.setPasscode("2468")
        // j9T: yescrypt's parameters at cost 5, what Debian 12's passwd writes to /etc/shadow.
        #expect(cryptString(vault)?.hasPrefix("$y$j9T$") == true, "\(String(describing: vault.stored))")
        try vault.verify("2468", now: t0)
        #expect(throws: DomainError.permissionDenied("wrong passcode; check it and try again")) {
            try vault.verify("2469", now: t0)
        }
    }

    @Test("The cost sets yescrypt's parameters; outside 1–11 nothing is hashed",
          arguments: [(1, "$y$j75$"), (2, "$y$j85$"), (3, "$y$j7T$"), (5, "$y$j9T$")])
    func costSetsParameters(cost: Int, prefix: String) throws {
        var vault = PasscodeVault(cost: cost)
        try vault.setPasscode("2468")
        #expect(cryptString(vault)?.hasPrefix(prefix) == true, "\(String(describing: vault.stored))")
        try vault.verify("2468", now: t0)
    }

    @Test(arguments: [0, 12, -1])
    func costOutsideTheRangeFails(cost: Int) {
        #expect(throws: DomainError.failed("could not hash the passcode (Invalid argument); try again, and report this if it persists")) {
            _ = try PasscodeVault.hash("2468", cost: cost)
        }
    }

    @Test func aDamagedStoredHashSaysToSetThePasscodeAgain() {
        #expect(throws: DomainError.failed("the stored passcode hash cannot be checked (Invalid argument); set the passcode again")) {
            _ = try PasscodeVault.matches("2468", .crypt("$y$not-a-hash"))
        }
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
        let right = try PasscodeVault.check("2468", against: expected, cost: testCost)
        #expect(right == PasscodeCheck(matched: true, replacement: nil), "a yescrypt hash is kept")
        #expect(try !PasscodeVault.check("1357", against: expected, cost: testCost).matched)
        // The passcode was replaced while the slow hash ran: the outcome is void.
        try vault.setPasscode("9999")
        #expect(throws: DomainError.failed("the passcode changed while it was being checked; try again")) {
            try vault.record(right, against: expected, now: t0)
        }
        #expect(vault.backoff.consecutiveFailures == 0)
        let current = try vault.challenge(now: t0)
        let wrong = PasscodeCheck(matched: false, replacement: nil)
        #expect(throws: DomainError.self) { try vault.record(wrong, against: current, now: t0) }
        #expect(vault.backoff.consecutiveFailures == 1)
    }

    @Test func noPasscodeSetIsDenied() {
        var vault = PasscodeVault(cost: testCost)
        #expect { try vault.verify("2468", now: t0) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" }
    }

    @Test(arguments: [("", false), ("123", false), ("1234", true), (String(repeating: "x", count: 64), true),
                      (String(repeating: "x", count: 65), false), ("12\u{0}34", false)])
    func lengthRules(passcode: String, valid: Bool) {
        var vault = PasscodeVault(cost: testCost)
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

@Suite("Passcode vault: PBKDF2 hashes of earlier versions")
struct LegacyPasscodeTests {
    /// Vaults as the swift-crypto (BoringSSL) PBKDF2 version wrote them to
    /// state.json, for "2468" at the 1,000 rounds tests used and the 210,000
    /// production used, and for "secret-passcode-4711".
    static let written: [(passcode: String, json: String)] = [
        ("2468", #"{"backoff":{"consecutiveFailures":0,"lockedUntilMicroseconds":0},"stored":{"algorithm":"pbkdf2-sha256","hash":"TwUN2wgngZqq4mi1O5kX8dpF0UlZSx7HakVIh6iuiIY=","iterations":1000,"salt":"NIqDQRlMitiLr\/nufMDo\/w=="}}"#),
        ("2468", #"{"backoff":{"consecutiveFailures":0,"lockedUntilMicroseconds":0},"stored":{"algorithm":"pbkdf2-sha256","hash":"I8BASRecICbddBsXoZH5jxN0WaNWFyWEDZgJYTVEF2o=","iterations":210000,"salt":"JH1PfWSHT3qbLw60PzkLtQ=="}}"#),
        ("secret-passcode-4711", #"{"backoff":{"consecutiveFailures":0,"lockedUntilMicroseconds":0},"stored":{"algorithm":"pbkdf2-sha256","hash":"jUXKXsO0zvbaKIsrQ4Z6n09\/RqrONZTr2wr3I+p8Jmk=","iterations":1000,"salt":"UX5XBEP\/uUKVVDKYvUq5KQ=="}}"#),
    ]

    static func load(_ json: String) throws -> PasscodeVault {
        var vault = try JSONDecoder().decode(PasscodeVault.self, from: Data(json.utf8))
        vault.cost = testCost
        return vault
    }

    @Test("A stored PBKDF2 hash loads, and is written back unchanged until the passcode is checked", arguments: 0..<3)
    func loadsAndSavesUnchanged(index: Int) throws {
        let vault = try Self.load(Self.written[index].json)
        #expect(vault.stored?.isLegacy == true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(vault), as: UTF8.self) == Self.written[index].json)
    }

    @Test("The right passcode is accepted and its hash replaced by yescrypt", arguments: 0..<3)
    func rightPasscodeIsRehashed(index: Int) throws {
        var vault = try Self.load(Self.written[index].json)
        try vault.verify(Self.written[index].passcode, now: t0)
        guard case .crypt(let string) = vault.stored else {
            Issue.record("still \(String(describing: vault.stored))")
            return
        }
        #expect(string.hasPrefix("$y$j75$"), "at the vault's cost: \(string)")
        // The new hash is the same passcode's.
        try vault.verify(Self.written[index].passcode, now: t0)
        #expect(throws: DomainError.self) { try vault.verify("0000", now: t0) }
    }

    @Test func wrongPasscodeKeepsTheOldHashAndCounts() throws {
        var vault = try Self.load(Self.written[0].json)
        let before = vault.stored
        #expect(throws: DomainError.permissionDenied("wrong passcode; check it and try again")) {
            try vault.verify("2469", now: t0)
        }
        #expect(vault.stored == before)
        #expect(vault.backoff.consecutiveFailures == 1)
        #expect(try PasscodeVault.check("2469", against: try #require(before), cost: testCost)
                    == PasscodeCheck(matched: false, replacement: nil))
    }

    @Test func anUnknownAlgorithmIsRefused() {
        let json = #"{"backoff":{"consecutiveFailures":0,"lockedUntilMicroseconds":0},"stored":{"algorithm":"argon2id"}}"#
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(PasscodeVault.self, from: Data(json.utf8)) }
    }

    /// RFC 7914 section 11's PBKDF2-HMAC-SHA256 vectors, and RFC 6070's
    /// inputs as published for SHA-256: the GLib HMAC verifier is PBKDF2.
    @Test(arguments: [
        ("passwd", "salt", 1, 64,
         "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
        ("Password", "NaCl", 80_000, 64,
         "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"),
        ("password", "salt", 4096, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
        ("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 40,
         "348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9"),
    ])
    func pbkdf2Vectors(password: String, salt: String, rounds: Int, length: Int, hex: String) throws {
        let key = try PasscodeVault.pbkdf2SHA256(password, salt: Data(salt.utf8), rounds: rounds, length: length)
        #expect(key.map { String(format: "%02x", $0) }.joined() == hex)
    }

    @Test func impossibleParametersAreAnErrorNotACrash() {
        #expect(throws: DomainError.self) { _ = try PasscodeVault.pbkdf2SHA256("2468", salt: Data(), rounds: 0, length: 32) }
        #expect(throws: DomainError.self) { _ = try PasscodeVault.pbkdf2SHA256("2468", salt: Data(), rounds: 1, length: 0) }
    }
}
