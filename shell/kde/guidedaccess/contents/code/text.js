// SPDX-License-Identifier: GPL-2.0-or-later
// The user-visible strings, each written tr("...") so that scripts/update-po
// puts it in the translation template (domain guided-access). Where the
// script engine has i18nd() (a KWin whose QML engine carries KDE's
// localization context) the text is translated; KWin 5.27's has none
// (checked: typeof i18nd is "undefined"), so there the English text passes
// through, with %1, %2 ... filled in.
.import "features.js" as Features

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
// screen reader says it: the title both shells show (shell/common's
// features.js, installed beside this file), translated by tr(); a feature
// that table lacks shows its own name.
function featureName(feature) {
    return Features.featureTitle(feature, tr);
}
