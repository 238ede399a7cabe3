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

/// Where one desktop keeps the features and a session's demands in
/// GSettings: GNOME's schemas, or Cinnamon's own (`org.cinnamon.*`, which
/// Cinnamon reads instead of GNOME's).
public struct DesktopMappings: Sendable {
    /// How the daemon's log and `Sources` name the desktop.
    public let name: String
    let features: [FeatureSetting]
    let restrictions: [RestrictionSetting]
    /// The delay before the screen blanks (0 = never), and no screen lock:
    /// the lock screen would turn the shell's enforcer off, and waking
    /// should return to the locked app, as on iOS.
    let autoLock: [AutoLockSetting]

    /// GNOME's schemas, also those of the desktops that read GNOME's.
    public static let gnome = DesktopMappings(
        name: "GNOME",
        features: [
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
        ],
        restrictions:
            [RestrictionSetting(restriction: .notifications, key: "org.gnome.desktop.notifications/show-banners", deniedValue: "false")]
            + emptied(.appSwitching, "org.gnome.desktop.wm.keybindings",
                      ["switch-applications", "switch-applications-backward", "switch-windows", "switch-windows-backward",
                       "switch-group", "switch-group-backward", "cycle-windows", "cycle-windows-backward", "panel-main-menu"])
            + emptied(.appSwitching, "org.gnome.shell.keybindings", ["toggle-overview", "toggle-application-view"])
            + ["disable-log-out", "disable-user-switching"]
                .map { .init(restriction: .powerMenu, key: SettingKey("org.gnome.desktop.lockdown", $0), deniedValue: "true") }
            + [.init(restriction: .touch, key: "org.gnome.desktop.peripherals.touchpad/send-events", deniedValue: "'disabled'"),
               .init(restriction: .sleepWakeButton, key: "org.gnome.settings-daemon.plugins.power/power-button-action",
                     deniedValue: "'nothing'")]
            // GNOME 43 keeps the hardware keys in the -static variants; the plain
            // keys are the user's extra shortcuts. Both are cleared.
            + emptied(.volumeButtons, "org.gnome.settings-daemon.plugins.media-keys",
                      ["volume-up", "volume-down", "volume-mute", "volume-up-static", "volume-down-static", "volume-mute-static"])
            + [.init(restriction: .motion, key: "org.gnome.settings-daemon.peripherals.touchscreen/orientation-lock",
                     deniedValue: "true")],
        autoLock: [
            .init(key: "org.gnome.desktop.session/idle-delay", type: "u", value: { "\($0)" }),
            .init(key: "org.gnome.desktop.screensaver/lock-enabled", type: "b", value: { _ in "false" }),
        ])

    /// Cinnamon's schemas (Linux Mint; Cinnamon 5.6 in Debian 12, 6.4 in
    /// Debian 13), as its System Settings writes them. It has no switch for
    /// high contrast (a theme there): IncreaseContrast stays the service's.
    public static let cinnamon = DesktopMappings(
        name: "Cinnamon",
        features: [
            .init(feature: .screenReader, key: "org.cinnamon.desktop.a11y.applications/screen-reader-enabled", mapping: .same),
            .init(feature: .zoom, key: "org.cinnamon.desktop.a11y.applications/screen-magnifier-enabled", mapping: .same),
            .init(feature: .onScreenKeyboard, key: "org.cinnamon.desktop.a11y.applications/screen-keyboard-enabled", mapping: .same),
            .init(feature: .invertColors, key: "org.cinnamon.desktop.a11y.magnifier/invert-lightness", mapping: .same),
            .init(feature: .grayscale, key: "org.cinnamon.desktop.a11y.magnifier/color-saturation", mapping: .onAtZero),
            .init(feature: .reduceMotion, key: "org.cinnamon.desktop.interface/enable-animations", mapping: .inverted),
            .init(feature: .largeText, key: "org.cinnamon.desktop.interface/text-scaling-factor", mapping: .onAboveOne),
            .init(feature: .stickyKeys, key: "org.cinnamon.desktop.a11y.keyboard/stickykeys-enable", mapping: .same),
            .init(feature: .slowKeys, key: "org.cinnamon.desktop.a11y.keyboard/slowkeys-enable", mapping: .same),
            .init(feature: .bounceKeys, key: "org.cinnamon.desktop.a11y.keyboard/bouncekeys-enable", mapping: .same),
            .init(feature: .mouseKeys, key: "org.cinnamon.desktop.a11y.keyboard/mousekeys-enable", mapping: .same),
            .init(feature: .visualBell, key: "org.cinnamon.desktop.wm.preferences/visual-bell", mapping: .same),
        ],
        restrictions:
            [RestrictionSetting(restriction: .notifications, key: "org.cinnamon.desktop.notifications/display-notifications",
                                deniedValue: "false")]
            // Alt+Tab and its kin, and the workspace keys that open Expo and Scale.
            + emptied(.appSwitching, "org.cinnamon.desktop.keybindings.wm",
                      ["switch-windows", "switch-windows-backward", "switch-group", "switch-group-backward", "switch-panels",
                       "switch-panels-backward", "switch-to-workspace-up", "switch-to-workspace-down", "show-desktop"])
            + ["disable-log-out", "disable-user-switching"]
                .map { .init(restriction: .powerMenu, key: SettingKey("org.cinnamon.desktop.lockdown", $0), deniedValue: "true") }
            + [.init(restriction: .touch, key: "org.cinnamon.desktop.peripherals.touchpad/send-events", deniedValue: "'disabled'")]
            + ["button-power", "button-suspend", "button-hibernate"].map {
                .init(restriction: .sleepWakeButton, key: SettingKey("org.cinnamon.settings-daemon.plugins.power", $0),
                      deniedValue: "'nothing'")
            }
            + emptied(.volumeButtons, "org.cinnamon.desktop.keybindings.media-keys",
                      ["volume-up", "volume-down", "volume-mute", "volume-up-quiet", "volume-down-quiet", "mute-quiet"])
            + [.init(restriction: .motion, key: "org.cinnamon.settings-daemon.peripherals.touchscreen/orientation-lock",
                     deniedValue: "true")],
        autoLock: [
            .init(key: "org.cinnamon.desktop.session/idle-delay", type: "u", value: { "\($0)" }),
            .init(key: "org.cinnamon.desktop.screensaver/lock-enabled", type: "b", value: { _ in "false" }),
        ])

    /// Keybinding keys of `schema` emptied (`@as []`) while `restriction` is denied.
    private static func emptied(_ restriction: SystemRestriction, _ schema: String, _ keys: [String]) -> [RestrictionSetting] {
        keys.map { .init(restriction: restriction, key: SettingKey(schema, $0), deniedValue: "@as []") }
    }

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
