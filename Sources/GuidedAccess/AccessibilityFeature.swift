/// An accessibility setting the service reports; the raw value is its
/// property name on `org.guidedaccess.Features1`.
public enum AccessibilityFeature: String, Sendable, Hashable, CaseIterable {
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
    /// On-screen pointer and gesture helper.
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
    /// Sticky modifier keys (desktop).
    case stickyKeys = "StickyKeys"
    /// Keys must be held to register (desktop).
    case slowKeys = "SlowKeys"
    /// Quick repeated key presses are ignored (desktop).
    case bounceKeys = "BounceKeys"
    /// The keypad moves the pointer (desktop).
    case mouseKeys = "MouseKeys"
    /// Flash instead of beeping (desktop).
    case visualBell = "VisualBell"

    /// The D-Bus property name, e.g. `ReduceMotion`.
    public var propertyName: String { rawValue }

    /// The kebab-case name used on command lines, e.g. `reduce-motion`.
    public var kebabName: String {
        var result = ""
        for character in rawValue {
            if character.isUppercase, !result.isEmpty { result.append("-") }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// Parses a property name (`ReduceMotion`) or a kebab-case name
    /// (`reduce-motion`), ignoring case.
    public init?(name: String) {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = match
    }
}

// UIKit's capability names, read from the client's cache.
extension GuidedAccessClient {
    /// A screen reader is running (UIKit `isVoiceOverRunning`).
    public var isVoiceOverRunning: Bool { isEnabled(.screenReader) }
    /// The magnifier is on.
    public var isZoomEnabled: Bool { isEnabled(.zoom) }
    /// Colours are inverted.
    public var isInvertColorsEnabled: Bool { isEnabled(.invertColors) }
    /// The display is grayscale.
    public var isGrayscaleEnabled: Bool { isEnabled(.grayscale) }
    /// Bold text is on.
    public var isBoldTextEnabled: Bool { isEnabled(.boldText) }
    /// Reduce Motion is on.
    public var isReduceMotionEnabled: Bool { isEnabled(.reduceMotion) }
    /// Reduce Transparency is on.
    public var isReduceTransparencyEnabled: Bool { isEnabled(.reduceTransparency) }
    /// Increased contrast is on (UIKit `isDarkerSystemColorsEnabled`).
    public var isDarkerSystemColorsEnabled: Bool { isEnabled(.increaseContrast) }
    /// Mono audio is on.
    public var isMonoAudioEnabled: Bool { isEnabled(.monoAudio) }
    /// Closed captions are preferred.
    public var isClosedCaptioningEnabled: Bool { isEnabled(.closedCaptioning) }
    /// Speak Screen is on.
    public var isSpeakScreenEnabled: Bool { isEnabled(.speakScreen) }
    /// Speak Selection is on.
    public var isSpeakSelectionEnabled: Bool { isEnabled(.speakSelection) }
    /// Switch access is running.
    public var isSwitchControlRunning: Bool { isEnabled(.switchControl) }
    /// AssistiveTouch is running.
    public var isAssistiveTouchRunning: Bool { isEnabled(.assistiveTouch) }
    /// Shake to Undo is on.
    public var isShakeToUndoEnabled: Bool { isEnabled(.shakeToUndo) }
    /// On/Off labels on switches are on.
    public var isOnOffSwitchLabelsEnabled: Bool { isEnabled(.onOffSwitchLabels) }
    /// Videos may play automatically.
    public var isVideoAutoplayEnabled: Bool { isEnabled(.videoAutoplay) }
    /// Button shapes are on.
    public var buttonShapesEnabled: Bool { isEnabled(.buttonShapes) }
    /// Cross-fade transitions are preferred.
    public var prefersCrossFadeTransitions: Bool { isEnabled(.prefersCrossFadeTransitions) }
    /// Information must not rely on colour alone.
    public var shouldDifferentiateWithoutColor: Bool { isEnabled(.differentiateWithoutColor) }
    /// The on-screen keyboard is on.
    public var isOnScreenKeyboardEnabled: Bool { isEnabled(.onScreenKeyboard) }
    /// Large text is on.
    public var isLargeTextEnabled: Bool { isEnabled(.largeText) }
    /// Sticky keys are on.
    public var isStickyKeysEnabled: Bool { isEnabled(.stickyKeys) }
    /// Slow keys are on.
    public var isSlowKeysEnabled: Bool { isEnabled(.slowKeys) }
    /// Bounce keys are on.
    public var isBounceKeysEnabled: Bool { isEnabled(.bounceKeys) }
    /// Mouse keys are on.
    public var isMouseKeysEnabled: Bool { isEnabled(.mouseKeys) }
    /// The visual bell is on.
    public var isVisualBellEnabled: Bool { isEnabled(.visualBell) }
}
