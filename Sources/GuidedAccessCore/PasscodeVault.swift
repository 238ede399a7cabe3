// SPDX-License-Identifier: LGPL-2.1-or-later
import Crypto
import FoundationEssentials
import _CryptoExtras

/// A passcode as it is stored: never the passcode itself, only a salted,
/// slow PBKDF2-SHA256 hash and the parameters needed to check it again.
public struct PasscodeHash: Codable, Sendable, Equatable {
    /// KDF name, kept so a stronger scheme can be introduced later.
    public let algorithm: String
    /// PBKDF2 rounds used for this hash.
    public let iterations: Int
    /// Random per-passcode salt.
    public let salt: Data
    /// The derived key.
    public let hash: Data
}

/// How many wrong passcodes were entered in a row and until when further
/// attempts are refused. Persisted, so restarting the daemon does not reset it.
public struct PasscodeBackoff: Codable, Sendable, Equatable {
    /// Wrong passcodes since the last right one.
    public var consecutiveFailures: UInt32 = 0
    /// No attempt is evaluated before this time (µs since the epoch); 0 = none.
    public var lockedUntilMicroseconds: UInt64 = 0
}

/// Checks and stores the session passcode.
///
/// Guessing is slowed twice: each check costs a slow hash, and after
/// ``freeFailures`` wrong passcodes in a row attempts are refused outright
/// for a delay that doubles with each further failure.
public struct PasscodeVault: Codable, Sendable, Equatable {
    /// PBKDF2 rounds for new hashes in production (swift-crypto's own minimum).
    public static let defaultIterations = 210_000
    /// Wrong passcodes allowed before back-off starts.
    public static let freeFailures: UInt32 = 3
    /// Delay after the first back-off failure, doubling after each further one.
    public static let initialDelaySeconds: UInt64 = 5
    /// Longest delay.
    public static let maximumDelaySeconds: UInt64 = 15 * 60
    /// Shortest and longest passcode, in characters.
    public static let lengthRange = 4...64

    /// The stored hash; `nil` when no passcode is set.
    public private(set) var stored: PasscodeHash?
    /// Failure count and lock-out.
    public private(set) var backoff = PasscodeBackoff()
    /// Rounds for hashes made from now on. Not persisted: configuration, not
    /// state. Tests lower it to stay fast; existing hashes keep their own count.
    public var iterations: Int = PasscodeVault.defaultIterations

    private enum CodingKeys: String, CodingKey { case stored, backoff }

    /// An empty vault hashing with `iterations` rounds.
    public init(iterations: Int = PasscodeVault.defaultIterations) {
        self.iterations = iterations
    }

    /// True when a passcode is configured.
    public var isSet: Bool { stored != nil }

    /// Equal when the persisted parts are; the rounds for new hashes are configuration.
    public static func == (lhs: PasscodeVault, rhs: PasscodeVault) -> Bool {
        lhs.stored == rhs.stored && lhs.backoff == rhs.backoff
    }
}

// MARK: - Setting and checking

extension PasscodeVault {
    /// Replaces the passcode; throws `invalidArgument` outside 4–64 characters.
    /// Clears the back-off, because the old guesses say nothing about the new one.
    public mutating func setPasscode(_ passcode: String) throws(DomainError) {
        setPasscode(hashed: try Self.hash(passcode, iterations: iterations))
    }

    /// Stores a hash made by ``hash(_:iterations:)``, which is slow on
    /// purpose and so is best run before taking any lock.
    public mutating func setPasscode(hashed: PasscodeHash) {
        stored = hashed
        backoff = PasscodeBackoff()
    }

    /// A new salted hash of `passcode`; throws `invalidArgument` outside 4–64 characters.
    public static func hash(_ passcode: String, iterations: Int) throws(DomainError) -> PasscodeHash {
        try validate(passcode)
        let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        return try derive(passcode, salt: salt, iterations: iterations)
    }

    /// Checks `passcode`. Throws `rateLimited` while locked out (without
    /// hashing, so a refused attempt costs nothing and reveals nothing) and
    /// `permissionDenied` when it is wrong or none is set. Success resets the back-off.
    public mutating func verify(_ passcode: String, now: Date) throws(DomainError) {
        let expected = try challenge(now: now)
        try record(matched: try Self.matches(passcode, expected), against: expected, now: now)
    }

    /// The cheap first step of a check: the hash to compare against, or the
    /// refusal (`rateLimited` while locked out, `permissionDenied` when none
    /// is set). The slow comparison (`matches`) needs no vault, so callers
    /// can run it without holding whatever guards the vault.
    public func challenge(now: Date) throws(DomainError) -> PasscodeHash {
        if let wait = retryAfter(now: now) { throw .passcodeBackOff(seconds: wait) }
        guard let stored else {
            throw .permissionDenied(
                "no passcode is set; end the session with administrator authorization, or set one with SetPasscode")
        }
        return stored
    }

    /// The slow step: whether `passcode` hashes to `expected` (constant-time comparison).
    public static func matches(_ passcode: String, _ expected: PasscodeHash) throws(DomainError) -> Bool {
        let candidate = try derive(passcode, salt: expected.salt, iterations: expected.iterations)
        return constantTimeEqual(candidate.hash, expected.hash)
    }

    /// The last step: records the outcome. Throws `permissionDenied` for a
    /// wrong passcode, and `failed` when the passcode was replaced meanwhile.
    public mutating func record(matched: Bool, against expected: PasscodeHash, now: Date) throws(DomainError) {
        guard stored == expected else { throw .failed("the passcode changed while it was being checked; try again") }
        guard matched else {
            recordFailure(now: now)
            throw .permissionDenied("wrong passcode; check it and try again")
        }
        backoff = PasscodeBackoff()
    }

    /// Seconds until an attempt will be evaluated again, or `nil` when it would be now.
    public func retryAfter(now: Date) -> UInt64? {
        let nowMicros = GuidedAccessSession.microseconds(since1970: now)
        guard backoff.lockedUntilMicroseconds > nowMicros else { return nil }
        let micros = backoff.lockedUntilMicroseconds - nowMicros
        return (micros + 999_999) / 1_000_000
    }

    /// The lock-out after the `failures`-th wrong passcode in a row: none for
    /// the first two, then 5 s, 10 s, 20 s, … capped at 15 minutes.
    public static func delay(afterFailures failures: UInt32) -> UInt64 {
        guard failures >= freeFailures else { return 0 }
        let doublings = min(UInt64(failures - freeFailures), 16)
        return min(initialDelaySeconds << doublings, maximumDelaySeconds)
    }

    private mutating func recordFailure(now: Date) {
        backoff.consecutiveFailures &+= 1
        let delay = Self.delay(afterFailures: backoff.consecutiveFailures)
        guard delay > 0 else { return }
        backoff.lockedUntilMicroseconds = GuidedAccessSession.microseconds(since1970: now) + delay * 1_000_000
    }
}

// MARK: - Hashing

extension PasscodeVault {
    /// The passcode rules (length), checked without hashing anything.
    public static func validate(_ passcode: String) throws(DomainError) {
        guard lengthRange.contains(passcode.count) else {
            throw .invalidArgument(
                "the passcode has \(passcode.count) characters; use \(lengthRange.lowerBound) to \(lengthRange.upperBound)")
        }
    }

    private static func derive(_ passcode: String, salt: Data, iterations: Int) throws(DomainError) -> PasscodeHash {
        do {
            // The unchecked variant only so tests can inject a low count;
            // production uses defaultIterations, which the checked variant requires.
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(passcode.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: iterations)
            let hash = key.withUnsafeBytes { Data($0) }
            return PasscodeHash(algorithm: "pbkdf2-sha256", iterations: iterations, salt: salt, hash: hash)
        } catch {
            throw .failed("could not hash the passcode (\(error)); try again, and report this if it persists")
        }
    }

    /// Compares in time independent of where the bytes differ.
    static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
