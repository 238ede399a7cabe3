# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's cases of Plasma's own settings (mixed into run's
Cases): the daemon keeps Sticky Keys in kaccessrc, as System Settings
does, and KWin acts on it; a session's Invert Colors inverts the screen
through KWin's invert effect; a session's volume-buttons unbinds the volume
keys in KWin's kglobalaccel.
"""

import json
import os
import re
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

    def inverter_says(self, since):
        return wait_for(lambda: re.search(r'Guided Access: inverter (on|off|unavailable)\b.*', self.kwin_log(since)),
                        5, 0.05, 'the script\'s inverter line').group(0)

    def invert_colors(self):
        """Features1.InvertColors during a session: KWin's invert effect
        loaded and active, the screen changed; off again and at End, back
        as before. The control is the same session with it off."""
        self.bring_up_apps()
        features = self.service(CONTRACT['INTERFACES']['features'])
        loaded_before = 'invert' in self.loaded_effects()
        if 'invert' in self.effects():
            raise AssertionError('the screen is inverted before the case')
        plain = self.screen_area(0, 0, 0, 0) if self.capturing else None
        gl = self.compositing().startswith('gl')
        self.start_session('app-a')
        try:
            self.wait_locked()
            since = self.kwin_log_size()
            time.sleep(0.5)
            # Control: the session without Invert Colors inverts nothing.
            if 'inverter' in self.kwin_log(since) or 'invert' in self.effects():
                raise AssertionError('a session without Invert Colors inverted the screen')
            features.SetFeature('InvertColors', True, timeout=10)
            said = self.inverter_says(since)
            if not gl:
                if not said.startswith('Guided Access: inverter unavailable:') or 'invert' in self.loaded_effects():
                    raise AssertionError(f'KWin composites with {self.compositing()}, yet: "{said}", loaded '
                                         f'{self.loaded_effects()}')
                seen = f'{self.compositing()} compositing: the script said "{said}" and loaded nothing'
            else:
                if not said.startswith('Guided Access: inverter on (invert effect') or 'screen inverted' not in said:
                    raise AssertionError(f'Invert Colors on: "{said}"')
                wait_for(lambda: 'invert' in self.effects(), 5, 0.05, 'KWin\'s invert effect active')
                seen = f'"{said}"'
                if plain is not None:
                    time.sleep(0.3)
                    changed = self.rows_changed(plain, self.screen_area(0, 0, 0, 0))
                    if changed < 0.5:
                        raise AssertionError(f'the screen did not look inverted: {changed:.0%} of its rows changed')
                    seen += f', {changed:.0%} of the screen\'s rows changed'
                since = self.kwin_log_size()
                features.SetFeature('InvertColors', False, timeout=10)
                said = self.inverter_says(since)
                wait_for(lambda: 'invert' not in self.effects(), 5, 0.05, 'the invert effect no longer active')
                seen += f'; off: "{said}"'
                features.SetFeature('InvertColors', True, timeout=10)
                wait_for(lambda: 'invert' in self.effects(), 5, 0.05, 'the invert effect active again')
        finally:
            features.SetFeature('InvertColors', False, timeout=10)
            self.end_session()
        self.wait_released()
        wait_for(lambda: 'invert' not in self.effects(), 5, 0.05, 'the invert effect no longer active after End')
        loaded_after = wait_for(lambda: ('invert' in self.loaded_effects()) == loaded_before and [loaded_before], 5,
                                0.05, f'the invert effect {"loaded" if loaded_before else "unloaded"} as before')
        if plain is not None and gl:
            time.sleep(0.3)
            changed = self.rows_changed(plain, self.screen_area(0, 0, 0, 0))
            if changed >= 0.25:
                raise AssertionError(f'after End the screen still differs from before in {changed:.0%} of its rows')
        log(f'PLASMA InvertColors on KWin {self.kwin_version}: {seen}')
        return f'{seen}; after End not inverted, the effect {"loaded" if loaded_after[0] else "unloaded"} as before'
