// SPDX-License-Identifier: LGPL-2.1-or-later
@_exported import GuidedAccessContract

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
