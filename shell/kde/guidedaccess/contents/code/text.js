// SPDX-License-Identifier: GPL-2.0-or-later
// The user-visible strings, each written tr("...") so that scripts/update-po
// puts it in the translation template (domain guided-access). Where the
// script engine has i18nd() (a KWin whose QML engine carries KDE's
// localization context) the text is translated; KWin 5.27's has none
// (checked: typeof i18nd is "undefined"), so there the English text passes
// through, with %1, %2 ... filled in.

function tr(text) {
    var args = Array.prototype.slice.call(arguments, 1);
    if (typeof i18nd === 'function')
        return i18nd.apply(null, ['guided-access', text].concat(args));
    return text.replace(/%(\d)/g, function (match, n) {
        return args[Number(n) - 1] !== undefined ? String(args[Number(n) - 1]) : match;
    });
}

// The human name of a feature of the daemon's Features1 (its property
// name: "ScreenReader", "Zoom"...), as the dialog's switches show it and a
// screen reader says it; a feature this table lacks shows its own name.
function featureName(feature) {
    var names = {
        ScreenReader: tr('Screen Reader'),
        Zoom: tr('Zoom'),
        InvertColors: tr('Invert Colors'),
        Grayscale: tr('Grayscale'),
        BoldText: tr('Bold Text'),
        ReduceMotion: tr('Reduce Motion'),
        ReduceTransparency: tr('Reduce Transparency'),
        IncreaseContrast: tr('Increase Contrast'),
        MonoAudio: tr('Mono Audio'),
        ClosedCaptioning: tr('Closed Captions'),
        SpeakScreen: tr('Speak Screen'),
        SpeakSelection: tr('Speak Selection'),
        SwitchControl: tr('Switch Control'),
        AssistiveTouch: tr('Assistive Touch'),
        ShakeToUndo: tr('Shake to Undo'),
        OnOffSwitchLabels: tr('On/Off Labels'),
        VideoAutoplay: tr('Video Autoplay'),
        ButtonShapes: tr('Button Shapes'),
        PrefersCrossFadeTransitions: tr('Cross-Fade Transitions'),
        DifferentiateWithoutColor: tr('Differentiate Without Color'),
        OnScreenKeyboard: tr('On-Screen Keyboard'),
        LargeText: tr('Large Text'),
        StickyKeys: tr('Sticky Keys'),
        SlowKeys: tr('Slow Keys'),
        BounceKeys: tr('Bounce Keys'),
        MouseKeys: tr('Mouse Keys'),
        VisualBell: tr('Visual Bell'),
    };
    return names[feature] !== undefined ? names[feature] : String(feature);
}
