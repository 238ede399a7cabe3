// SPDX-License-Identifier: GPL-2.0-or-later
// The user-visible strings. KWin 5.27's declarative script engine has no
// i18n()/i18nd() (checked: typeof i18nd is "undefined"), so tr() passes the
// English text through, filling %1, %2 ...; the strings are written as
// tr("...") so that a later KWin with i18nd can take them over as they are.

function tr(text) {
    var args = arguments;
    return text.replace(/%(\d)/g, function (match, n) {
        return args[Number(n)] !== undefined ? String(args[Number(n)]) : match;
    });
}
