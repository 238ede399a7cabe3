# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's case of managed Single App Mode (mixed into run's
Cases): a "reboot" with managed.json's SingleAppMode locks at once, End
with the passcode is refused, and SingleAppMode moved to another app
shows that app with the keyboard.
"""

import time

from harness import CONTRACT, log
from waiting import wait_for


class ModeCases:
    def single_app_reboot(self):
        ended = False
        # Control: a daemon started fresh without SingleAppMode has no session.
        self.kill_daemon()
        if self.prop('Enabled'):
            raise AssertionError('control: the fresh daemon has a session without SingleAppMode')
        self.stop_kwin()
        with self.daemon_held():
            self.kill_daemon()
            self.write_managed({'SingleAppMode': {'App': self.app_id('app-a'), 'Options': {}}})
        try:
            # The reboot: KWin starts, its script's first read activates the
            # daemon, which locks at start; the script has app-a launched.
            started = time.monotonic()
            self.start_kwin()
            wait_for(lambda: self.window('app-a') and not self.window('app-a')['minimized'], 20, 0.05,
                     'app-a launched and shown in the fresh KWin')
            took = time.monotonic() - started
            mode = str(self.prop('Mode'))
            if not self.prop('Enabled') or mode != CONTRACT['SESSION_MODE']['singleApp']:
                raise AssertionError(f'no single-app session: Enabled {self.prop("Enabled")}, Mode "{mode}"')
            if 'kwin' not in self.enforcers():
                raise AssertionError('the fresh KWin\'s script did not register')
            self.start_app('app-b')
            wait_for(lambda: self.locked(), 10, 0.05, 'app-b minimized')
            self.bounces_back('the focus back on app-a')
            try:
                self.end_session()
                refused = None
            except self.dbus.DBusException as error:
                refused = f'{error.get_dbus_name()}: {error.get_dbus_message()}'
            if refused is None:
                ended = True
                raise AssertionError('End with the right passcode ended the managed session')
            if not self.prop('Enabled') or not self.locked():
                raise AssertionError('the refused End loosened the lock')
            # The administrator moves SingleAppMode to app-b while it runs: as
            # app-a was at the reboot above (the control), app-b is shown and
            # has the keyboard, and app-a is minimized.
            written = time.monotonic()
            self.write_managed({'SingleAppMode': {'App': self.app_id('app-b'), 'Options': {}}})

            def moved():
                return next((arrived for arrived, report in self.reports_since(written)
                             if self.window('app-b', report)['active'] and not self.window('app-b', report)['minimized']
                             and self.window('app-a', report)['minimized']), None)
            moved_at = wait_for(moved, 10, 0.05, 'app-b shown and active, app-a minimized, once SingleAppMode moved to app-b')
        finally:
            self.write_managed({})
        wait_for(lambda: not self.prop('Enabled'), 5, 0.1, 'the session to end when SingleAppMode goes')
        self.wait_released()
        log(f'FIGURE KWin {self.kwin_version} reboot → locked: {took:.1f} s (KWin started, its script activated the '
            'daemon, which locked at start; app-a launched by the daemon and shown)')
        log(f'FIGURE KWin {self.kwin_version} managed.json edited → the lock moved to the new app (shown and active, '
            f'the old one minimized, seen by the probe): {(moved_at - written) * 1000:.0f} ms')
        self.way('End with the passcode in managed Single App Mode', 'closed' if not ended else 'open')
        return (f'locked at once, app-a shown {took:.1f} s after KWin started, app-b minimized; End refused ({refused}); '
                'moved to app-b: app-b shown and active')
