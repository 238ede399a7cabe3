// SPDX-License-Identifier: LGPL-2.1-or-later
/// Every way a Guided Access request can fail in the domain, as a value.
///
/// The cases are precise enough that the service maps each to its own row
/// of the contract's error table, never falling back to a generic failure
/// where a precise one exists. The associated text is the complete human
/// message: it says what was wrong and what to do about it.
public enum DomainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The caller lacks the authority, or the change is forbidden by managed config.
    case permissionDenied(String)
    /// Something outside the caller's control went wrong (I/O, the desktop).
    case failed(String)
    /// An argument has the wrong form or an out-of-range value.
    case invalidArgument(String)
    /// The request needs a session, and none is active.
    case notActive(String)
    /// The request needs no session, and one is active.
    case alreadyActive(String)
    /// The caller does not own the thing it tries to change.
    case notOwner(String)
    /// The caller already holds as many registrations as it may.
    case quotaExceeded(String)
    /// Too many wrong passcodes; further attempts are refused for a while.
    case rateLimited(String)
    /// A feature name that the service does not know.
    case unknownFeature(String)

    /// This error's row in the contract's error table.
    public var kind: ServiceErrorName {
        switch self {
        case .permissionDenied: .permissionDenied
        case .failed: .failed
        case .invalidArgument: .invalidArgument
        case .notActive: .notActive
        case .alreadyActive: .alreadyActive
        case .notOwner: .notOwner
        case .quotaExceeded: .quotaExceeded
        case .rateLimited: .rateLimited
        case .unknownFeature: .unknownFeature
        }
    }

    /// The kind of failure in one word, as `audit.log` records it, e.g. `NotActive`.
    public var name: String { kind.shortName }

    /// What was wrong and what to do, for the error reply and logs.
    public var message: String {
        switch self {
        case .permissionDenied(let text), .failed(let text), .invalidArgument(let text),
             .notActive(let text), .alreadyActive(let text), .notOwner(let text),
             .quotaExceeded(let text), .rateLimited(let text), .unknownFeature(let text):
            text
        }
    }

    /// `Name: message`, for logs.
    public var description: String { "\(name): \(message)" }
}

extension DomainError {
    /// Passcode back-off: wrong guesses wait this long before the next is checked.
    public static func passcodeBackOff(seconds: UInt64) -> DomainError {
        .rateLimited("too many wrong passcodes; try again in \(seconds) second\(seconds == 1 ? "" : "s")")
    }

    /// The standard refusal for requests that need a running session.
    static let noSession = DomainError.notActive(
        "no Guided Access session is active; start one with Start first")
}
