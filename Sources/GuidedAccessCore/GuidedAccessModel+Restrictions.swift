// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

extension GuidedAccessModel {
    /// `Register`: declares restrictions for connection `owner` on behalf of `app`.
    public mutating func register(
        owner: String, app: String, _ declarations: [RestrictionDeclaration]
    ) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            try model.registry.register(owner: owner, app: app, declarations)
            return []
        }
    }

    /// `Unregister`: only the registering connection may; records and states stay.
    public mutating func unregister(owner: String, identifiers: [String]) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            try model.registry.unregister(owner: owner, identifiers: identifiers)
            return []
        }
    }

    /// The connection `owner` closed: its restrictions become unregistered,
    /// keeping texts and states. Cannot fail: ownership is never persisted.
    public mutating func ownerLeft(_ owner: String) -> [ModelChange] {
        let changes = try? commit { (model) throws(DomainError) in
            model.registry.ownerLeft(owner)
            return []
        }
        return changes ?? []
    }

    /// `GetState`: unknown identifiers are `allow`.
    public func restrictionState(of identifier: String) -> RestrictionState {
        registry.state(of: identifier)
    }

    /// `IsAllowed`: false only while a session runs and the state is `deny`.
    public func isRestrictionAllowed(_ identifier: String) -> Bool {
        registry.isAllowed(identifier, sessionActive: session.isLocked)
    }

    /// `SetState`: any valid identifier, registered or not (pre-deny).
    /// Throws `permissionDenied` for states forced by managed config.
    public mutating func setRestrictionState(_ state: String, for identifier: String) throws(DomainError) -> [ModelChange] {
        let parsed = try RestrictionState(parsing: state)
        return try commit { (model) throws(DomainError) in
            try model.registry.setState(parsed, for: identifier)
            return []
        }
    }

    /// `Reset`: back to `allow`; all of them when `identifiers` is empty.
    public mutating func resetRestrictions(_ identifiers: [String]) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            _ = try model.registry.reset(identifiers)
            return []
        }
    }

    /// `List`: every known identifier, sorted.
    public func restrictions() -> [RestrictionListing] { registry.list() }

    /// One restriction's row, for its object's properties; `nil` when unknown.
    public func restriction(_ identifier: String) -> RestrictionListing? {
        registry.listing(of: identifier)
    }
}
