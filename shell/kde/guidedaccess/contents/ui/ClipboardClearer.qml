// SPDX-License-Identifier: GPL-2.0-or-later
// An assessment that does not allow the clipboard: emptied when it begins
// and again when it ends (this item's destruction), so that nothing copied
// before reaches the exam and nothing copied in it leaves. KWin's scripting
// API has no clipboard; Klipper, Plasma's clipboard (in plasmashell), has:
// over D-Bus it empties the clipboard and forgets its history, which its
// popup would otherwise offer again. Where no Klipper runs the clipboard
// stays as it is, and KWin's log says so.
import QtQuick 2.15

Item {
    property QtObject bus

    readonly property string klipper: 'org.kde.klipper'

    function clear(when) {
        ['clearClipboardHistory', 'clearClipboardContents'].forEach(function (method) {
            bus.call(klipper, '/klipper', 'org.kde.klipper.klipper', method, [], function () {
                console.log('Guided Access: clipboard ' + method + ' at the assessment\'s ' + when);
            }, function () {
                console.log('Guided Access: no Klipper answered ' + method + ' at the assessment\'s ' + when
                    + ': the clipboard was not emptied');
            });
        });
    }

    Component.onCompleted: clear('begin')
    Component.onDestruction: clear('end')
}
