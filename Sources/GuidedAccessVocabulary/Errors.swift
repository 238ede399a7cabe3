// SPDX-License-Identifier: LGPL-2.1-or-later
/// The error table: every `org.guidedaccess.Error.*` name the service
/// replies with. Each domain error has its row (`DomainError.kind`); apps
/// switch on it (`GuidedAccessError.serviceError`).
public enum ServiceErrorName: String, Sendable, CaseIterable {
    /// The caller lacks the authority, or managed config forbids the change.
    case permissionDenied = "org.guidedaccess.Error.PermissionDenied"
    /// Something outside the caller's control went wrong (I/O, the desktop).
    case failed = "org.guidedaccess.Error.Failed"
    /// An argument has the wrong form or an out-of-range value.
    case invalidArgument = "org.guidedaccess.Error.InvalidArgument"
    /// The request needs a session, and none is active.
    case notActive = "org.guidedaccess.Error.NotActive"
    /// The request needs no session, and one is active.
    case alreadyActive = "org.guidedaccess.Error.AlreadyActive"
    /// The caller does not own the thing it tries to change.
    case notOwner = "org.guidedaccess.Error.NotOwner"
    /// A registration cap (per connection, per app, in total) is reached.
    case quotaExceeded = "org.guidedaccess.Error.QuotaExceeded"
    /// Too many calls in flight, polkit busy, or passcode back-off.
    case rateLimited = "org.guidedaccess.Error.RateLimited"
    /// A feature name the service does not know.
    case unknownFeature = "org.guidedaccess.Error.UnknownFeature"
}

extension ServiceErrorName {
    /// The kind of failure in one word, e.g. `NotActive`: the name's last
    /// part, as `audit.log` records it.
    public var shortName: String { String(rawValue.split(separator: ".").last!) }
}
