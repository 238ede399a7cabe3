# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's figures (mixed into run's Cases; printed as FIGURE
lines, not asserted): the latency from Start and End returning to the lock
in place and the desktop restored, the start sheet's (measured by sheet.py)
and gnome-shell's RSS with and without the extension (measured by
resiliencecases.py)."""

import time

from harness import log, percentiles
from waiting import wait_for

SESSIONS_MEASURED = 50


class Figures:
    def figures(self):
        if 'app-b' not in self.apps:
            return
        try:
            lock_ms, restore_ms = [], []
            for _ in range(SESSIONS_MEASURED):
                self.js("global._ga.watch(() => global._ga.win('app-b').minimized && global._ga.regions() === 1)")
                self.start_session('app-a', regions=[(0, 400, 200, 200)])
                returned = time.monotonic_ns() // 1000
                done = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01, 'the lock')
                lock_ms.append((done - returned) / 1000)
                self.js("global._ga.watch(() => !global._ga.win('app-b').minimized && global._ga.regions() === 0)")
                self.end_session()
                returned = time.monotonic_ns() // 1000
                done = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01, 'the release')
                restore_ms.append((done - returned) / 1000)
            if min(lock_ms + restore_ms) < 0:
                log('       (negative: the screen changed before the reply reached the test client)')

            log(f'FIGURE Start returned → lock in place ({SESSIONS_MEASURED} sessions): {percentiles(lock_ms)}')
            log(f'FIGURE End returned → restored ({SESSIONS_MEASURED} sessions): {percentiles(restore_ms)}')
        except Exception as error:
            log(f'FIGURE latency: not measured ({error})')
        if getattr(self, '_sheet', None) is not None:
            try:
                opened, locked = self._sheet.figures()
                log(f'FIGURE triple-press → start sheet painted ({len(opened)} runs): {percentiles(opened)}')
                log(f'FIGURE Start pressed on the sheet → lock in place ({len(locked)} runs): {percentiles(locked)}')
            except Exception as error:
                log(f'FIGURE start sheet: not measured ({error})')
        if getattr(self, 'rss_with', None):
            log(f'FIGURE gnome-shell RSS: {self.rss_without / 1024:.1f} MB without the extension, '
                f'{self.rss_with / 1024:.1f} MB with it ({(self.rss_with - self.rss_without) / 1024:+.1f} MB)')
