# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's cases of the dialog and what the session shows (mixed
into run's Cases): the end gesture and its dialog (a wrong passcode, the
right one, everything as before after End), the start dialog offered
without a session, the accessibility switches (KWin's zoom effect as the
magnifier), the time left and its warning, the shield at expiry.
"""

import re
import time

from harness import PASSCODE
from kwin import END_GESTURE, HEIGHT, WIDTH, middle
from waiting import wait_for


class DialogCases:
    # -- the dialog -----------------------------------------------------------

    def end_gesture(self):
        for _ in range(3):
            self.input.key(END_GESTURE)
            time.sleep(0.1)

    def passcode_ends(self, timeout=15, what='the passcode typed into the dialog to end the session'):
        """Types the passcode into the open dialog, and Enter, until the
        session ends (again while the daemon still backs off after a wrong one)."""
        def ended():
            self.input.type(PASSCODE)
            self.input.key('enter')
            try:
                wait_for(lambda: not self.prop('Enabled'), 3, what='End')
                return True
            except TimeoutError:
                return False  # still backing off after a wrong one: try again
        wait_for(ended, timeout, 0.5, what)

    def state_on_screen(self):
        """What End must put back exactly."""
        report = self.report()
        return {
            'windows': sorted((w['caption'], w['minimized']) for w in report['windows']),
            'active': report['active'],
            'desktop': report['desktop'],
            'effects': self.loaded_effects(),
            'screen centre': hash(self.centre()),
            'inhibited': len(self.events()['inhibit']) - len(self.events()['uninhibit']),
        }

    def end_dialog(self):
        self.bring_up_apps()
        time.sleep(0.3)
        before = self.state_on_screen()
        self.start_session('app-a', regions=[(0, 0, 100, 100)], time_limit=3600,
                           restrictions={'app-switching': 'deny', 'notifications': 'deny'})
        self.wait_locked()
        time.sleep(0.5)
        plain = self.centre()  # locked, no dialog
        self.end_gesture()
        wait_for(lambda: self.centre() != plain, 5, 0.1, 'a dialog in the middle of the screen')
        time.sleep(0.5)
        self.screenshot('kde-end-dialog')
        typed = len(self.keys('app-a'))
        self.input.type('1357')
        self.input.key('enter')
        time.sleep(1)
        if not self.prop('Enabled') or not self.locked():
            raise AssertionError('a wrong passcode ended the session')
        if self.centre() == plain:
            raise AssertionError('the dialog closed after a wrong passcode')
        if self.keys('app-a')[typed:]:
            raise AssertionError(f'keys typed into the dialog reached app-a: {self.keys("app-a")[typed:]}')
        self.passcode_ends(30, 'the right passcode typed into the dialog to end the session')
        self.wait_released()
        wait_for(lambda: hash(self.centre()) == before['screen centre'], 5, 0.1,
                 'the dialog to close (the middle of the screen as before the session)')
        self.activate('app-a')
        time.sleep(0.5)
        after = self.state_on_screen()
        differences = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
        if differences:
            raise AssertionError(f'not as before End: {differences}')
        if not self.key_reaches('app-a', 'x', 'x'):
            raise AssertionError('after End a typed key does not reach app-a')
        if not self.try_shortcuts()['Alt+Tab']:
            raise AssertionError('Alt+Tab does not work after End')
        return 'the dialog took the wrong passcode (the lock stayed, no key reached app-a) and the right one; ' \
            'after End windows, desktop, effects, the screen and notification inhibition as before; ' \
            'keys reach app-a, Alt+Tab works'

    def start_gesture(self):
        self.bring_up_apps()
        time.sleep(0.3)
        if self.prop('Enabled'):
            raise AssertionError('a session is on before the case')
        plain = self.centre()

        def open_dialog():
            self.end_gesture()
            wait_for(lambda: self.centre() != plain, 5, 0.1, 'the dialog in the middle of the screen')
            time.sleep(0.7)  # the dialog asks the daemon for the app's id

        def closed_without_session(how):
            wait_for(lambda: self.centre() == plain, 5, 0.1, f'the dialog to close ({how})')
            time.sleep(0.7)
            if self.prop('Enabled') or not self.released():
                raise AssertionError(f'{how} started a session')
        # Control: Escape, and Cancel (Shift+Tab from the focused Start button, then Enter).
        open_dialog()
        self.screenshot('kde-start-dialog')
        self.input.key('escape')
        closed_without_session('Escape')
        open_dialog()
        self.input.key('shift+tab')
        self.input.key('enter')
        closed_without_session('Cancel')
        # Start: Enter on the focused "Start Guided Access".
        open_dialog()
        self.input.key('enter')
        try:
            wait_for(lambda: self.prop('Enabled'), 10, 0.1, 'a session started from the dialog')
            app = str(self.prop('App'))
            self.wait_locked()
            if app != self.app_id('app-a'):
                raise AssertionError(f'the session is for {app}, not app-a ({self.app_id("app-a")})')
            wait_for(lambda: self.window('app-a')['active'], 5, 0.1, 'app-a active in the session')
        finally:
            if self.prop('Enabled'):
                self.end_session()
        self.wait_released()
        return f'App = {app}, app-b minimized; Escape and Cancel closed the dialog with no session'

    def expiry_shield(self):
        self.bring_up_apps()
        centre = middle(self.window('app-a'))
        self.start_session('app-a', time_limit=3)
        try:
            self.wait_locked()
            # A window whose app ids are not known yet is shielded (fail
            # closed) until the daemon's answer comes: a new app-a (one the
            # daemon launched in a fresh KWin) gets its hole a moment later.
            try:
                wait_for(lambda: self.click_reaches('app-a', centre, 0.3), 1.5, 0.1, 'a click reaching app-a')
            except TimeoutError:
                raise AssertionError('a click did not reach app-a before the time ran out')
            wait_for(lambda: self.prop('State') == 'expired', 10, 0.1, 'State expired')
            time.sleep(0.5)
            shielded = not self.click_reaches('app-a', centre)
            self.screenshot('kde-expired')
        finally:
            self.end_session()
        self.wait_released()
        if not shielded:
            raise AssertionError('a click reached app-a after the time ran out (no shield)')
        time.sleep(0.3)
        if not self.click_reaches('app-a', centre):
            raise AssertionError('a click did not reach app-a after End (the shield stayed)')
        return 'clicks reached app-a before expiry, not at "expired", again after End'

    def time_left(self):
        self.bring_up_apps()
        pill = (WIDTH - 150 - 12, 12, 150, 36)  # where TimeLeft.qml puts it
        osd = (WIDTH // 2 - 210, HEIGHT - 64 - 80, 420, 64)
        # Control: a locked session without a limit (the shield dims the same places).
        self.start_session('app-a')
        try:
            self.wait_locked()
            time.sleep(0.5)
            no_pill, no_osd = self.view(*pill), self.view(*osd)
        finally:
            self.end_session()
        self.wait_released()
        self.activate('app-a')
        self.start_session('app-a', time_limit=14)
        try:
            self.wait_locked()
            wait_for(lambda: self.view(*pill) != no_pill, 5, 0.1, 'the time-left pill')
            # Readable: its white text is not under the shield's shade.
            wait_for(lambda: self.appeared(no_pill, self.view(*pill)), 3, 0.1,
                     'the pill\'s text in full brightness (above the shield)')
            self.screenshot('kde-time-left')
            first = self.view(*pill)
            if self.view(*osd) != no_osd:
                raise AssertionError('a warning is shown before 10 s are left')
            keys = self.keys_typed_reach('app-a')
            wait_for(lambda: self.view(*pill) != first, 3, 0.1, 'the pill to count down')
            wait_for(lambda: self.appeared(no_osd, self.view(*osd)),
                     10, 0.1, 'the 10 s warning, readable')
            left = int(self.prop('TimeRemaining'))
            self.screenshot('kde-warning')
            warning_keys = self.keys_typed_reach('app-a', 'jkl', 0.5)
        finally:
            self.end_session()
        self.wait_released()
        if keys != list('asdf'):
            raise AssertionError(f'with the pill shown (keyboards allowed) app-a got {keys} for "asdf"')
        if warning_keys != list('jkl'):
            raise AssertionError(f'with the warning shown (keyboards allowed) app-a got {warning_keys} for "jkl"')
        return f'pill shown above the shield and counting down; the warning seen with {left} s left; ' \
            'keys reached app-a under both'

    # -- accessibility --------------------------------------------------------

    def zoom_effect(self):
        """KWin's zoom effect (its magnifier) as KWin reports it: whether it
        is loaded, whether it is showing (activeEffects), and its zoom
        (targetZoom from supportInformation; None when it is not loaded)."""
        loaded = 'zoom' in self.loaded_effects()
        target = None
        if loaded:
            text = str(self.kwin_call('/Effects', 'org.kde.kwin.Effects', 'supportInformation', 'zoom'))
            match = re.search(r'^targetZoom:\s*([\d.]+)', text, re.M)
            target = float(match.group(1)) if match else None
        return loaded, 'zoom' in self.effects(), target

    def compositing(self):
        """How KWin composites ("gl2", "qpainter"...): its zoom effect needs
        OpenGL."""
        return str(self.kwin_call('/Compositor', 'org.freedesktop.DBus.Properties', 'Get', 'org.kde.kwin.Compositing',
                                  'compositingType'))

    def saved_zoom(self):
        """The zoom KWin's zoom effect saved in kwinrc when it was unloaded
        (its next load starts there); None when it saved none."""
        try:
            text = self.kwinrc()
        except FileNotFoundError:
            return None
        match = re.search(r'^\[Effect-zoom\]\n(?:[^\[].*\n)*?InitialZoom=(\S+)', text, re.M)
        return float(match.group(1)) if match else None

    @staticmethod
    def rows_changed(before, after):
        """The share of the screen's rows that differ between two captures of
        the whole screen (screen_area(0, 0, 0, 0))."""
        _, height, stride, first = before
        second = after[3]
        return sum(first[y * stride:(y + 1) * stride] != second[y * stride:(y + 1) * stride]
                   for y in range(height)) / height

    def zoom_off_in_kwinrc(self, off):
        """The person's Plasma with its zoom effect off ([Plugins]
        zoomEnabled=false in kwinrc, which KWin's reconfigure at the
        session's start and End obeys), or back as it was."""
        lines = [line for line in self.kwinrc().splitlines() if line != 'zoomEnabled=false']
        if off:
            if '[Plugins]' in lines:
                lines.insert(lines.index('[Plugins]') + 1, 'zoomEnabled=false')
            else:
                lines += ['', '[Plugins]', 'zoomEnabled=false']
        self.write_kwinrc('\n'.join(lines) + '\n')
        self.reconfigure()
        self.load_zoom(not off)

    def load_zoom(self, load=True):
        """KWin's zoom effect loaded, or unloaded (org.kde.KWin /Effects)."""
        self.kwin_call('/Effects', 'org.kde.kwin.Effects', 'loadEffect' if load else 'unloadEffect', 'zoom')

    def accessibility_switches(self):
        names = ('ScreenReader', 'Zoom', 'InvertColors')

        def features():
            return {name: self.feature(name) for name in names}
        self.bring_up_apps()
        before = features()
        if any(before.values()):
            raise AssertionError(f'features on before the case: {before}')
        # Zoom off in the person's Plasma for the case (KWin loads it by
        # default): the script loads it for Zoom, and unloads it after.
        zoom_was_loaded = self.zoom_effect()[0]
        self.zoom_off_in_kwinrc(True)
        try:
            return self.switches_and_zoom(features, before)
        finally:
            self.zoom_off_in_kwinrc(False)
            if not zoom_was_loaded:
                self.load_zoom(False)

    def switches_and_zoom(self, features, before):
        def open_dialog(logged, switches):
            self.end_gesture()
            self.kwin_logged(logged, f'dialog: shown (end); accessibility switches: {switches}', 5,
                             f'the dialog with the switches {switches}')
            time.sleep(0.5)  # the dialog reads the features and takes the keys

        def magnifier_says(since):
            return wait_for(lambda: re.search(r'Guided Access: magnifier (on|off|unavailable)\b.*', self.kwin_log(since)),
                            5, 0.05, 'the script\'s magnifier line').group(0)

        def magnified(how, unzoomed):
            """The screen magnified through the zoom effect: active, at 2x or
            more, the screen changed (where KWin captures it)."""
            zoom = wait_for(lambda: self.zoom_effect()[1] and self.zoom_effect(), 5, 0.05, 'KWin\'s zoom effect active')
            if not zoom[2] or zoom[2] < 2:
                raise AssertionError(f'the zoom effect ({how}) zooms {zoom[2]}, not 2x or more')
            seen = f'zoom effect {how}, active, targetZoom {zoom[2]:.2f}'
            if unzoomed is not None:
                time.sleep(0.3)  # no animations here: a frame or two
                changed = self.rows_changed(unzoomed, self.screen_area(0, 0, 0, 0))
                if changed < 0.5:
                    raise AssertionError(f'the screen did not look magnified ({how}): {changed:.0%} of its rows changed')
                seen += f', {changed:.0%} of the screen\'s rows changed'
            return seen

        def switch_zoom(on):
            since = self.kwin_log_size()
            self.input.key('space')
            wait_for(lambda: self.feature('Zoom') == on, 5, 0.05, f'Features1.Zoom {"on" if on else "off"}')
            self.kwin_logged(since, f'dialog: shows ScreenReader=on Zoom={"on" if on else "off"}', 5,
                             f'the switch showing Zoom {"on" if on else "off"}')
            return magnifier_says(since)

        # Control: a session whose shortcut is empty: no switch; Tab, Space
        # there change nothing, and nothing magnifies.
        self.start_session('app-a', shortcut=[])
        try:
            self.wait_locked()
            logged = self.kwin_log_size()
            open_dialog(logged, 'none')
            for key in ('tab', 'space'):
                self.input.key(key)
            time.sleep(0.5)
            if features() != before:
                raise AssertionError(f'control: with an empty shortcut the keys changed {features()}')
            if 'magnifier' in self.kwin_log(logged) or self.zoom_effect()[:2] != (False, False):
                raise AssertionError(f'control: with an empty shortcut the magnifier came (zoom effect loaded, '
                                     f'active, zoom: {self.zoom_effect()})')
            self.input.key('escape')
        finally:
            self.end_session()
        self.wait_released()
        self.activate('app-a')
        shortcut = ['ScreenReader', 'Zoom']
        self.start_session('app-a', shortcut=shortcut)
        ended = False
        try:
            self.wait_locked()
            logged = self.kwin_log_size()
            open_dialog(logged, ' '.join(shortcut))
            self.kwin_logged(logged, 'dialog: shows ScreenReader=off Zoom=off', 5, 'the switches showing both off')
            # The passcode field has the focus: Tab to Screen Reader, Space.
            self.input.key('tab')
            self.input.key('space')
            wait_for(lambda: self.feature('ScreenReader'), 5, 0.05, 'Features1.ScreenReader on')
            self.kwin_logged(logged, 'dialog: shows ScreenReader=on Zoom=off', 5, 'the switch showing Screen Reader on')
            if 'magnifier' in self.kwin_log(logged) or self.zoom_effect()[0]:
                raise AssertionError('Screen Reader on brought the magnifier')
            unzoomed = self.screen_area(0, 0, 0, 0) if self.capturing else None
            compositing = self.compositing()
            # What a person sees. Where KWin can run its zoom effect (OpenGL
            # compositing): Zoom on magnifies with the person's zoom effect
            # (loaded), Zoom off puts it back to actual size and leaves it
            # loaded; without it loaded, Zoom loads it, and End unloads it.
            # Elsewhere the script says why not and changes nothing.
            self.input.key('tab')
            if compositing.startswith('gl'):
                self.load_zoom()
                said = switch_zoom(True)
                if not said.startswith('Guided Access: magnifier on (zoom effect already loaded'):
                    raise AssertionError(f'with the zoom effect loaded: "{said}"')
                seen = [magnified('already loaded', unzoomed)]
                said = switch_zoom(False)
                if said != 'Guided Access: magnifier off, back to actual size':
                    raise AssertionError(f'Zoom off: "{said}"')
                zoom = wait_for(lambda: not self.zoom_effect()[1] and self.zoom_effect(), 5, 0.05,
                                'the zoom effect no longer active')
                if zoom != (True, False, 1.0):
                    raise AssertionError(f'after Zoom off the zoom effect (loaded, active, zoom) is {zoom}, not '
                                         'loaded at actual size')
                back = 'Zoom off: back to actual size, the effect left loaded'
                if unzoomed is not None:
                    time.sleep(0.3)
                    changed = self.rows_changed(unzoomed, self.screen_area(0, 0, 0, 0))
                    if changed >= 0.25:
                        raise AssertionError(f'after Zoom off the screen still looks magnified: {changed:.0%} of its '
                                             'rows differ from before Zoom')
                    back += f', {changed:.0%} of the rows differ from before Zoom (the switches)'
                seen.append(back)
                self.load_zoom(False)
                said = switch_zoom(True)
                if not said.startswith('Guided Access: magnifier on (zoom effect loaded here'):
                    raise AssertionError(f'with the zoom effect not loaded: "{said}"')
                seen.append(magnified('loaded by the script', unzoomed))
                magnifier = '; '.join(seen)
            else:
                said = switch_zoom(True)
                if not said.startswith('Guided Access: magnifier unavailable:'):
                    raise AssertionError(f'KWin composites with {compositing}, yet: "{said}"')
                if self.zoom_effect()[:2] != (False, False):
                    raise AssertionError(f'the magnifier is unavailable, yet the zoom effect is {self.zoom_effect()}')
                magnifier = f'{compositing} compositing, the script said "{said}"; the zoom effect not loaded'
            during = features()
            if during['InvertColors'] or 'InvertColors' in self.kwin_log(logged):
                raise AssertionError('InvertColors, not in the shortcut, was shown or switched')
            if self.prop('Enabled') is False or not self.locked():
                raise AssertionError('the switches loosened the lock')
            # Back to the passcode field (Shift+Tab twice) and End from there.
            self.input.key('shift+tab')
            self.input.key('shift+tab')
            self.passcode_ends()
            ended = True
        finally:
            if not ended:
                self.end_session()
        self.wait_released()
        wait_for(lambda: not self.script_loaded('guidedaccess-dialog'), 5, 0.1, 'the dialog to close after End')
        after = wait_for(lambda: features() == before and features(), 5, 0.1, 'the features back as before')
        wait_for(lambda: self.zoom_effect()[:2] == (False, False), 5, 0.05,
                 'KWin\'s zoom effect not loaded and not active after End')
        if self.saved_zoom() not in (None, 1.0):
            raise AssertionError(f'the zoom effect saved the zoom {self.saved_zoom()} (kwinrc [Effect-zoom] InitialZoom): '
                                 'it would start zoomed next time')
        return (f'before {before}; during {during}; after End {after}; the switches showed each value after its reply; '
                f'no InvertColors switch; KWin {self.kwin_version} magnifier: {magnifier}; after End the zoom effect '
                f'not loaded, not active, no zoom saved (control: no magnifier with an empty shortcut)')
