// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// How a feature's on/off maps onto its GSettings key (DESIGN, "Desktop integration").
enum FeatureMapping: Sendable {
    /// A boolean key with the feature's value.
    case same
    /// A boolean key with the opposite value (ReduceMotion ⇔ !enable-animations).
    case inverted
    /// A double: on ⇔ 0.0; on writes 0.0, off writes 1.0 (Grayscale ⇔ color-saturation).
    case onAtZero
    /// A double: on ⇔ > 1.0; on writes 1.25, off writes 1.0 (LargeText ⇔ text-scaling-factor).
    case onAboveOne

    /// The GVariant type the key must have.
    var keyType: String {
        switch self {
        case .same, .inverted: "b"
        case .onAtZero, .onAboveOne: "d"
        }
    }

    /// The key's value for a feature that is `on`, in GVariant text form.
    func keyValue(on: Bool) -> String {
        switch self {
        case .same: on ? "true" : "false"
        case .inverted: on ? "false" : "true"
        case .onAtZero: on ? "0.0" : "1.0"
        case .onAboveOne: on ? "1.25" : "1.0"
        }
    }

    /// The feature's value for a key value; any value the schema allows maps
    /// (a text-scaling-factor of 0.5 is off, 3.0 is on).
    func isOn(_ value: SettingValue) -> Bool {
        switch (self, value) {
        case (.same, .bool(let flag)): flag
        case (.inverted, .bool(let flag)): !flag
        case (.onAtZero, .double(let number)): number == 0
        case (.onAboveOne, .double(let number)): number > 1
        default: false
        }
    }
}

/// A feature stored in a GSettings key.
struct FeatureSetting: Sendable {
    let feature: Feature
    let key: SettingKey
    let mapping: FeatureMapping
}

/// A key that a denied system restriction sets, and the value it sets.
struct RestrictionSetting: Sendable {
    let restriction: SystemRestriction
    let key: SettingKey
    /// In GVariant text form, parsed against the installed key's type.
    let deniedValue: String
}

/// A key that a session's display auto-lock sets (DESIGN: `AutoLock`).
struct AutoLockSetting: Sendable {
    let key: SettingKey
    /// The GVariant type the key must have.
    let type: String
    /// The key's value, in GVariant text form, for an auto-lock of `seconds` (0 = never).
    let value: @Sendable (UInt32) -> String
}

/// A key a session sets to one value, whatever it is otherwise.
struct FixedSetting: Sendable {
    let key: SettingKey
    /// The GVariant type the key must have.
    let type: String
    /// The value the session writes, in GVariant text form.
    let value: String
}

/// The contract's mapping tables, as built.
enum DesktopMappings {
    static let features: [FeatureSetting] = [
        .init(feature: .screenReader, key: "org.gnome.desktop.a11y.applications/screen-reader-enabled", mapping: .same),
        .init(feature: .zoom, key: "org.gnome.desktop.a11y.applications/screen-magnifier-enabled", mapping: .same),
        .init(feature: .onScreenKeyboard, key: "org.gnome.desktop.a11y.applications/screen-keyboard-enabled", mapping: .same),
        .init(feature: .increaseContrast, key: "org.gnome.desktop.a11y.interface/high-contrast", mapping: .same),
        .init(feature: .invertColors, key: "org.gnome.desktop.a11y.magnifier/invert-lightness", mapping: .same),
        .init(feature: .grayscale, key: "org.gnome.desktop.a11y.magnifier/color-saturation", mapping: .onAtZero),
        .init(feature: .reduceMotion, key: "org.gnome.desktop.interface/enable-animations", mapping: .inverted),
        .init(feature: .largeText, key: "org.gnome.desktop.interface/text-scaling-factor", mapping: .onAboveOne),
        .init(feature: .stickyKeys, key: "org.gnome.desktop.a11y.keyboard/stickykeys-enable", mapping: .same),
        .init(feature: .slowKeys, key: "org.gnome.desktop.a11y.keyboard/slowkeys-enable", mapping: .same),
        .init(feature: .bounceKeys, key: "org.gnome.desktop.a11y.keyboard/bouncekeys-enable", mapping: .same),
        .init(feature: .mouseKeys, key: "org.gnome.desktop.a11y.keyboard/mousekeys-enable", mapping: .same),
        .init(feature: .visualBell, key: "org.gnome.desktop.wm.preferences/visual-bell", mapping: .same),
    ]

    static let restrictions: [RestrictionSetting] =
        [RestrictionSetting(restriction: .notifications, key: "org.gnome.desktop.notifications/show-banners", deniedValue: "false")]
        + ["switch-applications", "switch-applications-backward", "switch-windows", "switch-windows-backward",
           "switch-group", "switch-group-backward", "cycle-windows", "cycle-windows-backward", "panel-main-menu"]
            .map { .init(restriction: .appSwitching, key: SettingKey("org.gnome.desktop.wm.keybindings", $0), deniedValue: "@as []") }
        + ["toggle-overview", "toggle-application-view"]
            .map { .init(restriction: .appSwitching, key: SettingKey("org.gnome.shell.keybindings", $0), deniedValue: "@as []") }
        + ["disable-log-out", "disable-user-switching"]
            .map { .init(restriction: .powerMenu, key: SettingKey("org.gnome.desktop.lockdown", $0), deniedValue: "true") }
        + [.init(restriction: .touch, key: "org.gnome.desktop.peripherals.touchpad/send-events", deniedValue: "'disabled'"),
           .init(restriction: .sleepWakeButton, key: "org.gnome.settings-daemon.plugins.power/power-button-action",
                 deniedValue: "'nothing'")]
        // GNOME 43 keeps the hardware keys in the -static variants; the plain
        // keys are the user's extra shortcuts. Both are cleared.
        + ["volume-up", "volume-down", "volume-mute", "volume-up-static", "volume-down-static", "volume-mute-static"]
            .map { .init(restriction: .volumeButtons, key: SettingKey("org.gnome.settings-daemon.plugins.media-keys", $0),
                         deniedValue: "@as []") }
        + [.init(restriction: .motion, key: "org.gnome.settings-daemon.peripherals.touchscreen/orientation-lock",
                 deniedValue: "true")]

    /// The delay before the screen blanks (0 = never, as in GNOME), and no
    /// screen lock: the lock screen would turn the shell's enforcer off,
    /// and waking should return to the locked app, as on iOS.
    static let autoLock: [AutoLockSetting] = [
        .init(key: "org.gnome.desktop.session/idle-delay", type: "u", value: { "\($0)" }),
        .init(key: "org.gnome.desktop.screensaver/lock-enabled", type: "b", value: { _ in "false" }),
    ]

    /// Spelling help an assessment switches off unless it allows it: IBus's
    /// emoji picker (which also completes words from emoji names) and its
    /// Unicode picker have no switch but their hotkeys, emptied here. Only
    /// where IBus is installed; every desktop that runs IBus reads them.
    static let spellingHelp: [FixedSetting] = [
        .init(key: "org.freedesktop.ibus.panel.emoji/hotkey", type: "as", value: "@as []"),
        .init(key: "org.freedesktop.ibus.panel.emoji/unicode-hotkey", type: "as", value: "@as []"),
    ]
}

/// A GSettings key, `SCHEMA/KEY`.
struct SettingKey: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    let schema: String
    let key: String

    init(_ schema: String, _ key: String) {
        self.schema = schema
        self.key = key
    }

    init(stringLiteral value: String) {
        let parts = value.split(separator: "/", maxSplits: 1).map(String.init)
        self.init(parts[0], parts[1])
    }

    /// Parses an id as written in the state file; `nil` for anything else.
    init?(id: String) {
        let parts = id.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        self.init(parts[0], parts[1])
    }

    /// The id used in the state file and in `Sources`.
    var description: String { "\(schema)/\(key)" }
}

/// A decoded key value, for the features' mappings.
enum SettingValue: Equatable, Sendable {
    case bool(Bool)
    case double(Double)
    case other
}
