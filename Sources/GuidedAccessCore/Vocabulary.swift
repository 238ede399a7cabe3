/// Whether a restriction lets the person do the thing (`allow`) or not (`deny`).
public enum RestrictionState: String, Codable, Sendable, CaseIterable {
    /// The default: the app behaves normally.
    case allow
    /// The app must not offer the restricted thing while a session is active.
    case deny

    /// Parses a wire value; throws `invalidArgument` naming the bad value.
    public init(parsing raw: String) throws(GuidedAccessError) {
        guard let state = RestrictionState(rawValue: raw) else {
            throw .invalidArgument("\"\(raw.prefix(64))\" is not a restriction state; use allow or deny")
        }
        self = state
    }
}

/// Where a session is in its life.
public enum SessionState: String, Codable, Sendable, CaseIterable {
    /// No session: the machine is unlocked.
    case inactive
    /// Locked to one app.
    case active
    /// The time limit ran out; still locked until someone ends the session.
    case expired
}

extension SystemRestriction {
    /// Parses a wire name; throws `invalidArgument` listing the valid names.
    public init(parsing raw: String) throws(GuidedAccessError) {
        guard let restriction = SystemRestriction(rawValue: raw) else {
            let known = SystemRestriction.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidArgument("\"\(raw.prefix(64))\" is not a system restriction; use one of \(known)")
        }
        self = restriction
    }

    /// All eight restrictions set to `allow`, the state of a fresh session.
    public static var allAllowed: [String: RestrictionState] {
        Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, RestrictionState.allow) })
    }
}

/// A screen rectangle where input is ignored during a session.
public struct Region: Codable, Sendable, Hashable {
    /// Left edge in screen pixels.
    public let x: Int32
    /// Top edge in screen pixels.
    public let y: Int32
    /// Width in pixels, always > 0.
    public let width: Int32
    /// Height in pixels, always > 0.
    public let height: Int32

    /// Throws `invalidArgument` for an empty or negative size, which could
    /// never match any input and most likely means swapped arguments.
    public init(x: Int32, y: Int32, width: Int32, height: Int32) throws(GuidedAccessError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument(
                "region (\(x), \(y), \(width), \(height)) has no area; width and height must be greater than 0")
        }
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey { case x, y, width, height }

    /// Decodes and re-checks, so a hand-edited state file cannot smuggle in an empty region.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            x: container.decode(Int32.self, forKey: .x), y: container.decode(Int32.self, forKey: .y),
            width: container.decode(Int32.self, forKey: .width),
            height: container.decode(Int32.self, forKey: .height))
    }
}

/// The polkit actions that guard admin requests; raw values are the action ids
/// in `polkit/org.guidedaccess.policy`.
public enum AdminAction: String, Codable, Sendable, CaseIterable {
    /// Start a session (`Start`).
    case startSession = "org.guidedaccess.start-session"
    /// End a session or loosen a running one (`End`, `ExtendTimeLimit`).
    case endSession = "org.guidedaccess.end-session"
    /// Let a non-allow-listed app lock itself (`RequestSession`).
    case requestSession = "org.guidedaccess.request-session"
    /// Set the session passcode (`SetPasscode`).
    case setPasscode = "org.guidedaccess.set-passcode"
    /// Switch accessibility features (`SetFeature`).
    case configureFeatures = "org.guidedaccess.configure-features"
    /// Set custom restriction states (`SetState`, `Reset`).
    case configureRestrictions = "org.guidedaccess.configure-restrictions"
}
