// SPDX-License-Identifier: GPL-2.0-or-later
// The declarative script "guidedaccess-dialog" that the gesture loads: the
// dialog (Dialog.qml) on the scripting API of the KWin it runs in
// (KWinApi.qml).
import QtQuick 2.15

Item {
    KWinApi { id: api }
    Loader {
        active: api.item !== null
        sourceComponent: Dialog { kwin: api.item }
    }
}
