// SPDX-License-Identifier: GPL-2.0-or-later
// What each feature of the daemon's Features1 (its property name:
// "ScreenReader", "Zoom"...) is called on screen, as the accessibility
// switches and the start sheet show it and a screen reader says it: one
// table for both enforcers. Each title is written N_('...') so that
// scripts/update-po puts it in the template; the caller translates it with
// its own function (the extension's gettext, the KWin script's tr()).
// Pure logic, unit tested in shell/tests/common.js.

// Marks a string for the translation template; translated where shown.
function N_(text) {
    return text;
}

var FEATURE_TITLES = {
    ScreenReader: N_('Screen Reader'), Zoom: N_('Zoom'), InvertColors: N_('Invert Colors'),
    Grayscale: N_('Grayscale'), BoldText: N_('Bold Text'), ReduceMotion: N_('Reduce Motion'),
    ReduceTransparency: N_('Reduce Transparency'), IncreaseContrast: N_('Increase Contrast'),
    MonoAudio: N_('Mono Audio'), ClosedCaptioning: N_('Closed Captions'), SpeakScreen: N_('Speak Screen'),
    SpeakSelection: N_('Speak Selection'), SwitchControl: N_('Switch Control'),
    AssistiveTouch: N_('AssistiveTouch'), ShakeToUndo: N_('Shake to Undo'),
    OnOffSwitchLabels: N_('On/Off Labels'), VideoAutoplay: N_('Video Autoplay'),
    ButtonShapes: N_('Button Shapes'), PrefersCrossFadeTransitions: N_('Cross-Fade Transitions'),
    DifferentiateWithoutColor: N_('Differentiate Without Color'), OnScreenKeyboard: N_('Screen Keyboard'),
    LargeText: N_('Large Text'), StickyKeys: N_('Sticky Keys'), SlowKeys: N_('Slow Keys'),
    BounceKeys: N_('Bounce Keys'), MouseKeys: N_('Mouse Keys'), VisualBell: N_('Visual Alerts'),
};

// The title of `feature`, translated by `translate` (text → text); a
// feature the table lacks (a newer daemon's) shows its own name.
export function featureTitle(feature, translate) {
    var title = FEATURE_TITLES[feature];
    return title === undefined ? String(feature) : translate(title);
}
