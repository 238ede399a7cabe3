# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's managed Single App Mode case (mixed into run's
Cases): the administrator's managed.json, then Cinnamon and the daemon
started afresh as at boot."""

import json
import os
import signal
import time

from harness import BUS_NAME, CONTRACT, PASSCODE, log
from waiting import wait_for


class ModeCases:
    def single_app_reboot(self):
        """managed.json's SingleAppMode, then the X server, Cinnamon and the
        daemon started afresh (the daemon's state kept): the extension
        activates the daemon, the lock is on at once with the app's window
        (the extension launches it: none is open), Mode single-app, and End
        with the right passcode refused. Prints FIGURE reboot → locked. The
        key removed, the session ends."""
        self.stop()
        self.apps.clear()
        # Nothing activates the daemon again until the "boot" (activation is
        # refused while hold-daemon exists).
        hold = f'{self.work}/hold-daemon'
        open(hold, 'w').close()
        os.kill(self.daemon_pid(), signal.SIGTERM)
        wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), 10, what='the daemon to stop')
        with open(f'{self.work}/managed.json', 'w') as f:
            json.dump({'SingleAppMode': {'App': self.app_id('app-a'), 'Options': {}}}, f)
        os.unlink(hold)
        started = time.monotonic()
        try:
            self.start(set_passcode=False)

            def locked():
                state = self.window('app-a')
                return state is not None and not state['minimized'] and state['focused'] and \
                    self.prop('Enabled') and 'cinnamon' in self.enforcers()
            wait_for(locked, 30, 0.05, what='the lock with app-a\'s window after the reboot')
            seconds = time.monotonic() - started
            log(f'FIGURE reboot → locked (Xvfb, Cinnamon and the daemon started, app launched and focused): '
                f'{seconds:.1f} s')
            mode = str(self.prop('Mode'))
            if mode != CONTRACT['SESSION_MODE']['singleApp']:
                raise AssertionError(f'Mode is {mode!r}')
            try:
                self.end_session(PASSCODE)
                raise AssertionError('End with the right passcode ended managed Single App Mode')
            except self.dbus.DBusException as error:
                refused = error.get_dbus_name().rsplit('.', 1)[-1]
            if not self.prop('Enabled'):
                raise AssertionError('the session ended')
        finally:
            with open(f'{self.work}/managed.json', 'w') as f:
                f.write('{}\n')
        wait_for(lambda: not self.prop('Enabled'), 5, what='the session to end when SingleAppMode goes')
        wait_for(lambda: self.js('imports.ui.main.panelManager.getPanels().filter(Boolean).every(p => p.actor.visible)'),
                 5, what='the panels back')
        return (f'locked {seconds:.1f} s after the X server started, app-a launched by the extension; End with the '
                f'passcode refused ({refused}); ended when the key went')
