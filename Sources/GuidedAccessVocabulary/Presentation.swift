// SPDX-License-Identifier: LGPL-2.1-or-later
// The values of a session that are words or special numbers: how the
// locked app is shown, and when the screen blanks.

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
