// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// How a feature's on/off maps onto its KConfig entry.
enum KConfigFeatureMapping: Sendable {
    /// A boolean entry, off by default (kaccessrc's switches).
    case flag
    /// A number that turns the feature on at 0, 1 by default
    /// (`AnimationDurationFactor` 0 = no animations = ReduceMotion on).
    case onAtZero

    /// The feature's value for what KConfig reads (nil: the default).
    func isOn(_ value: String?) -> Bool {
        guard let value else { return false }
        switch self {
        case .flag: return ["true", "on", "yes", "1"].contains(value.lowercased())
        case .onAtZero: return Double(value) == 0
        }
    }

    /// The entry's text for a feature that is `on`.
    func text(on: Bool) -> String {
        switch self {
        case .flag: on ? "true" : "false"
        case .onAtZero: on ? "0" : "1"
        }
    }
}

/// A feature stored in a KConfig entry.
struct KConfigFeatureSetting: Sendable {
    let feature: Feature
    let entry: KConfigKey
    let mapping: KConfigFeatureMapping
}

/// Where Plasma (5.27 and 6) keeps each feature it has a setting for, as
/// its System Settings writes them: kaccess, and on Wayland KWin's
/// accessibility plugins, follow kaccessrc; every KDE program's animations
/// follow kdeglobals' factor.
enum PlasmaMappings {
    static let features: [KConfigFeatureSetting] = [
        .init(feature: .screenReader, entry: KConfigKey(file: "kaccessrc", group: "ScreenReader", key: "Enabled"), mapping: .flag),
        .init(feature: .stickyKeys, entry: KConfigKey(file: "kaccessrc", group: "Keyboard", key: "StickyKeys"), mapping: .flag),
        .init(feature: .slowKeys, entry: KConfigKey(file: "kaccessrc", group: "Keyboard", key: "SlowKeys"), mapping: .flag),
        .init(feature: .bounceKeys, entry: KConfigKey(file: "kaccessrc", group: "Keyboard", key: "BounceKeys"), mapping: .flag),
        .init(feature: .mouseKeys, entry: KConfigKey(file: "kaccessrc", group: "Mouse", key: "MouseKeys"), mapping: .flag),
        .init(feature: .visualBell, entry: KConfigKey(file: "kaccessrc", group: "Bell", key: "VisibleBell"), mapping: .flag),
        .init(feature: .reduceMotion, entry: KConfigKey(file: "kdeglobals", group: "KDE", key: "AnimationDurationFactor"),
              mapping: .onAtZero),
    ]

    /// The files the features live in.
    static var files: [String] { Array(Set(features.map(\.entry.file))).sorted() }
}
