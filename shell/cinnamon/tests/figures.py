# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's figures (mixed into run's Cases; FIGURE lines, no
case): how fast a session reaches the screen with 2, 10 and 50 other
windows open, beside a reference from the same run: a plain Eval that
minimizes or restores the same windows (what any code in Cinnamon can do at
best when told over the bus)."""

import os
import random
import re
import time

from harness import OTHER_WINDOWS, WINDOW_COUNTS, beside_reference, log
from waiting import wait_for

SESSIONS_MEASURED = 20


# Eval helpers for the other windows (app-b's and the crowd's): whether all
# `count` are minimized (or all restored), and the reference's minimizing.
OTHERS_HELPERS = r"""
(function () {
    const others = () => global.get_window_actors().map(a => a.meta_window)
        .filter(w => /%s/.test(w.get_title()));
    global._ga.othersMinimized = (count, minimized) => {
        const windows = others();
        return windows.length === count && windows.every(w => w.minimized === minimized);
    };
    global._ga.minimizeOthers = minimized => others().forEach(w => minimized ? w.minimize() : w.unminimize());
    return true;
})()
""" % OTHER_WINDOWS


class Figures:
    def figures(self):
        if os.environ.get('CASES') and not re.search(os.environ['CASES'], 'figures'):
            return
        try:
            for name in ('app-a', 'app-b'):
                if self.window(name) is None:
                    self.start_app(name)
            self.js(OTHERS_HELPERS)
            for count in WINDOW_COUNTS:
                self.open_crowd(count - 1, lambda n: self.js(f'global._ga.othersMinimized({n}, false)'))
                self.activate('app-a')
                reference = self.latencies(count, self.minimize_by_eval)
                ours = self.latencies(count, lambda start: self.start_session('app-a') if start else self.end_session())
                log(f'FIGURE Cinnamon {self.version}, {count} other windows, {SESSIONS_MEASURED} sessions, seen in '
                    'Cinnamon (its monotonic clock, the suite\'s); reference: an Eval minimizes or restores the same '
                    'windows')
                for name, values, floor in (('Start returned → other windows minimized', ours[True], reference[True]),
                                            ('End returned → other windows restored', ours[False], reference[False])):
                    log(f'FIGURE   {name}: {beside_reference(values, floor)}')
        except Exception as error:
            self.figures_failed(error)
        finally:
            self.close_crowd()

    def latencies(self, count, act):
        """ms from act(True) and act(False) returning (or from the time
        act returns, when it does) to Cinnamon seeing the `count` other
        windows minimized and restored (a check it runs every millisecond,
        stamped with the monotonic clock this process reads too),
        SESSIONS_MEASURED times each."""
        measured = {True: [], False: []}
        for _ in range(SESSIONS_MEASURED):
            for start in (True, False):
                self.js(f'global._ga.watch(() => global._ga.othersMinimized({count}, {str(start).lower()}))')
                returned = act(start) or time.monotonic()
                seen = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01,
                                f'the {count} other windows ' + ('minimized' if start else 'restored'))
                measured[start].append((seen / 1e6 - returned) * 1000)
                # A pause of random length, so that no cycle falls into step.
                time.sleep(random.uniform(0.2, 0.45))
        return measured

    def minimize_by_eval(self, minimized):
        """The reference: one Eval minimizes or restores the other windows,
        measured from the call (the reply comes after it has). Returns
        when the call was made."""
        called = time.monotonic()
        self.js(f'global._ga.minimizeOthers({str(minimized).lower()})')
        return called
