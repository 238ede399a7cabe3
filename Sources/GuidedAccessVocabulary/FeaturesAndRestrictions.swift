// SPDX-License-Identifier: LGPL-2.1-or-later
// The words the domain core, the service and its clients all speak:
// accessibility features and system restrictions. Written once here so the
// core, the daemon, the client library and the CLI cannot drift apart.

/// The accessibility features the service exposes, in contract order; the raw
/// value is the feature's ``name`` (also as a key of a saved dictionary).
public enum AccessibilityFeature: String, Codable, CodingKeyRepresentable, Sendable, CaseIterable {
    /// Screen reader (iOS VoiceOver).
    case screenReader = "ScreenReader"
    /// Screen magnifier.
    case zoom = "Zoom"
    /// Inverted colours.
    case invertColors = "InvertColors"
    /// Grayscale display.
    case grayscale = "Grayscale"
    /// Bold text.
    case boldText = "BoldText"
    /// Fewer animations.
    case reduceMotion = "ReduceMotion"
    /// Opaque instead of translucent surfaces.
    case reduceTransparency = "ReduceTransparency"
    /// Higher contrast (iOS Darker System Colors).
    case increaseContrast = "IncreaseContrast"
    /// Mono audio.
    case monoAudio = "MonoAudio"
    /// Closed captions.
    case closedCaptioning = "ClosedCaptioning"
    /// Read the whole screen aloud.
    case speakScreen = "SpeakScreen"
    /// Read the selection aloud.
    case speakSelection = "SpeakSelection"
    /// Switch access.
    case switchControl = "SwitchControl"
    /// On-screen pointer/gesture helper.
    case assistiveTouch = "AssistiveTouch"
    /// Undo by shaking.
    case shakeToUndo = "ShakeToUndo"
    /// I/O labels on switches.
    case onOffSwitchLabels = "OnOffSwitchLabels"
    /// Videos may start by themselves.
    case videoAutoplay = "VideoAutoplay"
    /// Buttons drawn with visible shapes.
    case buttonShapes = "ButtonShapes"
    /// Cross-fades instead of sliding transitions.
    case prefersCrossFadeTransitions = "PrefersCrossFadeTransitions"
    /// Do not rely on colour alone.
    case differentiateWithoutColor = "DifferentiateWithoutColor"
    /// On-screen keyboard (desktop).
    case onScreenKeyboard = "OnScreenKeyboard"
    /// Larger text (desktop).
    case largeText = "LargeText"
    /// Sticky modifier keys.
    case stickyKeys = "StickyKeys"
    /// Keys must be held to register.
    case slowKeys = "SlowKeys"
    /// Ignore quick repeated key presses.
    case bounceKeys = "BounceKeys"
    /// Move the pointer with the keypad.
    case mouseKeys = "MouseKeys"
    /// Flash instead of beeping.
    case visualBell = "VisualBell"

    /// The feature's name, e.g. `ScreenReader`: as `SetFeature` and
    /// `Sources` spell it, `managed.json` locks it and `state.json` keeps
    /// its value; `org.guidedaccess.Features1` names its property after it.
    public var name: String { rawValue }

    /// The kebab-case name used on command lines, e.g. `reduce-motion`.
    public var kebabName: String {
        var result = ""
        for character in rawValue {
            if character.isUppercase, !result.isEmpty { result.append("-") }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// What the accessibility shortcut offers during a session unless
    /// `Start` or managed.json says otherwise (DESIGN.md).
    public static let defaultShortcut: [AccessibilityFeature] = [.screenReader, .zoom, .invertColors, .largeText, .onScreenKeyboard]

    /// Parses a feature's name (`ReduceMotion`) or its kebab-case name
    /// (`reduce-motion`), ignoring case.
    public init?(name: String) {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = match
    }
}

/// The built-in restrictions every session carries, named as on the wire.
public enum SystemRestriction: String, Codable, Sendable, CaseIterable {
    /// The sleep/wake (power) button.
    case sleepWakeButton = "sleep-wake-button"
    /// Hardware volume keys.
    case volumeButtons = "volume-buttons"
    /// Device motion (rotation, shake).
    case motion
    /// Hardware and on-screen keyboards.
    case keyboards
    /// All touch and pointer input.
    case touch
    /// Notification banners and sounds.
    case notifications
    /// Switching to other apps or workspaces.
    case appSwitching = "app-switching"
    /// The shell's power/log-out menu.
    case powerMenu = "power-menu"
}

/// What a shell or compositor may say it enforces (`RegisterEnforcer`): the
/// system restrictions by their wire names, plus these two of its own.
public enum EnforcedCapability {
    /// Only the locked app is reachable.
    public static let appLock = "app-lock"
    /// Input inside `DisabledRegions` goes nowhere.
    public static let disabledRegions = "disabled-regions"
    /// The person may switch among the windows of `App` and `AlsoAllowed`.
    public static let alsoAllowed = "also-allowed"
    /// The enforcer offers the `AccessibilityShortcut` features during a session.
    public static let accessibilityShortcut = "accessibility-shortcut"
    /// The enforcer keeps an assessment's promises (`Assessment`); when it
    /// leaves during one, the assessment is interrupted.
    public static let assessment = "assessment"
    /// Screen capture is refused or stopped while an assessment forbids it.
    public static let screenCapture = "screen-capture"
    /// The clipboard is cleared when an assessment begins and ends.
    public static let clipboard = "clipboard"
    /// Every name `RegisterEnforcer` accepts.
    public static let all: [String] = [appLock, disabledRegions, alsoAllowed, accessibilityShortcut, assessment, screenCapture, clipboard]
        + SystemRestriction.allCases.map(\.rawValue)
}
