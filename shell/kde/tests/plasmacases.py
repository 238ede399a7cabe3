# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's cases of Plasma's own settings (mixed into run's
Cases): the daemon keeps Sticky Keys in kaccessrc, as System Settings
does, and KWin acts on it; a session's volume-buttons unbinds the volume
keys in KWin's kglobalaccel.
"""

import json
import os
import time

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
            elif self.kwin_version.startswith('6.3.'):
                # Its sticky-keys plugin compares the changed group's parent's
                # name with "Keyboard", so it reads kaccessrc at its start only.
                if self.typed_after_shift('app-a') != ['a']:
                    raise AssertionError('KWin 6.3 acted on the change: the case\'s note on its plugin is out of date')
                acted = (f'KWin {self.kwin_version} misses the change until its next start (its sticky-keys plugin '
                         'compares the changed group\'s parent name); KWin 6.7 latches at once')
            else:
                wait_for(lambda: self.typed_after_shift('app-a') == ['A'], 5, 0.2,
                         'Shift, then a, to type A (KWin\'s sticky keys following kaccessrc)')
                acted = f'KWin {self.kwin_version} latches Shift: Shift, then a, types A'
        finally:
            features.SetFeature('StickyKeys', False, timeout=10)
        if self.kaccessrc() != before:
            raise AssertionError(f'kaccessrc not as before after Sticky Keys off: {self.kaccessrc()!r} (was {before!r})')
        wait_for(lambda: self.typed_after_shift('app-a') == ['a'], 5, 0.2, 'Shift, then a, to type a again')
        log(f'PLASMA StickyKeys through kaccessrc: {acted}')
        return f'kaccessrc [Keyboard] StickyKeys=true written and announced; {acted}; off again gives back kaccessrc as it was'

    def volume_up_presses(self):
        """Presses Volume Up; how many presses kmix's component received."""
        before = len(self.events()['volume'])
        self.input.key('volumeup')
        time.sleep(0.5)
        return len(self.events()['volume']) - before

    def volume_keys(self):
        self.bring_up_apps()
        registered = json.loads(self.probe('RegisterVolumeKeys'))
        # Control: without a session Volume Up reaches kmix's component.
        wait_for(lambda: self.volume_up_presses() > 0, 5, 0.2, f'control: Volume Up to reach kmix (registered {registered})')
        before = self.probe('VolumeKeys')
        self.start_session('app-a', restrictions={'volume-buttons': 'deny'})
        try:
            self.wait_locked()
            during = self.probe('VolumeKeys')
            if json.loads(during) != []:
                raise AssertionError(f'kglobalaccel still binds Volume Up during the session: {during} (before: {before})')
            if self.volume_up_presses():
                raise AssertionError('Volume Up reached kmix during the session')
        finally:
            self.end_session()
        self.wait_released()
        after = self.probe('VolumeKeys')
        if after != before:
            raise AssertionError(f'Volume Up not bound back after End: {after} (before: {before})')
        wait_for(lambda: self.volume_up_presses() > 0, 5, 0.2, 'Volume Up to reach kmix again after End')
        self.way('the volume keys', 'closed')
        return f'Volume Up {before} before, none during the session (no press reached kmix), {after} after End'
