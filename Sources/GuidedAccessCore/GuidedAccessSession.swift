// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

/// The Guided Access session as a pure state machine:
/// `inactive` → `active` → `expired` → `inactive`.
///
/// A value type so it can be persisted as is, compared before and after a
/// change, and tested without I/O. Time is always passed in; the session never
/// reads a clock.
public struct GuidedAccessSession: Codable, Sendable, Equatable {
    /// Seconds before expiry at which a `TimeLimitWarning` is due (5 min, 1 min, 10 s).
    public static let warningThresholds: [UInt64] = [300, 60, 10]
    /// Longest time limit accepted, one year, so deadline arithmetic cannot overflow.
    public static let maximumTimeLimit: UInt64 = 366 * 24 * 3600
    /// Most disabled regions a session may carry.
    public static let maximumRegionCount = 64
    /// Longest display auto-lock accepted, one day; longer is `0` (never) in all but name.
    public static let maximumAutoLock: Int64 = 24 * 3600

    /// Where the session is in its life.
    public private(set) var state: SessionState = .inactive
    /// The app the session is locked to; `""` when inactive.
    public private(set) var app: String = ""
    /// Start time in µs since the epoch; 0 when inactive.
    public private(set) var startedAtMicroseconds: UInt64 = 0
    /// Total session length in seconds from the start; 0 means no limit.
    public private(set) var timeLimit: UInt64 = 0
    /// Built-in restrictions by wire name; all eight are always present.
    public private(set) var systemRestrictions: [String: RestrictionState] = SystemRestriction.allAllowed
    /// Screen regions where input is ignored.
    public private(set) var disabledRegions: [Region] = []
    /// How the enforcer shows the app's windows; `as-is` when inactive.
    public private(set) var presentation: Presentation = .asIs
    /// Seconds of inactivity before the screen blanks, 0 = never; ``AutoLock/desktop``
    /// (nothing applied) when inactive or not asked for.
    public private(set) var autoLock: Int64 = AutoLock.desktop
    /// The app that locked itself via RequestSession; `nil` when an admin started the session.
    public private(set) var requestedBy: String?
    /// How the session came to be; `nil` when inactive.
    public private(set) var mode: SessionMode?
    /// Apps besides ``app`` the person may reach.
    public private(set) var alsoAllowed: [String] = []
    /// Features the person may switch during the session.
    public private(set) var accessibilityShortcut: [Feature] = []
    /// Feature values the session holds (its `features` option and the
    /// person's toggles), put back when it ends.
    public internal(set) var features: [Feature: Bool] = [:]
    /// What an assessment leaves allowed; `nil` unless ``mode`` is `assessment`.
    public private(set) var assessment: AssessmentConfiguration?
    /// Warning thresholds (seconds left) still to be announced, largest first.
    public private(set) var pendingWarnings: [UInt64] = []

    /// A fresh, inactive session.
    public init() {}

    /// An event that time produced, for the caller to announce.
    public enum TimeEvent: Sendable, Equatable {
        /// `secondsLeft` seconds remain before the limit.
        case warning(secondsLeft: UInt64)
        /// The limit was reached; the session is now `expired`.
        case expired
    }

    /// True while the machine is locked, that is `active` or `expired`.
    public var isLocked: Bool { state != .inactive }

    /// The start as a date; `nil` when inactive.
    public var startedAt: Date? {
        isLocked ? Date(timeIntervalSince1970: Double(startedAtMicroseconds) / 1_000_000) : nil
    }

    /// When the time limit runs out; `nil` without a session or a limit.
    public var expiryDate: Date? {
        guard let startedAt, timeLimit > 0 else { return nil }
        return startedAt.addingTimeInterval(Double(timeLimit))
    }

    /// The next moment `advance(to:)` has something to do, so the caller can
    /// arm a single timer. `nil` when nothing is scheduled.
    public var nextDeadline: Date? {
        guard state == .active, let expiryDate else { return nil }
        guard let nextWarning = pendingWarnings.first else { return expiryDate }
        return expiryDate.addingTimeInterval(-Double(nextWarning))
    }

    /// Whole seconds left, rounded up; 0 without a session, without a limit or once expired.
    public func timeRemaining(now: Date) -> UInt64 {
        guard state == .active, let expiryDate else { return 0 }
        let left = expiryDate.timeIntervalSince(now)
        return left > 0 ? UInt64(left.rounded(.up)) : 0
    }
}

// MARK: - Transitions

extension GuidedAccessSession {
    /// Locks to `app` with `options` (valid by construction) in `mode`,
    /// offering `shortcut` to the person; throws `alreadyActive` when locked.
    public mutating func start(
        app: String, options: SessionOptions, mode: SessionMode = .guided, shortcut: [Feature] = Feature.defaultShortcut,
        assessment: AssessmentConfiguration? = nil, requestedBy: String?, now: Date
    ) throws(DomainError) {
        guard !isLocked else {
            throw .alreadyActive(
                "a Guided Access session is already active for \(self.app); end it with End before starting another")
        }
        state = .active
        self.app = app
        startedAtMicroseconds = Self.microseconds(since1970: now)
        timeLimit = options.timeLimit
        systemRestrictions = options.systemRestrictions
        disabledRegions = options.disabledRegions
        presentation = options.presentation
        autoLock = options.autoLock
        self.requestedBy = requestedBy
        self.mode = mode
        alsoAllowed = options.alsoAllowed.filter { $0 != app }
        accessibilityShortcut = shortcut
        features = options.features
        self.assessment = assessment
        pendingWarnings = Self.warningThresholds.filter { $0 < options.timeLimit }
    }

    /// Unlocks. Throws `notActive` when there is no session.
    public mutating func end() throws(DomainError) {
        guard isLocked else { throw .noSession }
        self = GuidedAccessSession()
    }

    /// Moves time forward: announces due warnings and expires the session.
    ///
    /// When several warnings fell due at once (the daemon was suspended), only
    /// the smallest is announced, with the true seconds left: "5 minutes left"
    /// is wrong when 8 seconds remain.
    public mutating func advance(to now: Date) -> [TimeEvent] {
        guard state == .active, let expiryDate else { return [] }
        let left = expiryDate.timeIntervalSince(now)
        if left <= 0 {
            state = .expired
            pendingWarnings = []
            return [.expired]
        }
        let due = pendingWarnings.filter { Double($0) >= left }
        guard let smallest = due.last else { return [] }
        pendingWarnings.removeAll { Double($0) >= left }
        return [.warning(secondsLeft: min(smallest, UInt64(left.rounded(.up))))]
    }

    /// Adds `seconds` of time. From `expired` the session becomes `active`
    /// again with `seconds` left from now. Warnings that now lie in the future
    /// are armed again. Call `advance(to:)` first so an overdue session counts as expired.
    public mutating func extendTimeLimit(by seconds: UInt64, now: Date) throws(DomainError) {
        guard isLocked else { throw .noSession }
        guard seconds > 0 else {
            throw .invalidArgument("extending by 0 seconds does nothing; pass the number of seconds to add")
        }
        guard timeLimit > 0 else {
            throw .invalidArgument("this session has no time limit, so there is nothing to extend")
        }
        let base = state == .expired ? elapsedSeconds(now: now) : timeLimit
        let (newLimit, overflow) = base.addingReportingOverflow(seconds)
        guard !overflow else { throw Self.timeLimitTooLong(UInt64.max) }
        try Self.checkTimeLimit(newLimit)
        timeLimit = newLimit
        state = .active
        let left = expiryDate.map { $0.timeIntervalSince(now) } ?? 0
        pendingWarnings = Self.warningThresholds.filter { Double($0) < left }
    }

    /// Replaces the named built-in restrictions; the others keep their state.
    public mutating func setSystemRestrictions(_ changes: [SystemRestriction: RestrictionState]) throws(DomainError) {
        guard isLocked else { throw .noSession }
        for (restriction, state) in changes {
            systemRestrictions[restriction.rawValue] = state
        }
    }

    /// Brings a session loaded from disk up to `now` without announcing
    /// anything: nobody listened while the daemon was down, and a burst of
    /// stale warnings at start-up would only confuse.
    public mutating func resume(now: Date) {
        _ = advance(to: now)
    }
}

// MARK: - Helpers

extension GuidedAccessSession {
    static func microseconds(since1970 date: Date) -> UInt64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
        return micros > 0 ? UInt64(micros) : 0
    }

    private func elapsedSeconds(now: Date) -> UInt64 {
        guard let startedAt else { return 0 }
        let elapsed = now.timeIntervalSince(startedAt)
        return elapsed > 0 ? UInt64(elapsed.rounded(.up)) : 0
    }

    static func checkTimeLimit(_ seconds: UInt64) throws(DomainError) {
        guard seconds <= maximumTimeLimit else { throw timeLimitTooLong(seconds) }
    }

    private static func timeLimitTooLong(_ seconds: UInt64) -> DomainError {
        .invalidArgument(
            "a time limit of \(seconds) seconds is too long; use at most \(maximumTimeLimit) seconds (one year) or 0 for none")
    }

    /// -1 (the desktop's own), 0 (never) or up to ``maximumAutoLock`` seconds.
    static func checkAutoLock(_ seconds: Int64) throws(DomainError) {
        guard seconds == AutoLock.desktop || (AutoLock.never...maximumAutoLock).contains(seconds) else {
            throw .invalidArgument(
                "an auto-lock of \(seconds) seconds is not possible; use -1 for the desktop's own, 0 for never, "
                    + "or 1 to \(maximumAutoLock) seconds (one day)")
        }
    }

    static func checkRegions(_ regions: [Region]) throws(DomainError) {
        guard regions.count <= maximumRegionCount else {
            throw .invalidArgument(
                "\(regions.count) disabled regions is too many; use at most \(maximumRegionCount)")
        }
    }
}

// MARK: - Reading state files

extension GuidedAccessSession {
    private enum CodingKeys: String, CodingKey {
        case state, app, startedAtMicroseconds, timeLimit, systemRestrictions, disabledRegions, presentation, autoLock
        case requestedBy, pendingWarnings, mode, alsoAllowed, accessibilityShortcut, features, assessment
    }

    /// Reads a session as saved; a file written before `presentation` and
    /// `autoLock` existed gives their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(SessionState.self, forKey: .state)
        app = try container.decode(String.self, forKey: .app)
        startedAtMicroseconds = try container.decode(UInt64.self, forKey: .startedAtMicroseconds)
        timeLimit = try container.decode(UInt64.self, forKey: .timeLimit)
        systemRestrictions = try container.decode([String: RestrictionState].self, forKey: .systemRestrictions)
        disabledRegions = try container.decode([Region].self, forKey: .disabledRegions)
        presentation = try container.decodeIfPresent(Presentation.self, forKey: .presentation) ?? .asIs
        autoLock = try container.decodeIfPresent(Int64.self, forKey: .autoLock) ?? AutoLock.desktop
        try Self.checkAutoLock(autoLock)
        requestedBy = try container.decodeIfPresent(String.self, forKey: .requestedBy)
        pendingWarnings = try container.decode([UInt64].self, forKey: .pendingWarnings)
        alsoAllowed = try container.decodeIfPresent([String].self, forKey: .alsoAllowed) ?? []
        mode = try container.decodeIfPresent(SessionMode.self, forKey: .mode) ?? impliedMode
        accessibilityShortcut = try container.decodeIfPresent([Feature].self, forKey: .accessibilityShortcut) ?? impliedShortcut
        features = try container.decodeIfPresent([Feature: Bool].self, forKey: .features) ?? [:]
        assessment = try container.decodeIfPresent(AssessmentConfiguration.self, forKey: .assessment)
    }

    /// What a file written before `mode` and the shortcut existed means: the
    /// mode follows from who started the session, the shortcut is the default.
    private var impliedMode: SessionMode? { state == .inactive ? nil : requestedBy == nil ? .guided : .autonomous }
    private var impliedShortcut: [Feature] { state == .inactive ? [] : Feature.defaultShortcut }

    /// Leaves out what an older file would not have held when it is what
    /// reading that file gives, so a state file round-trips unchanged.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(app, forKey: .app)
        try container.encode(startedAtMicroseconds, forKey: .startedAtMicroseconds)
        try container.encode(timeLimit, forKey: .timeLimit)
        try container.encode(systemRestrictions, forKey: .systemRestrictions)
        try container.encode(disabledRegions, forKey: .disabledRegions)
        try container.encode(presentation, forKey: .presentation)
        try container.encode(autoLock, forKey: .autoLock)
        try container.encodeIfPresent(requestedBy, forKey: .requestedBy)
        try container.encode(pendingWarnings, forKey: .pendingWarnings)
        if mode != impliedMode { try container.encodeIfPresent(mode, forKey: .mode) }
        if !alsoAllowed.isEmpty { try container.encode(alsoAllowed, forKey: .alsoAllowed) }
        if accessibilityShortcut != impliedShortcut { try container.encode(accessibilityShortcut, forKey: .accessibilityShortcut) }
        if !features.isEmpty { try container.encode(features, forKey: .features) }
        try container.encodeIfPresent(assessment, forKey: .assessment)
    }
}
