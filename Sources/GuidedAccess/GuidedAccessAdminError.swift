// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract

/// Why an administrative request failed, with the service's own message.
public struct GuidedAccessAdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failure classes a script may want to tell apart.
    public enum Reason: Sendable, Hashable {
        /// polkit or the service said no (`PermissionDenied`, bus `AccessDenied`).
        case permissionDenied
        /// polkit would ask the person, but the call did not allow interaction.
        case interactiveAuthorizationRequired
        /// The bus or the service cannot be reached.
        case serviceUnavailable
        /// The request needs an active session (`NotActive`).
        case notActive
        /// The request needs no session (`AlreadyActive`).
        case alreadyActive
        /// The caller does not own what it tries to change (`NotOwner`).
        case notOwner
        /// Too many wrong passcodes (`RateLimited`).
        case rateLimited
        /// An argument was refused (`InvalidArgument`, `UnknownFeature`).
        case invalidArgument
        /// Too many registrations (`QuotaExceeded`).
        case quotaExceeded
        /// Anything else (`Failed`, timeouts, unexpected replies).
        case failed
    }

    /// The failure class.
    public let reason: Reason
    /// The D-Bus error name, or "" for failures found locally.
    public let name: String
    /// The service's error, from the contract's table; `nil` when the
    /// failure came from elsewhere (the bus, a timeout, this process).
    public var serviceError: ServiceErrorName? { ServiceErrorName(rawValue: name) }
    /// What was wrong, as the service or the bus said it.
    public let message: String

    /// Creates an error.
    public init(reason: Reason, name: String, message: String) {
        self.reason = reason
        self.name = name
        self.message = message
    }

    /// Classifies a `DBusError` by its name.
    init(_ error: any Error) {
        if let error = error as? GuidedAccessAdminError { self = error; return }
        guard let error = error as? DBusError else {
            self.init(reason: .failed, name: "", message: String(describing: error))
            return
        }
        let name = error.name.rawValue
        let reason: Reason
        if let serviceError = ServiceErrorName(error) {
            reason = switch serviceError {
            case .permissionDenied: .permissionDenied
            case .notActive: .notActive
            case .alreadyActive: .alreadyActive
            case .notOwner: .notOwner
            case .rateLimited: .rateLimited
            case .invalidArgument, .unknownFeature: .invalidArgument
            case .quotaExceeded: .quotaExceeded
            case .failed: .failed
            }
        } else {
            switch error.name {
            case .accessDenied: reason = .permissionDenied
            case .interactiveAuthorizationRequired: reason = .interactiveAuthorizationRequired
            case .invalidArgs: reason = .invalidArgument
            case .serviceUnknown, .nameHasNoOwner, .disconnected, .noServer: reason = .serviceUnavailable
            case let other: reason = other.isSpawnFailure ? .serviceUnavailable : .failed
            }
        }
        self.init(reason: reason, name: name, message: error.message)
    }

    public var description: String { message }
}
