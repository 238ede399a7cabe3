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
public protocol FeatureValueSource: AnyObject {
    /// The current value.
    func value(of feature: Feature) -> Bool
    /// Stores a new value; throws when the backing store refuses.
    func set(_ enabled: Bool, for feature: Feature) throws
    /// Where the value lives, for the `Sources` property: `service`,
    /// `gsettings:SCHEMA/KEY`, `atspi`, ...
    func sourceDescription(of feature: Feature) -> String
    /// True when the store will not let the value change (a dconf lock).
    func isLocked(_ feature: Feature) -> Bool
}

extension FeatureValueSource {
    /// A store of the service's own never refuses a write.
    public func isLocked(_ feature: Feature) -> Bool { false }
}

/// The service's own store, for features the desktop does not keep.
/// Its values are persisted with the rest of the state.
///
/// Not thread-safe; it lives inside ``GuidedAccessModel`` and shares its confinement.
public final class OwnFeatureStore: FeatureValueSource {
    /// Values by feature; absent means off.
    public private(set) var values: [Feature: Bool]

    /// A store holding `values` (all off by default).
    public init(values: [Feature: Bool] = [:]) {
        self.values = values.filter(\.value)
    }

    /// The stored value; off when never set.
    public func value(of feature: Feature) -> Bool { values[feature] ?? false }

    /// Stores the value; never fails.
    public func set(_ enabled: Bool, for feature: Feature) {
        values[feature] = enabled ? true : nil
    }

    /// Always `service`: the value lives in the service's state file.
    public func sourceDescription(of feature: Feature) -> String { "service" }
}
