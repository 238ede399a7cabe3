# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's time-limit cases (mixed into run's Cases): the time
left and the warning on screen, and the shield when the time is up."""

import re
import time

from waiting import wait_for

PILL = 'guided-access-time-pill'
WARNING = 'guided-access-warning'
SHIELD = 'guided-access-shield'


class TimeCases:
    def app_centre(self, name):
        window = self.window(name)
        return window['x'] + window['width'] // 2, window['y'] + window['height'] // 2

    def time_left(self):
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        # Control: a session without a limit shows no time.
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            time.sleep(1.2)
            if self.js(f'global._ga.shown("{PILL}")') is not None:
                raise AssertionError('control: a session without a time limit shows the time left')
        finally:
            self.end_session()
        self.activate('app-a')
        self.start_session('app-a', time_limit=14)
        try:
            first = wait_for(lambda: self.js(f'global._ga.shown("{PILL}")'), 5, 0.1, 'the time-left pill')
            if not re.fullmatch(r'Guided Access, 0:1\d left', first):
                raise AssertionError(f'the pill says "{first}"')
            wait_for(lambda: self.js(f'global._ga.shown("{PILL}")') != first, 3, 0.1, 'the pill to count down')
            if self.js(f'global._ga.shown("{WARNING}")') is not None:
                raise AssertionError('a warning is shown before 10 s are left')
            warning = wait_for(lambda: self.js(f'global._ga.shown("{WARNING}")'), 10, 0.1, 'the 10 s warning')
            before = len(self.keys('app-a'))
            self.key('x')
            wait_for(lambda: len(self.keys('app-a')) > before, 3, 0.05, 'a key to reach app-a with the pill shown')
        finally:
            self.end_session()
        wait_for(lambda: self.js(f'global._ga.shown("{PILL}")') is None, 5, 0.1, 'the pill gone after End')
        return f'"{first}", counting down; the warning "{warning}"; keys reach the app; gone after End'

    def expiry_shield(self):
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        x, y = self.app_centre('app-a')
        self.start_session('app-a', time_limit=3)
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            if not self.click_reaches('app-a', x, y):
                raise AssertionError('a click did not reach app-a before the time ran out')
            wait_for(lambda: self.prop('State') == 'expired', 10, 0.1, 'State expired')
            said = wait_for(lambda: self.js(f'global._ga.shown("{SHIELD}")'), 5, 0.1, 'the expiry shield')
            if 'Super+Alt+Escape' not in said:
                raise AssertionError(f'the shield does not name the keys: "{said}"')
            if self.click_reaches('app-a', x, y):
                raise AssertionError('a click reached app-a after the time ran out')
            self.screenshot('cinnamon-expired')
            # Only the gesture passes it: the dialog over the shield, the passcode.
            self.end_with_gesture(' over the shield')
        finally:
            if self.prop('Enabled'):
                self.end_session()
        wait_for(lambda: self.js(f'global._ga.shown("{SHIELD}")') is None, 5, 0.1, 'the shield gone after End')
        # The windows End restored may lie over app-a: it is raised first.
        self.activate('app-a')
        try:
            wait_for(lambda: self.click_reaches('app-a', x, y, seconds=0.5), 3, what='a click to reach app-a')
        except TimeoutError:
            raise AssertionError('a click did not reach app-a after End (the shield stayed)') from None
        return f'clicks reached app-a before expiry, not under "{said}"; the gesture and the passcode ended it; ' \
               'clicks reach it again'
