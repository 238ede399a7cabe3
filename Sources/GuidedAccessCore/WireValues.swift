// SPDX-License-Identifier: LGPL-2.1-or-later
// Parsing the contract's names from the wire into their types, with errors
// that say what would have been valid; and the one value type the wire
// carries that needs checking on the way in.

extension RestrictionState {
    /// Parses a wire value; throws `invalidArgument` naming the bad value.
    public init(parsing raw: String) throws(DomainError) {
        guard let state = RestrictionState(rawValue: raw) else {
            throw .invalidArgument("\"\(raw.prefix(64))\" is not a restriction state; use allow or deny")
        }
        self = state
    }
}

extension Presentation {
    /// Parses a wire value; throws `invalidArgument` naming the allowed values.
    public init(parsing raw: String) throws(DomainError) {
        guard let presentation = Presentation(rawValue: raw) else {
            let known = Presentation.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidArgument("\"\(raw.prefix(64))\" is not a presentation; use one of \(known)")
        }
        self = presentation
    }
}

extension SystemRestriction {
    /// Parses a wire name; throws `invalidArgument` listing the valid names.
    public init(parsing raw: String) throws(DomainError) {
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
    public init(x: Int32, y: Int32, width: Int32, height: Int32) throws(DomainError) {
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
