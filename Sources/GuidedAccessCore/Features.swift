// SPDX-License-Identifier: LGPL-2.1-or-later
@_exported import GuidedAccessVocabulary

/// The core's name for the contract's accessibility features.
public typealias Feature = AccessibilityFeature

extension AccessibilityFeature {
    /// Parses a feature's ``name``; throws `unknownFeature` listing the valid names.
    public init(parsing name: String) throws(DomainError) {
        guard let feature = Feature(rawValue: name) else {
            throw .unknownFeature(
                "\"\(name.prefix(64))\" is not a feature; use one of "
                    + Feature.allCases.map(\.name).joined(separator: ", "))
        }
        self = feature
    }
}

/// The five features an app may switch while locked
/// (`configureForGuidedAccess(features:enabled:)`), named as on the wire.
public enum GuidedAccessFeature: String, Codable, Sendable, CaseIterable {
    /// `assistive-touch`.
    case assistiveTouch = "assistive-touch"
    /// `grayscale`.
    case grayscale
    /// `invert-colors`.
    case invertColors = "invert-colors"
    /// `screen-reader` (iOS `voiceOver`).
    case screenReader = "screen-reader"
    /// `zoom`.
    case zoom

    /// The general feature this one switches.
    public var feature: Feature {
        switch self {
        case .assistiveTouch: .assistiveTouch
        case .grayscale: .grayscale
        case .invertColors: .invertColors
        case .screenReader: .screenReader
        case .zoom: .zoom
        }
    }

    /// Parses a wire name; throws `unknownFeature` listing the valid names.
    public init(parsing raw: String) throws(DomainError) {
        guard let feature = GuidedAccessFeature(rawValue: raw) else {
            throw .unknownFeature(
                "\"\(raw.prefix(64))\" cannot be configured for Guided Access; use one of "
                    + GuidedAccessFeature.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = feature
    }
}

/// Where a feature's value lives. The desktop often stores it already
/// (GSettings, at-spi); the service must read and write *that* value rather
/// than keep a copy that could disagree.
public protocol FeatureValueSource: AnyObject, Sendable {
    /// The current value.
    func value(of feature: Feature) -> Bool
    /// Stores a new value; throws when the backing store refuses.
    func set(_ enabled: Bool, for feature: Feature) throws
    /// Where the value lives, for the `Sources` property: `service`,
    /// `gsettings:SCHEMA/KEY`, `atspi`, ...
    func sourceDescription(of feature: Feature) -> String
    /// True when the store will not let the value change (a dconf lock).
    func isLocked(_ feature: Feature) -> Bool
    /// Where a locked value is locked, for the refusal that tells the
    /// administrator where to lift it.
    func lockDescription(of feature: Feature) -> String
}

extension FeatureValueSource {
    /// Unless the store says otherwise, it takes every write.
    public func isLocked(_ feature: Feature) -> Bool { false }
    /// The value's place, and the usual lock of the desktop's settings.
    public func lockDescription(of feature: Feature) -> String { "\(sourceDescription(of: feature)), e.g. a dconf lock" }
}
