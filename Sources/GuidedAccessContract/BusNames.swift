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

