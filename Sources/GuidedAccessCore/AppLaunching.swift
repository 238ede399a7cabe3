// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// Starts the locked app again for an enforcer that cannot start programs
/// itself (KWin's scripts): DESIGN's "the enforcer relaunches it" done
/// through the daemon, which launches only the session's own app.
public protocol AppLauncher: Sendable {
    /// Launches `app`, a session's `App`: a desktop file id or a Flatpak id
    /// (its `.desktop` file), or an executable path (the installed desktop
    /// file that runs it, else the program alone). Blocking. Throws `Failed`
    /// naming why it could not.
    func launch(_ app: String) throws(DomainError)
}

/// How often the locked app may be launched again: at most `limit` times in
/// any `period` of one session, so an app that crashes at start does not
/// flash on and off forever. A new session starts with the whole budget.
public struct LaunchBudget: Sendable {
    public static let limit = 3
    public static let period: TimeInterval = 60

    private var session: UInt64?
    private var launches: [Date] = []

    public init() {}

    /// True (and counted) when a launch at `now` in the session that
    /// started at `session` (its `StartedAt`) is within the budget.
    public mutating func take(session: UInt64, now: Date) -> Bool {
        if session != self.session {
            self.session = session
            launches = []
        }
        launches.removeAll { now.timeIntervalSince($0) >= Self.period }
        guard launches.count < Self.limit else { return false }
        launches.append(now)
        return true
    }
}
