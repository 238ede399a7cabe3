# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's cases of Plasma's own settings (mixed into run's
Cases): the daemon keeps Sticky Keys in kaccessrc, as System Settings
does, and KWin acts on it.
"""

import os

from harness import CONTRACT, log
from waiting import wait_for


class PlasmaCases:
    def typed_after_shift(self, name):
        """Shift pressed and released alone, then a: what NAME received,
        without the Shift itself."""
        before = len(self.keys(name))
        self.input.key('shift')
        self.input.key('a')
        wait_for(lambda: any(key in ('a', 'A') for _, key in self.keys(name)[before:]), 5, 0.05, f'{name} to get a key')
        return [key for _, key in self.keys(name)[before:] if not key.startswith('Shift')]

    def kaccessrc(self):
        path = f'{self.work}/config/kaccessrc'
        if not os.path.exists(path):
            return ''
        with open(path) as f:
            return f.read()

    def sticky_keys(self):
        self.bring_up_apps()
        # Control: without Sticky Keys, Shift let go before a types a.
        if self.typed_after_shift('app-a') != ['a']:
            raise AssertionError(f'control: Shift, then a typed {self.typed_after_shift("app-a")} without Sticky Keys')
        before = self.kaccessrc()
        features = self.service(CONTRACT['INTERFACES']['features'])
        features.SetFeature('StickyKeys', True, timeout=10)
        try:
            if 'StickyKeys=true' not in self.kaccessrc():
                raise AssertionError(f'SetFeature(StickyKeys) did not write kaccessrc: {self.kaccessrc()!r}')
            if self.kwin_version.startswith('5.'):
                # KWin 5.27 has no sticky keys of its own on Wayland (kaccess
                # applies kaccessrc to X11 apps only).
                acted = f'not acted on by KWin {self.kwin_version} (no sticky keys on Wayland before Plasma 6)'
            else:
                wait_for(lambda: self.typed_after_shift('app-a') == ['A'], 5, 0.2,
                         'Shift, then a, to type A (KWin\'s sticky keys following kaccessrc)')
                acted = f'KWin {self.kwin_version} latches Shift: Shift, then a, types A'
        finally:
            features.SetFeature('StickyKeys', False, timeout=10)
        if self.kaccessrc() != before:
            raise AssertionError(f'kaccessrc not as before after Sticky Keys off: {self.kaccessrc()!r} (was {before!r})')
        if not self.kwin_version.startswith('5.'):
            wait_for(lambda: self.typed_after_shift('app-a') == ['a'], 5, 0.2, 'Shift, then a, to type a again')
        log(f'PLASMA StickyKeys through kaccessrc: {acted}')
        return f'kaccessrc [Keyboard] StickyKeys=true written and announced; {acted}; off again gives back kaccessrc as it was'
