// SPDX-License-Identifier: LGPL-2.1-or-later
/// What an assessment leaves allowed (Apple's `AEAssessmentConfiguration`):
/// parsed and checked once where `BeginAssessment` arrives, then kept with
/// the session for the enforcers (`Assessment`). Everything is off unless
/// its key allows it, but `keep-accessibility`, which is on.
public struct AssessmentConfiguration: Codable, Sendable, Hashable {
    /// Other apps the test-taker may use, normalised like an app id.
    public private(set) var participants: [String] = []
    /// Screenshots, screencasts and remote desktop stay possible.
    public private(set) var allowsScreenCapture = false
    /// The clipboard is neither cleared nor guarded.
    public private(set) var allowsClipboard = false
    /// Notifications are shown.
    public private(set) var allowsNotifications = false
    /// Speak Screen and Speak Selection may be turned on.
    public private(set) var allowsAccessibilitySpeech = false
    /// Speech features already on keep working.
    public private(set) var keepAccessibility = true
    /// The desktop's spelling and emoji suggestions stay on.
    public private(set) var allowsSpellCheck = false
    /// Seconds until the session expires, 0 for none.
    public private(set) var timeLimit: UInt64 = 0

    /// The speech features `allows-accessibility-speech` governs.
    public static let speechFeatures: [Feature] = [.speakScreen, .speakSelection]

    /// Everything off, no participants, no time limit.
    public init() {}

    /// Checks values as they arrive; throws `invalidArgument` naming the key.
    public init(
        participants: [String] = [], allowsScreenCapture: Bool = false, allowsClipboard: Bool = false,
        allowsNotifications: Bool = false, allowsAccessibilitySpeech: Bool = false, keepAccessibility: Bool = true,
        allowsSpellCheck: Bool = false, timeLimit: UInt64 = 0
    ) throws(DomainError) {
        try GuidedAccessSession.checkTimeLimit(timeLimit)
        self.participants = try SessionOptions.checkedApps(participants, key: AssessmentOptionName.participants.rawValue)
        self.allowsScreenCapture = allowsScreenCapture
        self.allowsClipboard = allowsClipboard
        self.allowsNotifications = allowsNotifications
        self.allowsAccessibilitySpeech = allowsAccessibilitySpeech
        self.keepAccessibility = keepAccessibility
        self.allowsSpellCheck = allowsSpellCheck
        self.timeLimit = timeLimit
    }

    /// The session an assessment runs as: its participants reachable,
    /// notifications denied unless allowed, speech features off unless
    /// allowed or kept (`featuresOn`: those on now), the accessibility
    /// shortcut without them unless allowed.
    func sessionOptions(featuresOn: Set<Feature>, shortcut: [Feature]) throws(DomainError) -> (SessionOptions, [Feature]) {
        var features: [String: Bool] = [:]
        if !allowsAccessibilitySpeech {
            for feature in Self.speechFeatures where featuresOn.contains(feature) && !keepAccessibility {
                features[feature.name] = false
            }
        }
        let options = try SessionOptions(
            timeLimit: timeLimit,
            systemRestrictions: allowsNotifications ? [:] : [SystemRestriction.notifications.rawValue: RestrictionState.deny.rawValue],
            alsoAllowed: participants, features: features)
        return (options, allowsAccessibilitySpeech ? shortcut : shortcut.filter { !Self.speechFeatures.contains($0) })
    }
}
