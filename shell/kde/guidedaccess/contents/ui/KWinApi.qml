// SPDX-License-Identifier: GPL-2.0-or-later
// The scripting API of the KWin this runs in, as `item` (KWin5.qml or
// KWin6.qml): one package for KWin 5.27 and 6. The two cannot share a
// file: each imports its own version of org.kde.kwin, and an import the
// running KWin lacks fails the whole file. A Loader compiles only the file
// it loads. KWin 6 gives declarative scripts no `workspace` context
// property (they import the Workspace singleton instead): that tells them
// apart.
import QtQuick 2.15

Loader {
    source: typeof workspace === 'undefined' ? 'KWin6.qml' : 'KWin5.qml'
}
