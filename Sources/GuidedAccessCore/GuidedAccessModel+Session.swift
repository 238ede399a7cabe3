// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

// MARK: - Reading the session

extension GuidedAccessModel {
    /// `Enabled`: a session is running (`active` or `expired`; both lock the machine).
    public var enabled: Bool { session.isLocked }
    /// `State`.
    public var sessionState: SessionState { session.state }
    /// `App`: the app the session is locked to, `""` when inactive.
    public var app: String { session.app }
    /// `StartedAt`: µs since the epoch, 0 when inactive.
    public var startedAtMicroseconds: UInt64 { session.startedAtMicroseconds }
    /// `TimeLimit`: seconds, 0 = none.
    public var timeLimit: UInt64 { session.timeLimit }
    /// `SystemRestrictions`: all eight, by wire name.
    public var systemRestrictions: [String: RestrictionState] { session.systemRestrictions }
    /// `DisabledRegions`.
    public var disabledRegions: [Region] { session.disabledRegions }
    /// `PasscodeSet`.
    public var passcodeIsSet: Bool { vault.isSet }
    /// `AllowedApplications`: apps that may lock themselves, from managed config.
    public var allowedApplications: [String] { managedConfig.allowedApplications }
    /// `Presentation`: how the enforcer shows the app's windows; `as-is` when inactive.
    public var presentation: Presentation { session.presentation }
    /// `AutoLock`: seconds before the screen blanks, 0 = never, -1 = the desktop's own (and when inactive).
    public var autoLock: Int64 { session.autoLock }
    /// The app that locked itself via RequestSession, if any.
    public var requestedBy: String? { session.requestedBy }
    /// `Mode`: how the session came to be; `nil` when inactive.
    public var mode: SessionMode? { session.mode }
    /// `AlsoAllowed`: apps besides ``app`` the person may reach.
    public var alsoAllowed: [String] { session.alsoAllowed }

    /// `TimeRemaining`: seconds left, 0 without a limit or once expired.
    public func timeRemaining(now: Date) -> UInt64 { session.timeRemaining(now: now) }

    /// When ``tick(now:)`` next has something to do; arm one timer for it.
    public var nextDeadline: Date? { session.nextDeadline }

    /// `GetLastOptions`: what the last `Start` for `app` (normalised as
    /// `Start` stores it) was given; `nil` when none is remembered.
    public func lastOptions(for app: String) -> SessionOptions? {
        perAppMemory.options(for: app)
    }

    /// True when `app` is on the managed allow list for RequestSession.
    public func mayRequestSession(app: String) -> Bool {
        managedConfig.allowedApplications.contains(app)
    }

    /// True when managed config lets the sandboxed app `flatpakID` ask for
    /// administrator actions (`AdminApplications`); polkit still decides them.
    public func mayActAsAdministrator(sandboxedApp flatpakID: String) -> Bool {
        managedConfig.adminApplications.contains(flatpakID)
    }
}

// MARK: - Changing the session

extension GuidedAccessModel {
    /// Starts a session locked to `app` (an id ``AppIdentifier/validate(_:)``
    /// accepted) with `options`. `requestedBy` is the app id when an app
    /// locks itself. Throws `alreadyActive`, or `permissionDenied` when a
    /// restriction conflicts with managed config.
    ///
    /// An administrator's start (no `requestedBy`) becomes the app's last
    /// options (``lastOptions(for:)``), saved with the session; an app that
    /// locks itself chose no options, so it leaves them as they were.
    public mutating func start(
        app: String, options: SessionOptions = SessionOptions(), requestedBy: String? = nil, now: Date
    ) throws(DomainError) -> [ModelChange] {
        try checkSessionFeatures(options.features)
        return try commit { (model) throws(DomainError) in
            try model.startInCommit(app: app, options: options, mode: requestedBy == nil ? .guided : .autonomous,
                                    requestedBy: requestedBy, now: now)
            if requestedBy == nil { model.perAppMemory.remember(options, for: app) }
            return []
        }
    }

    /// The start itself, inside a commit.
    mutating func startInCommit(
        app: String, options: SessionOptions, mode: SessionMode, requestedBy: String?, now: Date
    ) throws(DomainError) {
        try session.start(app: app, options: options, mode: mode, shortcut: shortcut(for: options),
                          requestedBy: requestedBy, now: now)
        for (identifier, state) in options.restrictions { try registry.setState(state, for: identifier) }
    }

    /// Ends the session. When an app asks (RequestSession with `false`), pass
    /// its id as `requestedBy`: it may end only the session it started
    /// (`notOwner` otherwise). Throws `notActive` without a session.
    public mutating func end(requestedBy app: String? = nil, now: Date) throws(DomainError) -> [ModelChange] {
        guard session.isLocked else { throw .noSession }
        try refuseIfManaged()
        if app != nil { try refuseIfAssessment("RequestSession") }
        if let app, session.requestedBy != app {
            throw .notOwner(
                "\(app) did not start this session, so it cannot end it; ask whoever started it, or use End with authorization")
        }
        let interrupted = session.mode == .assessment
        return try commit { (model) throws(DomainError) in
            try model.session.end()
            // An administrator's End breaks the assessment off: the app hears it was interrupted, then that it ended.
            return interrupted ? [.assessmentInterrupted(reason: "an administrator ended the assessment"), .assessmentEnded] : []
        }
    }

    /// Adds time; an expired session becomes active again with `seconds` left.
    /// Throws `notActive` without a session.
    public mutating func extendTimeLimit(seconds: UInt64, now: Date) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            // Catch up first so an overdue session counts from now, not from its old deadline.
            _ = model.session.advance(to: now)
            try model.session.extendTimeLimit(by: seconds, now: now)
            return []
        }
    }

    /// Changes the named built-in restrictions of the running session.
    public mutating func setSystemRestrictions(_ changes: [String: String]) throws(DomainError) -> [ModelChange] {
        let parsed = try Self.parseSystemRestrictions(changes)
        return try commit { (model) throws(DomainError) in
            try model.session.setSystemRestrictions(parsed)
            return []
        }
    }

    /// Lets time pass: announces due warnings and expiry. Call at ``nextDeadline``.
    public mutating func tick(now: Date) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            model.session.advance(to: now).map { event in
                switch event {
                case .warning(let secondsLeft): .timeLimitWarning(secondsLeft: secondsLeft)
                case .expired: .timeExpired
                }
            }
        }
    }

    /// System restriction names and states as text, checked; throws naming the first bad one.
    static func parseSystemRestrictions(
        _ raw: [String: String]
    ) throws(DomainError) -> [SystemRestriction: RestrictionState] {
        var parsed: [SystemRestriction: RestrictionState] = [:]
        for (name, state) in raw.sorted(by: { $0.key < $1.key }) {
            parsed[try SystemRestriction(parsing: name)] = try RestrictionState(parsing: state)
        }
        return parsed
    }
}

// MARK: - Who may change what

extension GuidedAccessModel {
    /// Whether `change` loosens or tightens the session as it stands now.
    public func effect(of change: ProposedChange) -> ChangeEffect {
        switch change {
        case .end:
            return session.isLocked ? .loosens : .unchanged
        case .extendTimeLimit(let seconds):
            return session.isLocked && seconds > 0 ? .loosens : .unchanged
        case .setSystemRestriction(let restriction, let state):
            let current = session.systemRestrictions[restriction.rawValue] ?? .allow
            return SessionChangePolicy.effect(from: current, to: state)
        case .setRestriction(let identifier, let state):
            return SessionChangePolicy.effect(from: registry.state(of: identifier), to: state)
        }
    }

    /// The polkit action `change` needs because a session is running
    /// (`end-session` to loosen, `start-session` to tighten), on top of the
    /// method's own action; `nil` when no session runs or nothing would change.
    public func sessionAuthority(for change: ProposedChange) -> AdminAction? {
        SessionChangePolicy.sessionAuthority(for: effect(of: change), sessionLocked: session.isLocked)
    }
}

// MARK: - Passcode

extension GuidedAccessModel {
    /// Checks the session passcode. Throws `rateLimited` during back-off and
    /// `permissionDenied` when wrong; the failure count is saved either way,
    /// so restarting the daemon does not reset the back-off. A right passcode
    /// whose hash is legacy PBKDF2 is stored anew as yescrypt.
    public mutating func verifyPasscode(_ passcode: String, now: Date) throws(DomainError) {
        let expected = try passcodeChallenge(now: now)
        try recordPasscodeCheck(try PasscodeVault.check(passcode, against: expected, cost: vault.cost),
                                against: expected, now: now)
    }

    /// Step one of a passcode check split around the slow hash (see
    /// `PasscodeVault.challenge`): throws while locked out or when none is set.
    public func passcodeChallenge(now: Date) throws(DomainError) -> PasscodeHash {
        try refuseIfManaged()
        try refuseIfAssessment("the passcode")
        return try vault.challenge(now: now)
    }

    /// Step three: records the outcome, with the passcode's new hash when
    /// the check made one (persisted, so back-off and the new hash survive a
    /// restart), and throws `permissionDenied` for a wrong passcode.
    public mutating func recordPasscodeCheck(_ check: PasscodeCheck, against expected: PasscodeHash, now: Date) throws(DomainError) {
        var outcome: DomainError?
        _ = try commit { (model) throws(DomainError) in
            do throws(DomainError) { try model.vault.record(check, against: expected, now: now) } catch { outcome = error }
            return []
        }
        if let outcome { throw outcome }
    }

    /// Sets or replaces the passcode (4–64 characters), stored only as a salted slow hash.
    public mutating func setPasscode(_ passcode: String) throws(DomainError) -> [ModelChange] {
        try setPasscode(hashed: PasscodeVault.hash(passcode, cost: vault.cost))
    }

    /// Stores a hash made beforehand with ``PasscodeVault/hash(_:cost:)``
    /// and ``passcodeCost``, so the slow hashing need not hold the lock.
    public mutating func setPasscode(hashed: PasscodeHash) throws(DomainError) -> [ModelChange] {
        try commit { (model) throws(DomainError) in
            model.vault.setPasscode(hashed: hashed)
            return []
        }
    }

    /// yescrypt cost of new passcode hashes (``PasscodeVault/cost``).
    public var passcodeCost: Int { vault.cost }
}
