// SPDX-License-Identifier: GPL-2.0-or-later
// Test only (shell/kde/tests/run loads it through org.kde.KWin /Scripting):
// reports what KWin shows to the test's service org.guidedaccess.tests.KWinProbe
// every 100 ms and at once when a window comes, goes, is (un)minimized or
// activated, or the desktop changes. The report is one JSON string:
// {"windows": [...], "active": caption, "desktop": n}. KWin 5.27's QML API
// lists only the apps' windows (workspace.clientList(); no stackingOrder):
// KWin's own windows, the scripts' overlays and dialogs, are not in it.
import QtQuick 2.15
import org.kde.kwin 2.0 as KWin

Item {
    id: probe

    function describe(client) {
        const frame = client.frameGeometry || client.geometry;
        return {
            caption: String(client.caption),
            pid: client.pid,
            resourceClass: String(client.resourceClass),
            resourceName: String(client.resourceName),
            minimized: !!client.minimized,
            active: workspace.activeClient === client,
            x: frame ? frame.x : 0, y: frame ? frame.y : 0,
            width: frame ? frame.width : 0, height: frame ? frame.height : 0,
            desktop: client.desktop,
            managed: !!client.managed,
            popup: !!client.popupWindow,
            specialWindow: !!client.specialWindow,
            keepAbove: !!client.keepAbove,
            opacity: client.opacity
        };
    }

    function report() {
        const windows = [];
        try {
            // A QList from KWin: indexable, not iterable with for...of.
            const clients = workspace.clientList();
            for (let i = 0; i < clients.length; i++)
                windows.push(describe(clients[i]));
        } catch (error) {
            console.log("guidedaccess-test-probe:", error);
        }
        const active = workspace.activeClient;
        call.arguments = [JSON.stringify({
            windows: windows,
            active: active ? String(active.caption) : null,
            desktop: workspace.currentDesktop
        })];
        call.call();
    }

    KWin.DBusCall {
        id: call
        service: "org.guidedaccess.tests.KWinProbe"
        path: "/org/guidedaccess/tests/KWinProbe"
        dbusInterface: "org.guidedaccess.tests.KWinProbe"
        method: "Report"
    }

    Timer {
        interval: 100
        running: true
        repeat: true
        onTriggered: probe.report()
    }

    Component.onCompleted: {
        workspace.clientAdded.connect(probe.report);
        workspace.clientRemoved.connect(probe.report);
        workspace.clientActivated.connect(probe.report);
        workspace.clientMinimized.connect(probe.report);
        workspace.clientUnminimized.connect(probe.report);
        workspace.currentDesktopChanged.connect(probe.report);
        probe.report();
    }
}
