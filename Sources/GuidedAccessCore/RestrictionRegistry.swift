// SPDX-License-Identifier: LGPL-2.1-or-later
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
    /// When it was last registered, as a registry-wide counter: the least
    /// recently registered of the records nobody decided on are forgotten first.
    public var sequence: UInt64

    /// True while the registering connection lives.
    public var registered: Bool { owner != nil }

    private enum CodingKeys: String, CodingKey { case identifier, text, detail, app, sequence }

    public init(identifier: String, text: String, detail: String, app: String, owner: String?, sequence: UInt64) {
        self.identifier = identifier
        self.text = text
        self.detail = detail
        self.app = app
        self.owner = owner
        self.sequence = sequence
    }

    /// Whether `state.json` would hold the same for both (the live owner is not kept).
    static func sameOnDisk(_ lhs: RestrictionRecord?, _ rhs: RestrictionRecord?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        return lhs.identifier == rhs.identifier && lhs.text == rhs.text && lhs.detail == rhs.detail && lhs.app == rhs.app
            && lhs.sequence == rhs.sequence
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decode(String.self, forKey: .identifier)
        text = try container.decode(String.self, forKey: .text)
        detail = try container.decode(String.self, forKey: .detail)
        app = try container.decode(String.self, forKey: .app)
        // Files written before eviction existed have no sequence: they count as oldest.
        sequence = try container.decodeIfPresent(UInt64.self, forKey: .sequence) ?? 0
        owner = nil
    }
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
///
/// Every per-identifier operation is a dictionary lookup; live registrations
/// are indexed by owner and counted by app, so a registration or a
/// disconnect costs what it touches, not what the registry holds. What it
/// may hold is bounded by ``RegistrationLimits``.
public struct RestrictionRegistry: Sendable {
    /// Records by identifier.
    public private(set) var records: [String: RestrictionRecord] = [:]
    /// Chosen states by identifier; absent means `allow`.
    public private(set) var states: [String: RestrictionState] = [:]
    /// States forced by managed config; they win over `states`.
    public private(set) var forcedStates: [String: RestrictionState] = [:]
    /// The caps.
    public var limits: RegistrationLimits
    /// Identifiers whose record or state changed since ``takeTouched()``.
    private(set) var touched: Set<String> = []

    private var liveByOwner: [String: Set<String>] = [:]
    private var liveCountByApp: [String: Int] = [:]
    private var liveCount = 0
    private var nextSequence: UInt64 = 1

    /// An empty registry, or one restored from disk (all records unregistered).
    public init(
        records: [RestrictionRecord] = [], states: [String: RestrictionState] = [:],
        forcedStates: [String: RestrictionState] = [:], limits: RegistrationLimits = RegistrationLimits()
    ) {
        for var record in records {
            record.owner = nil
            self.records[record.identifier] = record
            nextSequence = max(nextSequence, record.sequence + 1)
        }
        self.states = states.filter { $0.value == .deny }
        self.forcedStates = forcedStates
        self.limits = limits
        forgetUndecided()
        touched = []
    }

    /// Replaces the managed-config forced states (config reload).
    public mutating func setForcedStates(_ forced: [String: RestrictionState]) {
        touched.formUnion(forced.keys)
        touched.formUnion(forcedStates.keys)
        forcedStates = forced
    }

    /// The identifiers changed since the last call, and forgets them.
    mutating func takeTouched() -> Set<String> {
        defer { touched = [] }
        return touched
    }

    /// Live registrations held by `app` across its connections.
    public func liveRegistrations(of app: String) -> Int { liveCountByApp[app] ?? 0 }
}

extension RestrictionRegistry: Equatable {
    /// Equal when they hold the same records, states and limits (indexes follow from those).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.records == rhs.records && lhs.states == rhs.states && lhs.forcedStates == rhs.forcedStates
            && lhs.limits == rhs.limits
    }
}

// MARK: - Registration

extension RestrictionRegistry {
    /// Registers `declarations` for `owner` (an opaque connection id) on behalf
    /// of `app`. All-or-nothing: everything, caps included, is checked before
    /// anything changes. Registering again updates the texts.
    public mutating func register(
        owner: String, app: String, _ declarations: [RestrictionDeclaration]
    ) throws(DomainError) {
        try AppIdentifier.validate(app)
        try Self.validate(declarations)
        try checkNoOtherOwner(owner, declarations)
        try checkLimits(owner, app, declarations)
        for declaration in declarations {
            let previous = records[declaration.identifier]
            if previous?.owner != owner { addLive(declaration.identifier, owner: owner, app: app) }
            else if previous?.app != app { moveLive(from: previous!.app, to: app) }
            records[declaration.identifier] = RestrictionRecord(
                identifier: declaration.identifier, text: declaration.text, detail: declaration.detail,
                app: app, owner: owner, sequence: nextSequence)
            nextSequence += 1
            touched.insert(declaration.identifier)
        }
    }

    /// Ends `owner`'s registration of `identifiers`; records and states stay.
    /// Throws `invalidArgument` for unknown identifiers and `notOwner` for
    /// identifiers this owner does not hold, changing nothing.
    public mutating func unregister(owner: String, identifiers: [String]) throws(DomainError) {
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
        for identifier in Set(identifiers) { removeLive(identifier) }
        forgetUndecided()
    }

    /// The owner's connection went away: its records become unregistered but
    /// keep their texts and states. Returns the identifiers that changed.
    @discardableResult
    public mutating func ownerLeft(_ owner: String) -> [String] {
        let left = (liveByOwner[owner] ?? []).sorted()
        for identifier in left { removeLive(identifier) }
        forgetUndecided()
        return left
    }

    private mutating func addLive(_ identifier: String, owner: String, app: String) {
        liveByOwner[owner, default: []].insert(identifier)
        liveCountByApp[app, default: 0] += 1
        liveCount += 1
    }

    private mutating func moveLive(from oldApp: String, to app: String) {
        decrement(oldApp)
        liveCountByApp[app, default: 0] += 1
    }

    private mutating func removeLive(_ identifier: String) {
        guard let record = records[identifier], let owner = record.owner else { return }
        liveByOwner[owner]?.remove(identifier)
        if liveByOwner[owner]?.isEmpty == true { liveByOwner[owner] = nil }
        decrement(record.app)
        liveCount -= 1
        records[identifier]?.owner = nil
        touched.insert(identifier)
    }

    private mutating func decrement(_ app: String) {
        let count = (liveCountByApp[app] ?? 1) - 1
        liveCountByApp[app] = count > 0 ? count : nil
    }

    /// A record is only a title when its app left and nobody decided its
    /// state. Past `rememberedTitles` of those, the least recently
    /// registered go; the scan runs only when the bound can be exceeded.
    private mutating func forgetUndecided() {
        guard records.count - liveCount > limits.rememberedTitles else { return }
        let undecided = records.values.filter { !$0.registered && states[$0.identifier] == nil && forcedStates[$0.identifier] == nil }
        guard undecided.count > limits.rememberedTitles else { return }
        for record in undecided.sorted(by: { $0.sequence < $1.sequence }).prefix(undecided.count - limits.rememberedTitles) {
            records[record.identifier] = nil
            touched.insert(record.identifier)
        }
        records.shrinkIfSparse()
    }

    private static func validate(_ declarations: [RestrictionDeclaration]) throws(DomainError) {
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

    private func checkNoOtherOwner(_ owner: String, _ declarations: [RestrictionDeclaration]) throws(DomainError) {
        for declaration in declarations {
            if let current = records[declaration.identifier]?.owner, current != owner {
                throw .notOwner(
                    "restriction \(declaration.identifier) is registered by another running app; use an identifier in your own namespace")
            }
        }
    }

    /// Each cap is checked against what the registration would leave, and
    /// named with its value when it would be exceeded.
    private func checkLimits(_ owner: String, _ app: String, _ declarations: [RestrictionDeclaration]) throws(DomainError) {
        let held = liveByOwner[owner] ?? []
        let added = declarations.filter { !held.contains($0.identifier) }.count
        // Re-registering under another app id moves those rows to this app.
        let moved = declarations.filter { held.contains($0.identifier) && records[$0.identifier]?.app != app }.count
        let checks: [(Int, Int, String, String)] = [
            (held.count + added, limits.perConnection, "PerConnection", "this connection"),
            (liveRegistrations(of: app) + added + moved, limits.perApp, "PerApp", "app \(app) across its connections"),
            (liveCount + added, limits.total, "Total", "this user's apps together"),
        ]
        for (wouldHold, cap, key, who) in checks where wouldHold > cap {
            throw .quotaExceeded(
                "\(who) would hold \(wouldHold) live restrictions; the limit is \(cap) (\(key) in managed.json's Limits); "
                    + "unregister some first")
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
    public mutating func setState(_ state: RestrictionState, for identifier: String) throws(DomainError) -> Bool {
        _ = try RestrictionIdentifier(identifier)
        try checkNotForced(identifier, to: state)
        let before = self.state(of: identifier)
        states[identifier] = state == .deny ? .deny : nil
        touched.insert(identifier)
        return before != state
    }

    /// Puts states back to `allow`, all of them when `identifiers` is empty
    /// (forced states are then skipped). Returns the identifiers that changed.
    public mutating func reset(_ identifiers: [String]) throws(DomainError) -> [String] {
        let targets = identifiers.isEmpty ? states.keys.filter { forcedStates[$0] == nil } : identifiers
        for identifier in identifiers {
            _ = try RestrictionIdentifier(identifier)
            try checkNotForced(identifier, to: .allow)
        }
        let changed = targets.filter { state(of: $0) == .deny }.sorted()
        for identifier in targets { states[identifier] = nil }
        touched.formUnion(targets)
        forgetUndecided()
        return changed
    }

    /// Every identifier with a record, a chosen state or a forced state, sorted.
    public func list() -> [RestrictionListing] {
        // Each identifier once: every record's, then those only chosen, then those only forced.
        var identifiers = Array(records.keys)
        identifiers += states.keys.filter { records[$0] == nil }
        identifiers += forcedStates.keys.filter { records[$0] == nil && states[$0] == nil }
        return identifiers.sorted().compactMap(listing(of:))
    }

    /// One identifier's row, by lookup; `nil` when nothing is known of it.
    public func listing(of identifier: String) -> RestrictionListing? {
        let record = records[identifier]
        guard record != nil || states[identifier] != nil || forcedStates[identifier] != nil else { return nil }
        return RestrictionListing(
            identifier: identifier, text: record?.text ?? "", detail: record?.detail ?? "",
            state: state(of: identifier), app: record?.app ?? "", registered: record?.registered ?? false)
    }

    private func checkNotForced(_ identifier: String, to state: RestrictionState) throws(DomainError) {
        if let forced = forcedStates[identifier], forced != state {
            throw .permissionDenied(
                "restriction \(identifier) is forced to \(forced.rawValue) by the administrator in managed.json "
                    + "(\(ManagedConfig.defaultPath) by default); change it there")
        }
    }
}

extension Dictionary {
    /// Moves the entries into storage of their size once they fill less than
    /// half of what it has room for: a dictionary never gives back the room of
    /// removed entries, and after thousands of apps leave that room would
    /// stay resident (a megabyte or more) for the daemon's life.
    mutating func shrinkIfSparse() {
        guard count < capacity / 2 else { return }
        var compact = Self(minimumCapacity: count)
        for (key, value) in self { compact[key] = value }
        self = compact
    }
}
