/// One custom restriction as an app declares it in `Register`.
public struct RestrictionDeclaration: Sendable, Equatable {
    /// Reverse-DNS identifier, e.g. `com.example.app.purchase`.
    public var identifier: String
    /// Short title the person reads.
    public var text: String
    /// Longer explanation; may be empty, as UIKit's detail text is optional.
    public var detail: String

    /// Bundles the three strings of one `(sss)` entry.
    public init(identifier: String, text: String, detail: String) {
        self.identifier = identifier
        self.text = text
        self.detail = detail
    }
}

/// What the registry remembers about an identifier an app once registered.
public struct RestrictionRecord: Codable, Sendable, Equatable {
    /// The identifier.
    public let identifier: String
    /// Title as last registered.
    public var text: String
    /// Detail text as last registered.
    public var detail: String
    /// App id of the last registrant.
    public var app: String
    /// The opaque id of the connection that registered it while that
    /// connection lives; `nil` once it left. Never persisted, because
    /// connections do not survive a restart.
    public var owner: String?

    /// True while the registering connection lives.
    public var registered: Bool { owner != nil }

    private enum CodingKeys: String, CodingKey { case identifier, text, detail, app }
}

/// One row of `List()`: everything known about an identifier.
public struct RestrictionListing: Sendable, Equatable {
    /// The identifier.
    public let identifier: String
    /// Title; `""` when only a state was set.
    public let text: String
    /// Detail text; may be `""`.
    public let detail: String
    /// Effective state (forced, chosen or default `allow`).
    public let state: RestrictionState
    /// App id of the last registrant; `""` when none.
    public let app: String
    /// True while the registering connection lives.
    public let registered: Bool
}

/// The custom restrictions apps declared and the states people chose for them.
///
/// States belong to identifiers, not to registrations: they survive the app
/// quitting and the daemon restarting, and an admin may set the state of an
/// identifier no app registered yet (pre-deny). States forced by managed
/// config override everything and cannot be changed here.
public struct RestrictionRegistry: Sendable, Equatable {
    /// Most live registrations one connection may hold.
    public static let registrationsPerOwner = 256

    /// Records by identifier.
    public private(set) var records: [String: RestrictionRecord] = [:]
    /// Chosen states by identifier; absent means `allow`.
    public private(set) var states: [String: RestrictionState] = [:]
    /// States forced by managed config; they win over `states`.
    public private(set) var forcedStates: [String: RestrictionState] = [:]

    /// An empty registry, or one restored from disk (all records unregistered).
    public init(
        records: [RestrictionRecord] = [], states: [String: RestrictionState] = [:],
        forcedStates: [String: RestrictionState] = [:]
    ) {
        for var record in records {
            record.owner = nil
            self.records[record.identifier] = record
        }
        self.states = states.filter { $0.value == .deny }
        self.forcedStates = forcedStates
    }

    /// Replaces the managed-config forced states (config reload).
    public mutating func setForcedStates(_ forced: [String: RestrictionState]) {
        forcedStates = forced
    }
}

// MARK: - Registration

extension RestrictionRegistry {
    /// Registers `declarations` for `owner` (an opaque connection id) on behalf
    /// of `app`. All-or-nothing: everything is checked before anything changes.
    /// Registering again updates the texts.
    public mutating func register(
        owner: String, app: String, _ declarations: [RestrictionDeclaration]
    ) throws(GuidedAccessError) {
        try AppIdentifier.validate(app)
        try Self.validate(declarations)
        try checkNoOtherOwner(owner, declarations)
        try checkQuota(owner, declarations)
        for declaration in declarations {
            records[declaration.identifier] = RestrictionRecord(
                identifier: declaration.identifier, text: declaration.text, detail: declaration.detail,
                app: app, owner: owner)
        }
    }

    /// Ends `owner`'s registration of `identifiers`; records and states stay.
    /// Throws `invalidArgument` for unknown identifiers and `notOwner` for
    /// identifiers this owner does not hold, changing nothing.
    public mutating func unregister(owner: String, identifiers: [String]) throws(GuidedAccessError) {
        for identifier in identifiers {
            guard let record = records[identifier] else {
                throw .invalidArgument(
                    "restriction \(identifier.prefix(255)) is not registered; check the identifier or call List")
            }
            guard record.owner == owner else {
                throw .notOwner(
                    "restriction \(identifier) was not registered by this connection; only its registrant may unregister it")
            }
        }
        for identifier in identifiers { records[identifier]?.owner = nil }
    }

    /// The owner's connection went away: its records become unregistered but
    /// keep their texts and states. Returns the identifiers that changed.
    @discardableResult
    public mutating func ownerLeft(_ owner: String) -> [String] {
        let left = records.values.filter { $0.owner == owner }.map(\.identifier).sorted()
        for identifier in left { records[identifier]?.owner = nil }
        return left
    }

    private static func validate(_ declarations: [RestrictionDeclaration]) throws(GuidedAccessError) {
        var seen = Set<String>()
        for declaration in declarations {
            _ = try RestrictionIdentifier(declaration.identifier)
            try PurposeText.validate(declaration.text, field: "text of \(declaration.identifier)")
            if !declaration.detail.isEmpty {
                try PurposeText.validate(declaration.detail, field: "detail text of \(declaration.identifier)")
            }
            guard seen.insert(declaration.identifier).inserted else {
                throw .invalidArgument("restriction \(declaration.identifier) is listed twice; list each identifier once")
            }
        }
    }

    private func checkNoOtherOwner(_ owner: String, _ declarations: [RestrictionDeclaration]) throws(GuidedAccessError) {
        for declaration in declarations {
            if let current = records[declaration.identifier]?.owner, current != owner {
                throw .notOwner(
                    "restriction \(declaration.identifier) is registered by another running app; use an identifier in your own namespace")
            }
        }
    }

    private func checkQuota(_ owner: String, _ declarations: [RestrictionDeclaration]) throws(GuidedAccessError) {
        let held = Set(records.values.filter { $0.owner == owner }.map(\.identifier))
        let total = held.union(declarations.map(\.identifier)).count
        guard total <= Self.registrationsPerOwner else {
            throw .quotaExceeded(
                "this connection would hold \(total) restrictions; the limit is \(Self.registrationsPerOwner), unregister some first")
        }
    }
}

// MARK: - States

extension RestrictionRegistry {
    /// The effective state; unknown identifiers are `allow`.
    public func state(of identifier: String) -> RestrictionState {
        forcedStates[identifier] ?? states[identifier] ?? .allow
    }

    /// What an app should obey: `false` only while a session is active and the state is `deny`.
    public func isAllowed(_ identifier: String, sessionActive: Bool) -> Bool {
        !(sessionActive && state(of: identifier) == .deny)
    }

    /// Sets a state; identifiers nobody registered may be set too, so an admin
    /// can pre-deny. Returns `true` when the effective state changed.
    /// Throws `permissionDenied` for a state forced by managed config.
    @discardableResult
    public mutating func setState(_ state: RestrictionState, for identifier: String) throws(GuidedAccessError) -> Bool {
        _ = try RestrictionIdentifier(identifier)
        try checkNotForced(identifier, to: state)
        let before = self.state(of: identifier)
        states[identifier] = state == .deny ? .deny : nil
        return before != state
    }

    /// Puts states back to `allow`, all of them when `identifiers` is empty
    /// (forced states are then skipped). Returns the identifiers that changed.
    public mutating func reset(_ identifiers: [String]) throws(GuidedAccessError) -> [String] {
        let targets = identifiers.isEmpty ? states.keys.filter { forcedStates[$0] == nil } : identifiers
        for identifier in identifiers {
            _ = try RestrictionIdentifier(identifier)
            try checkNotForced(identifier, to: .allow)
        }
        let changed = targets.filter { state(of: $0) == .deny }.sorted()
        for identifier in targets { states[identifier] = nil }
        return changed
    }

    /// Every identifier with a record, a chosen state or a forced state, sorted.
    public func list() -> [RestrictionListing] {
        let identifiers = Set(records.keys).union(states.keys).union(forcedStates.keys).sorted()
        return identifiers.map { identifier in
            let record = records[identifier]
            return RestrictionListing(
                identifier: identifier, text: record?.text ?? "", detail: record?.detail ?? "",
                state: state(of: identifier), app: record?.app ?? "", registered: record?.registered ?? false)
        }
    }

    private func checkNotForced(_ identifier: String, to state: RestrictionState) throws(GuidedAccessError) {
        if let forced = forcedStates[identifier], forced != state {
            throw .permissionDenied(
                "restriction \(identifier) is forced to \(forced.rawValue) by the administrator in managed.json "
                    + "(\(ManagedConfig.defaultPath) by default); change it there")
        }
    }
}
