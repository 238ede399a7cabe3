// SPDX-License-Identifier: LGPL-2.1-or-later
import CCrypt
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A passcode as it is stored: never the passcode itself, only a salted,
/// slow hash that says how to check it again.
public enum PasscodeHash: Sendable, Equatable {
    /// A crypt(5) string made by libxcrypt, as in `/etc/shadow`: yescrypt
    /// (`$y$…`), Debian 12's password hash, for every new passcode.
    case crypt(String)
    /// PBKDF2-HMAC-SHA256, as versions before yescrypt stored the passcode.
    /// Still checked, and replaced by a yescrypt hash at the next right passcode.
    case pbkdf2SHA256(rounds: Int, salt: Data, key: Data)

    /// True for a hash in a scheme new passcodes no longer use.
    public var isLegacy: Bool {
        if case .pbkdf2SHA256 = self { return true }
        return false
    }
}

extension PasscodeHash: Codable {
    // The PBKDF2 keys are those earlier versions wrote, so their state files load.
    private enum CodingKeys: String, CodingKey { case algorithm, crypt, iterations, salt, hash }
    private static let cryptName = "crypt", pbkdf2Name = "pbkdf2-sha256"

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .algorithm) {
        case Self.cryptName:
            self = .crypt(try container.decode(String.self, forKey: .crypt))
        case Self.pbkdf2Name:
            self = .pbkdf2SHA256(rounds: try container.decode(Int.self, forKey: .iterations),
                                 salt: try container.decode(Data.self, forKey: .salt),
                                 key: try container.decode(Data.self, forKey: .hash))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .algorithm, in: container,
                debugDescription: "unknown passcode hash '\(other)'; set the passcode again")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .crypt(let string):
            try container.encode(Self.cryptName, forKey: .algorithm)
            try container.encode(string, forKey: .crypt)
        case .pbkdf2SHA256(let rounds, let salt, let key):
            try container.encode(Self.pbkdf2Name, forKey: .algorithm)
            try container.encode(rounds, forKey: .iterations)
            try container.encode(salt, forKey: .salt)
            try container.encode(key, forKey: .hash)
        }
    }
}

/// The outcome of the slow step of a passcode check (``PasscodeVault/check(_:against:cost:)``).
public struct PasscodeCheck: Sendable, Equatable {
    /// Whether the passcode was the right one.
    public let matched: Bool
    /// The right passcode hashed anew, when the stored hash was ``PasscodeHash/isLegacy``.
    public let replacement: PasscodeHash?
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
/// Guessing is slowed twice: each check costs a slow, memory-hard hash, and after
/// ``freeFailures`` wrong passcodes in a row attempts are refused outright
/// for a delay that doubles with each further failure.
public struct PasscodeVault: Codable, Sendable, Equatable {
    /// yescrypt's cost for new hashes in production: Debian's default for
    /// `/etc/shadow` (YESCRYPT_COST_FACTOR 5: 16 MiB and some 14 ms per check on the test machine).
    public static let defaultCost = 5
    /// The costs libxcrypt's yescrypt takes; each step doubles time and memory.
    public static let costRange = 1...11
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
    /// yescrypt cost for hashes made from now on. Not persisted: configuration,
    /// not state. Tests lower it to stay fast; existing hashes keep their own.
    public var cost: Int = PasscodeVault.defaultCost

    private enum CodingKeys: String, CodingKey { case stored, backoff }

    /// An empty vault hashing at yescrypt `cost` (``costRange``).
    public init(cost: Int = PasscodeVault.defaultCost) {
        self.cost = cost
    }

    /// True when a passcode is configured.
    public var isSet: Bool { stored != nil }

    /// Equal when the persisted parts are; the cost of new hashes is configuration.
    public static func == (lhs: PasscodeVault, rhs: PasscodeVault) -> Bool {
        lhs.stored == rhs.stored && lhs.backoff == rhs.backoff
    }
}

// MARK: - Setting and checking

extension PasscodeVault {
    /// Replaces the passcode; throws `invalidArgument` outside 4–64 characters.
    /// Clears the back-off, because the old guesses say nothing about the new one.
    public mutating func setPasscode(_ passcode: String) throws(DomainError) {
        setPasscode(hashed: try Self.hash(passcode, cost: cost))
    }

    /// Stores a hash made by ``hash(_:cost:)``, which is slow on
    /// purpose and so is best run before taking any lock.
    public mutating func setPasscode(hashed: PasscodeHash) {
        stored = hashed
        backoff = PasscodeBackoff()
    }

    /// A new yescrypt hash of `passcode` with a random salt at `cost`;
    /// throws `invalidArgument` outside 4–64 characters.
    public static func hash(_ passcode: String, cost: Int) throws(DomainError) -> PasscodeHash {
        try validate(passcode)
        var output = [CChar](repeating: 0, count: Int(CCRYPT_OUTPUT_SIZE))
        let status = ccrypt_hash_yescrypt(passcode, UInt(clamping: cost), &output, output.count)
        guard status == 0 else {
            throw .failed("could not hash the passcode (\(String(cString: strerror(status)))); try again, and report this if it persists")
        }
        return .crypt(String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Checks `passcode`. Throws `rateLimited` while locked out (without
    /// hashing, so a refused attempt costs nothing and reveals nothing) and
    /// `permissionDenied` when it is wrong or none is set. Success resets the back-off.
    /// A right passcode checked against a legacy hash is stored anew as yescrypt.
    public mutating func verify(_ passcode: String, now: Date) throws(DomainError) {
        let expected = try challenge(now: now)
        try record(try Self.check(passcode, against: expected, cost: cost), against: expected, now: now)
    }

    /// The cheap first step of a check: the hash to compare against, or the
    /// refusal (`rateLimited` while locked out, `permissionDenied` when none
    /// is set). The slow comparison (``check(_:against:cost:)``) needs no vault, so callers
    /// can run it without holding whatever guards the vault.
    public func challenge(now: Date) throws(DomainError) -> PasscodeHash {
        if let wait = retryAfter(now: now) { throw .passcodeBackOff(seconds: wait) }
        guard let stored else {
            throw .permissionDenied(
                "no passcode is set; end the session with administrator authorization, or set one with SetPasscode")
        }
        return stored
    }

    /// The slow step: whether `passcode` hashes to `expected`, and when it
    /// does and `expected` is a legacy hash, the passcode hashed anew at `cost`
    /// (slow too, so it runs here, outside whatever guards the vault).
    public static func check(_ passcode: String, against expected: PasscodeHash, cost: Int) throws(DomainError) -> PasscodeCheck {
        let matched = try matches(passcode, expected)
        // A replacement that cannot be made leaves the old hash, which still works.
        let replacement = matched && expected.isLegacy ? try? hash(passcode, cost: cost) : nil
        return PasscodeCheck(matched: matched, replacement: replacement)
    }

    /// Whether `passcode` hashes to `expected` (constant-time comparison).
    public static func matches(_ passcode: String, _ expected: PasscodeHash) throws(DomainError) -> Bool {
        switch expected {
        case .crypt(let stored):
            let result = ccrypt_matches(passcode, stored), reason = errno
            guard result >= 0 else {
                throw .failed("the stored passcode hash cannot be checked (\(String(cString: strerror(reason)))); set the passcode again")
            }
            return result == 1
        case .pbkdf2SHA256(let rounds, let salt, let key):
            return constantTimeEqual(try pbkdf2SHA256(passcode, salt: salt, rounds: rounds, length: key.count), key)
        }
    }

    /// The last step: records the outcome, storing ``PasscodeCheck/replacement``
    /// when there is one. Throws `permissionDenied` for a wrong passcode, and
    /// `failed` when the passcode was replaced meanwhile.
    public mutating func record(_ check: PasscodeCheck, against expected: PasscodeHash, now: Date) throws(DomainError) {
        guard stored == expected else { throw .failed("the passcode changed while it was being checked; try again") }
        guard check.matched else {
            recordFailure(now: now)
            throw .permissionDenied("wrong passcode; check it and try again")
        }
        backoff = PasscodeBackoff()
        if let replacement = check.replacement { stored = replacement }
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
    /// The passcode rules (length, no NUL), checked without hashing anything.
    public static func validate(_ passcode: String) throws(DomainError) {
        guard lengthRange.contains(passcode.count) else {
            throw .invalidArgument(
                "the passcode has \(passcode.count) characters; use \(lengthRange.lowerBound) to \(lengthRange.upperBound)")
        }
        // crypt(3) takes a C string: what followed a NUL would not count.
        guard !passcode.utf8.contains(0) else {
            throw .invalidArgument("the passcode contains a NUL character; use printable characters")
        }
    }

    /// PBKDF2-HMAC-SHA256 of `passcode`'s UTF-8 bytes, as earlier versions derived it.
    static func pbkdf2SHA256(_ passcode: String, salt: Data, rounds: Int, length: Int) throws(DomainError) -> Data {
        guard let rounds = UInt32(exactly: rounds), rounds > 0, (1...1024).contains(length) else {
            throw .failed("the stored passcode hash has \(rounds) rounds and \(length) bytes, which cannot be; set the passcode again")
        }
        var key = Data(count: length)
        let password = Array(passcode.utf8), saltBytes = Array(salt)
        _ = key.withUnsafeMutableBytes { output in
            ccrypt_pbkdf2_sha256(password, password.count, saltBytes, saltBytes.count, rounds,
                                 output.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
        }
        return key
    }

    /// Compares in time independent of where the bytes differ.
    static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
