// SPDX-License-Identifier: LGPL-2.1-or-later
// The options `Start` takes, and the values of the two that are words or
// special numbers. `GetLastOptions` answers with the same keys.

/// A key of `Start`'s `a{sv}` options; the raw value is the key on the wire.
/// Their D-Bus types are declared with the contract (`Contract.Session.signature(of:)`).
public enum StartOption: String, Sendable, CaseIterable {
    /// `t`: seconds until the session expires, 0 for none.
    case timeLimit = "time-limit"
    /// `a{ss}`: system restriction name → `allow`/`deny`.
    case systemRestrictions = "system-restrictions"
    /// `a(iiii)`: regions where input is ignored.
    case disabledRegions = "disabled-regions"
    /// `a{ss}`: custom restriction identifier → `allow`/`deny`, for the session.
    case restrictions
    /// `s`: a ``Presentation`` raw value.
    case presentation
    /// `x`: seconds of inactivity before the screen blanks; see ``AutoLock``.
    case autoLock = "auto-lock"
    /// `b`: polkit may ask the person to authenticate.
    case interactive
}

/// How the enforcer shows the locked app's windows during a session
/// (`Presentation`, `Start` option `presentation`).
public enum Presentation: String, Codable, Sendable, CaseIterable {
    /// The windows stay as they are: the default.
    case asIs = "as-is"
    /// Maximized for the session, put back after.
    case maximized
    /// Full screen for the session, put back after.
    case fullscreen
}

/// The special values of `AutoLock` (`Start` option `auto-lock`); any other
/// value is the seconds of inactivity before the screen blanks.
public enum AutoLock {
    /// The desktop's own setting: nothing is applied. The default.
    public static let desktop: Int64 = -1
    /// The screen never blanks during the session.
    public static let never: Int64 = 0
}
