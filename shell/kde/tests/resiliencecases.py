# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's resilience cases (mixed into run's Cases): the lock
holds, or comes back, when the daemon is killed, the script is unloaded or
turned off in kwinrc, the locked app is killed, or KWin restarts.
"""

import os
import signal
import time

from harness import BUS_NAME
from kwin import SCRIPT_ID
from waiting import wait_for


class ResilienceCases:
    def load_back_by_hand(self):
        """Scripting.start loads the enforcer (enabled) back, so that the
        next cases have one."""
        self.scripting('start')
        wait_for(lambda: 'kwin' in self.enforcers(), 10, 0.1, 'the script loaded back by the test')

    def daemon_killed(self):
        self.locked_session()
        with self.daemon_held():
            self.kill_daemon('the name to lose its owner')
            time.sleep(1.5)
            if not self.locked():
                raise AssertionError('the lock went away with the daemon')
            self.bounces_back('the focus to go back to app-a while the daemon is gone')
            if not self.switcher_blocked():
                raise AssertionError('Alt+Tab switched while the daemon was gone')
        # The daemon comes back as systemd restarts it (Restart=on-failure),
        # here by activation: the first call starts it. It loads the session
        # from its state directory and nudges the script, which reads the
        # session, registers again and keeps the lock.
        if self.bus.name_has_owner(BUS_NAME):
            raise AssertionError('the daemon came back although activation was held')
        self.prop('Enabled')
        enforcers = self.wait_registered('RegisterEnforcer again (the restarted daemon nudges the script)')
        if not self.prop('Enabled'):
            raise AssertionError('the reactivated daemon has no session')
        self.lock_in_place('reactivation')
        self.end_session()
        self.wait_released()
        self.way('kill -9 of the daemon', 'closed')
        return f'lock and Alt+Tab block held with no owner; re-registered as kwin → {", ".join(enforcers["kwin"])}'

    def script_unloaded(self):
        self.locked_session()
        try:
            # KWin's answer, not a look afterwards: the daemon may have loaded it
            # again by then (it does within a second, and a loaded machine's
            # look can come later).
            if not self.unload_script(SCRIPT_ID):
                raise AssertionError(f'unloadScript("{SCRIPT_ID}") did not unload it')
            # Nothing here calls Scripting.start: the daemon must (it sees
            # kwin withdraw during a session).
            try:
                wait_for(lambda: self.script_loaded(), 10, 0.1, 'the script to be loaded again (by the daemon)')
            except TimeoutError:
                self.load_back_by_hand()
                raise AssertionError(f'nothing loaded the script again within 10 s (the daemon did not call '
                                     f'org.kde.KWin /Scripting start); released: {self.released()}')
            wait_for(lambda: 'kwin' in self.enforcers() and self.locked(), 10, 0.1,
                     'the script to register and lock again')
            time.sleep(0.5)
            self.lock_in_place('the script came back')
        finally:
            self.end_session()
        self.wait_released()
        self.way('the script unloaded (org.kde.KWin /Scripting unloadScript)', 'closed')
        return 'loaded again, registered, app-b minimized and Alt+Tab blocked'

    def kwinrc_disabled(self):
        system_rc = f'{self.work}/xdg/kwinrc'
        off = '\n[Plugins]\nguidedaccessEnabled=false\n'

        def says_off():
            return 'guidedaccessEnabled=false' in self.kwinrc()

        def restore():
            self.write_kwinrc(self.kwinrc().replace(off, ''))
            if os.path.exists(system_rc):
                os.unlink(system_rc)
            self.load_back_by_hand()

        # Control: without a session, the setting unloads the script for good.
        try:
            self.add_to_kwinrc(off)
            wait_for(lambda: not self.script_loaded(), 5, 0.1, 'the script to be unloaded by reconfigure')
            time.sleep(1.5)
            if self.script_loaded() or not says_off():
                raise AssertionError('control: without a session the script came back or the setting was removed')
        finally:
            restore()
        # During a session: the daemon removes the setting and loads the script.
        self.locked_session()
        try:
            self.add_to_kwinrc(off)
            wait_for(lambda: not says_off(), 10, 0.1, 'the daemon to remove guidedaccessEnabled=false')
            wait_for(lambda: self.script_loaded() and 'kwin' in self.enforcers() and self.locked(), 10, 0.1,
                     'the script to be loaded, registered and locking again')
            if not self.switcher_blocked():
                raise AssertionError('Alt+Tab switched after the script came back')
            # The administrator's lock: the user's setting is ignored.
            with open(system_rc, 'w') as f:
                f.write('[Plugins][$i]\nguidedaccessEnabled=true\n')
            logged = self.kwin_log_size()
            self.add_to_kwinrc(off)
            time.sleep(2)
            if not says_off():
                raise AssertionError('under the kiosk lock the user\'s setting was removed: the script must have gone')
            if 'KWin enforcer unloaded' in self.kwin_log(logged) or not self.script_loaded() or not self.locked():
                raise AssertionError('under the kiosk lock the script was unloaded')
        finally:
            self.end_session()
            restore()
        self.wait_released()
        self.way('the script turned off in kwinrc (System Settings)', 'closed')
        return ('control: unloaded and off without a session; in a session the daemon removed the setting, the '
                'script registered and locked again; under the kiosk lock it stayed loaded')

    def app_relaunched(self):
        """kill -9 of the locked app: the script asks the daemon to launch it
        again, 3 times a minute; the 4th time the shield shows instead."""
        def kill(pid):
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: (self.window('app-a') or {}).get('pid') != pid, 10, 0.1, f'app-a (pid {pid}) to go')

        # Control: without a session, a killed app stays gone.
        self.start_app('app-a')
        kill(self.window('app-a')['pid'])
        time.sleep(2)
        if self.window('app-a'):
            raise AssertionError('control: app-a came back without a session')
        self.locked_session()
        took = []
        try:
            for attempt in range(1, 4):
                pid = self.window('app-a')['pid']
                since = time.monotonic()
                kill(pid)
                wait_for(lambda: (self.window('app-a') or {}).get('pid') not in (None, pid), 15, 0.05,
                         f'app-a launched again (time {attempt})')
                took.append(time.monotonic() - since)
                wait_for(lambda: self.window('app-a')['active'] and self.locked(), 5, 0.05,
                         'the launched app-a to have the focus with app-b minimized')
                time.sleep(1)  # as a person would, before it goes again
            logged = self.kwin_log_size()
            kill(self.window('app-a')['pid'])
            self.kwin_logged(logged, 'shield shown: app-gone', 10, 'the shield after the 4th exit within a minute')
            time.sleep(1)
            if self.window('app-a') or not self.locked() or not self.prop('Enabled'):
                raise AssertionError(f'after the 4th exit: app-a back, the lock gone or the session over{self.seen()}')
        finally:
            self.end_session()
        self.wait_released()
        self.way('the locked app killed', 'closed')
        return (f'control: stayed gone without a session; in the session launched again 3 times (kill → window '
                f'{", ".join(f"{t:.2f}" for t in took)} s), focused, app-b minimized; the 4th exit showed the shield')

    def kwin_restarted(self):
        self.locked_session()
        try:
            self.stop_kwin()
            self.start_kwin()
            # The apps went with their compositor: the new KWin's script has
            # the daemon launch the locked app again; the other app comes back by hand.
            self.start_app('app-b')
            wait_for(lambda: 'kwin' in self.enforcers(), 15, 0.1, 'the restarted KWin\'s script to register')
            wait_for(lambda: self.window('app-a'), 15, 0.1, 'app-a launched again in the restarted KWin')
            wait_for(lambda: self.locked(), 10, 0.1, 'app-b minimized in the restarted KWin')
            self.bounces_back('the focus to go back to app-a')
            if not self.switcher_blocked():
                raise AssertionError('Alt+Tab switched in the restarted KWin')
        finally:
            self.end_session()
        self.wait_released()
        self.way('KWin restarted', 'closed')
        return 'the new KWin\'s script registered, had app-a launched again, minimized app-b and blocked Alt+Tab'
