// SPDX-License-Identifier: LGPL-2.1-or-later
/// A change someone proposes to a running session, to be classified before
/// asking polkit.
public enum ProposedChange: Sendable, Equatable {
    /// End the session.
    case end
    /// Add time to the session.
    case extendTimeLimit(seconds: UInt64)
    /// Set one built-in restriction.
    case setSystemRestriction(SystemRestriction, RestrictionState)
    /// Set one custom restriction.
    case setRestriction(identifier: String, RestrictionState)
}

/// Whether a change gives the locked person more freedom or less.
public enum ChangeEffect: Sendable, Equatable {
    /// More freedom: needs the authority that could end the session.
    case loosens
    /// Less freedom: needs the authority that could start one.
    case tightens
    /// The change would not alter anything.
    case unchanged
}

/// The rule "while a session is active, whatever loosens it needs end-session
/// authority; tightening needs start-session authority", kept in one place so
/// every handler applies it the same way.
public enum SessionChangePolicy {
    /// The effect of moving one restriction from `current` to `proposed`.
    public static func effect(from current: RestrictionState, to proposed: RestrictionState) -> ChangeEffect {
        switch (current, proposed) {
        case (.deny, .allow): .loosens
        case (.allow, .deny): .tightens
        default: .unchanged
        }
    }

    /// The extra polkit action a change needs because a session is running,
    /// or `nil` when no session is running or nothing would change.
    public static func sessionAuthority(for effect: ChangeEffect, sessionLocked: Bool) -> AdminAction? {
        guard sessionLocked else { return nil }
        switch effect {
        case .loosens: return .endSession
        case .tightens: return .startSession
        case .unchanged: return nil
        }
    }
}
