// SPDX-License-Identifier: LGPL-2.1-or-later
/// Something observable that a model call changed, for the service to turn
/// into signals. Only real changes are reported: setting a value to what it
/// already was reports nothing.
public enum ModelChange: Sendable, Equatable {
    /// A session started (`true`) or ended (`false`).
    case statusChanged(enabled: Bool)
    /// These session properties have new values; re-read them through the getters.
    case sessionPropertiesChanged([SessionProperty])
    /// An identifier became known (registered, pre-set or forced): export its object.
    case restrictionAdded(identifier: String)
    /// An identifier is no longer known (a pre-set state was reset): remove its object.
    case restrictionRemoved(identifier: String)
    /// Text, detail, app or registered flag of a restriction changed.
    case restrictionRecordChanged(identifier: String)
    /// The effective state of a restriction changed.
    case restrictionChanged(identifier: String, state: RestrictionState)
    /// A feature's value changed.
    case featureChanged(Feature, Bool)
    /// This many seconds are left before the time limit.
    case timeLimitWarning(secondsLeft: UInt64)
    /// The time limit was reached; the session is now `expired`.
    case timeExpired
}
