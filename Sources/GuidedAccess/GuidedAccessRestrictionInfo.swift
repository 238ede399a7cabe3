// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessContract

/// One row of `Restrictions1.List`.
public struct GuidedAccessRestrictionInfo: Sendable, Hashable {
    public var identifier: String
    public var text: String
    public var detailText: String
    public var state: String
    /// The app that registered it.
    public var app: String
    /// Its registering connection is still alive.
    public var isRegistered: Bool
    /// managed.json sets its state; nobody can change it.
    public var isForced: Bool

    init(_ row: RestrictionRow, isForced: Bool) {
        identifier = row.identifier
        text = row.text
        detailText = row.detail
        state = row.state
        app = row.app
        isRegistered = row.registered
        self.isForced = isForced
    }
}
