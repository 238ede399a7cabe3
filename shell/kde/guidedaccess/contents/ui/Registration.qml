// SPDX-License-Identifier: GPL-2.0-or-later
// RegisterEnforcer("kwin", claims) whenever the daemon's Enforcers property
// lacks them (at the start, and after the daemon restarted), and
// RegisterEnforcer("kwin", []) on destruction (the script unloaded): the
// daemon learns that nothing enforces the session any more, and during a
// session asks KWin to start its enabled scripts again (this one among them).
import QtQuick 2.15
import "../code/claims.js" as Claims

QtObject {
    id: registration

    property Bus bus
    property bool pending: false

    function check(enforcers) {
        if (pending || !Claims.needsRegistration(enforcers, Claims.ENFORCER_NAME, Claims.CLAIMS))
            return;
        pending = true;
        bus.session('RegisterEnforcer', [Claims.ENFORCER_NAME, bus.stringList(Claims.CLAIMS)], function () {
            registration.pending = false;
            console.log('Guided Access: registered as enforcer "kwin": ' + Claims.CLAIMS.join(' '));
        }, function () {
            registration.pending = false;
            console.log('Guided Access: RegisterEnforcer failed');
        });
    }

    Component.onDestruction: {
        bus.session('RegisterEnforcer', [Claims.ENFORCER_NAME, bus.stringList([])]);
        console.log('Guided Access: registered as enforcer "kwin": nothing');
    }
}
