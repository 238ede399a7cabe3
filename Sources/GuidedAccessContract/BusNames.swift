// SPDX-License-Identifier: LGPL-2.1-or-later
// The bus names of the contract (DESIGN.md, version 1) as plain strings:
// the daemon, the client library and the CLI read them from here, so they
// cannot drift apart. ContractNames.swift makes them DBusKit's checked types;
// the members of each interface are declared in Interfaces.swift. The core
// never sees them: the service maps its words to these.

/// Where the service lives on the session bus.
public enum GuidedAccessBus {
    /// The well-known bus name the daemon owns.
    public static let name = "org.guidedaccess.GuidedAccess1"
    /// The service object, which is also the ObjectManager root.
    public static let objectPath = "/org/guidedaccess/GuidedAccess1"
    /// Restriction objects live below this, one path element per identifier.
    public static let restrictionPathPrefix = objectPath + "/restriction/"
}

/// The interfaces the service object and its children implement.
public enum ServiceInterface: String, Sendable, CaseIterable {
    /// Session control: `Start`, `End`, `RequestSession`, session properties.
    case session = "org.guidedaccess.GuidedAccess1"
    /// Accessibility features as properties, `SetFeature`.
    case features = "org.guidedaccess.Features1"
    /// Custom restrictions: `Register`, `SetState`, `List`, ...
    case restrictions = "org.guidedaccess.Restrictions1"
    /// One restriction object (`/restriction/<identifier>`).
    case restriction = "org.guidedaccess.Restriction1"
}

/// The error table: every `org.guidedaccess.Error.*` name the service
/// replies with. The service maps the core's errors to it; apps switch on
/// it (`GuidedAccessError.serviceError`).
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
