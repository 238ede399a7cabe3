// SPDX-License-Identifier: GPL-2.0-or-later
// The session's disabled regions: an invisible, input-swallowing window over
// each. They go with this item.
import QtQuick 2.15
import QtQml.Models 2.15

Item {
    id: regions

    property var rects: []

    Instantiator {
        model: regions.rects.length
        delegate: Blocker {
            role: 'disabled region'
            rect: index < regions.rects.length ? regions.rects[index] : {x: 0, y: 0, width: 1, height: 1}
        }
    }
    Component.onCompleted: console.log('Guided Access: ' + rects.length + ' disabled region(s)')
}
