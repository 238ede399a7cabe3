# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's figures (mixed into run's Cases; FIGURE lines, no
case): how fast a session reaches the screen, beside a reference from the
same run: a plain Eval that minimizes or restores the other app's window
(what any code in Cinnamon can do at best when told over the bus)."""

import os
import random
import re
import time

from harness import beside_reference, log
from waiting import wait_for

SESSIONS_MEASURED = 20


class Figures:
    def figures(self):
        if os.environ.get('CASES') and not re.search(os.environ['CASES'], 'figures'):
            return
        try:
            for name in ('app-a', 'app-b'):
                if self.window(name) is None:
                    self.start_app(name)
            self.activate('app-a')
            reference = self.latencies(self.minimize_by_eval)
            ours = self.latencies(lambda start: self.start_session('app-a') if start else self.end_session())
            log(f'FIGURE Cinnamon {self.version}, {SESSIONS_MEASURED} sessions, seen in Cinnamon (its monotonic '
                'clock, the suite\'s); reference: an Eval minimizes or restores the other app')
            for name, values, floor in (('Start returned → other app minimized', ours[True], reference[True]),
                                        ('End returned → other app restored', ours[False], reference[False])):
                log(f'FIGURE   {name}: {beside_reference(values, floor)}')
        except Exception as error:
            log(f'FIGURE latency: not measured ({error})')
            try:
                if self.prop('Enabled'):
                    self.end_session()
            except Exception:
                pass

    def latencies(self, act):
        """ms from act(True) and act(False) returning (or from the time
        act returns, when it does) to Cinnamon seeing
        app-b minimized and restored (a check it runs every millisecond,
        stamped with the monotonic clock this process reads too),
        SESSIONS_MEASURED times each."""
        measured = {True: [], False: []}
        for _ in range(SESSIONS_MEASURED):
            for start in (True, False):
                self.js(f'global._ga.watch(() => global._ga.win("app-b").minimized === {str(start).lower()})')
                returned = act(start) or time.monotonic()
                seen = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01,
                                'app-b ' + ('minimized' if start else 'restored'))
                measured[start].append((seen / 1e6 - returned) * 1000)
                # A pause of random length, so that no cycle falls into step.
                time.sleep(random.uniform(0.2, 0.45))
        return measured

    def minimize_by_eval(self, minimized):
        """The reference: one Eval minimizes or restores app-b's window,
        measured from the call (the reply comes after it has). Returns
        when the call was made."""
        called = time.monotonic()
        self.js(f'global._ga.win("app-b").{"minimize" if minimized else "unminimize"}()')
        return called
