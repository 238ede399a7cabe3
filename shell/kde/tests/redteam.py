# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's red team (mixed into run's Cases): the ways out through
KWin's own UI that a child would try (its shortcuts, the launcher, KRunner,
screen corners, an override-redirect window over the locked app), each
beside its control, and the tally of the ways found closed, open or
untestable (one REDTEAM line per run).
"""

import time

from harness import log
from kwin import HEIGHT, WIDTH
from waiting import wait_for


class RedTeam:
    # -- the tally ------------------------------------------------------------

    # Ways out a child would try that no case tries yet (see shell/kde/README.md).
    NOT_TRIED = ('the other screen edges and touch-screen edges (switched off by the same kwinrc entries as the '
                 'corners; no touch screen here)',)

    # The first red team's ways that the run inside an assessment leaves out.
    ASSESSMENT_NOT_TRIED = ('the layouts\' ways (--layouts)', 'kill -9 of the daemon', 'KWin restarted',
                            'the script turned off in kwinrc', 'screen corners', 'the locked app killed')

    def way(self, name, state):
        self.ways[name] = state

    def red_team_tally(self, where='', ways=None, label='REDTEAM', not_tried=None):
        ways = self.ways if ways is None else ways
        by_state = {state: [name for name, found in ways.items() if found == state]
                    for state in ('closed', 'open', 'untestable')}
        log(f'{label} KWin {self.kwin_version}{where}: {len(by_state["closed"])} of {len(ways)} ways out closed'
            + ''.join(f'; {state}: {", ".join(names)}' for state, names in by_state.items() if names and state != 'closed')
            + f'; not tried {"here" if not_tried else "yet"}: {", ".join(not_tried or self.NOT_TRIED)}')

    # -- the ways out ---------------------------------------------------------

    # Each shortcut: (name, keys, did it work?). Checks run right after the
    # keys; `undo` puts things back when it worked.
    def try_shortcuts(self):
        worked = {}

        def effect_shown(effect, combo):
            self.activate('app-a')
            logged = self.kwin_log_size()
            self.input.key(combo)
            try:
                how = wait_for(lambda: (effect in self.effects() and 'shown') or
                               (f'/effects/{effect}/' in self.kwin_log(logged) and 'could not load its QML'),
                               1.5, 0.05, effect)
            except TimeoutError:
                return False
            if how == 'shown':
                self.input.key('escape')
                wait_for(lambda: effect not in self.effects(), 5, 0.05, f'{effect} to close')
            self.effects_seen[effect] = how
            return True

        # The task switcher: Alt+Tab makes another window active (KWin's
        # switcher has no UI here; without the block, Tab is not delivered).
        self.start_app('app-c')
        worked['Alt+Tab'] = not self.switcher_blocked()
        worked['Overview (Meta+W)'] = effect_shown('overview', 'meta+w')
        worked['Present Windows (Ctrl+F9)'] = effect_shown('windowview', 'ctrl+f9')
        worked['Desktop Grid (Meta+F8)'] = effect_shown('desktopgrid', 'meta+f8')
        self.activate('app-a')
        self.input.key('ctrl+f2')
        try:
            wait_for(lambda: self.desktop() == 2, 1.5, 0.05, 'desktop 2')
            worked['desktop switch (Ctrl+F2)'] = True
            self.kwin_call('/KWin', 'org.kde.KWin', 'setCurrentDesktop', self.dbus.Int32(1))
            wait_for(lambda: self.desktop() == 1, 5, 0.05, 'desktop 1 again')
        except TimeoutError:
            worked['desktop switch (Ctrl+F2)'] = False
        # The window menu takes the keyboard while it is open: a key typed
        # after Alt+F3 reaches the app only if no menu opened.
        self.activate('app-a')
        self.input.key('alt+f3')
        time.sleep(0.5)
        # (q: no item of KWin's window menu has it as its mnemonic; x, for
        # one, would maximize the window, which later cases and the
        # screenshot would then find maximized.)
        menu = not self.key_reaches('app-a', 'q', 'q')
        if menu:
            self.input.key('escape')
            wait_for(lambda: self.key_reaches('app-a', 'q', 'q', 0.5), 5, 0.1, 'the window menu to close')
        worked['window menu (Alt+F3)'] = menu
        worked['launcher (Meta)'] = self.launcher_usable()
        before = self.events()
        self.input.key('alt+space')
        time.sleep(0.8)
        worked['KRunner (Alt+Space)'] = len(self.events()['krunner']) > len(before['krunner'])
        self.activate('app-a')
        return worked

    def launcher_usable(self):
        """Presses Meta alone. True when the launcher it opens (services.py's
        stand-in for Kickoff) can be used: its window is on screen, not
        minimized, and a key typed then reaches it. Records in
        self.launcher_seen whether KWin called activateLauncherMenu and what
        became of the launcher. Closes it afterwards."""
        self.activate('app-a')
        before = len(self.events()['launcher'])
        keys = len(self.keys('launcher'))
        logged = len(self.launcher_log())
        self.input.key('meta')
        try:
            wait_for(lambda: len(self.events()['launcher']) > before, 1.5, 0.05, 'activateLauncherMenu')
            called = True
        except TimeoutError:
            called = False
        usable = False
        fate = 'never opened'
        if called:
            try:
                wait_for(lambda: self.window('launcher') or 'opened' in self.launcher_log()[logged:], 5, 0.05,
                         'the launcher to open')
                time.sleep(0.5)  # what a person sees half a second later
                window = self.window('launcher')
                on_screen = bool(window) and not window['minimized']
                # The launcher has the keyboard as it opens: a key goes to it.
                typed = self.key_reaches('launcher', 'q', 'q', 0.8)
                usable = on_screen and typed
                closed = [line.split()[1] for line in self.launcher_log()[logged:] if line.startswith('closed ')]
                fate = ('usable (on screen, took the keys)' if usable else
                        f'{"closed itself (" + closed[-1] + ")" if closed else "open"}, '
                        f'{"on screen" if on_screen else "not on screen"}, '
                        f'{"took a key" if typed else "no key reached it"}, '
                        f'{"app-a active" if self.window("app-a")["active"] else "app-a NOT active"}')
            except TimeoutError:
                fate = 'its window never appeared'
        self.launcher_seen = {'called': called, 'fate': fate,
                              'keys': len(self.keys('launcher')) - keys}
        self.plasmashell('CloseLauncher')
        wait_for(lambda: not self.window('launcher'), 5, 0.05, 'the launcher to close')
        return usable

    def shortcuts_blocked(self):
        self.start_app('app-a')
        self.start_app('app-b')
        control = self.try_shortcuts()
        # What does nothing here even without a session cannot show a block.
        # Only where that is known and explained: in KWin 6 without OpenGL,
        # the effects (Overview, Present Windows, Desktop Grid) are not
        # loaded, and Plasma 6's launcher and KRunner are reached through
        # plasmashell's own shortcuts, which the stand-ins do not register.
        untestable = self.shortcut_controls(control)
        control = {k: v for k, v in control.items() if k not in untestable}
        self.locked_session()
        try:
            locked = {k: v for k, v in self.try_shortcuts().items() if k not in untestable}
            meta = dict(self.launcher_seen)
            # During the session a key typed after Meta went to the locked app.
            if not self.key_reaches('app-a', 'q', 'q'):
                raise AssertionError('after Meta during the session, a key did not reach app-a')
        finally:
            self.end_session()
        self.wait_released()
        if any(locked.values()):
            raise AssertionError(f'worked during the session: {", ".join(k for k, v in locked.items() if v)}')
        if meta['keys']:
            raise AssertionError(f'a key reached the launcher during the session ({meta["fate"]})')
        # After End they work again.
        after = {k: v for k, v in self.try_shortcuts().items() if k not in untestable}
        if not all(after.values()):
            raise AssertionError(f'after End these still did nothing: {", ".join(k for k, v in after.items() if not v)}')
        for way in control:
            self.way(way, 'closed')
        for way in untestable:
            self.way(way, 'untestable')
        if not any(way.startswith('launcher') for way in untestable):
            self.way('Meta alone calls the launcher', 'open' if meta['called'] else 'closed')
        limitation = ('KNOWN LIMITATION: Meta alone still made KWin call activateLauncherMenu during the session '
                      '(KWin 5.27\'s modifier-only shortcut is outside kglobalaccel\'s block); the launcher it opened '
                      f'was not usable: {meta["fate"]}') if meta['called'] else \
            'Meta alone did not call activateLauncherMenu during the session'
        return (', '.join(control) + ': each worked without a session and after End, none during it. ' + limitation
                + (f'. UNTESTABLE in KWin {self.kwin_version} here (nothing happened even without a session): '
                   + ', '.join(untestable) if untestable else ''))

    def shortcut_controls(self, control):
        """The shortcuts that did nothing without a session (try_shortcuts'
        CONTROL), which only KWin 6 without OpenGL may have; kept for the red
        team inside an assessment."""
        untestable = [k for k, v in control.items() if not v] if not self.capturing else []
        if not all(control.values()) and (not untestable or self.kwin_version.startswith('5.')):
            raise AssertionError(f'control: without a session these did nothing: '
                                 f'{", ".join(k for k, v in control.items() if not v)}')
        self.untestable_shortcuts = untestable
        return untestable

    def overlay_takes_click(self, point):
        """Maps app-x as an X11 override-redirect window over the whole
        screen; whether a click at POINT reaches it 2 s later. app-x is
        stopped after."""
        self.launch_app('app-x', overlay=True)
        try:
            time.sleep(2)
            return self.click_reaches('app-x', point)
        finally:
            self.stop_app('app-x')

    def override_redirect(self):
        self.start_app('app-a')
        self.activate('app-a')
        inside = (300, 200)  # inside app-a's window, at the top left
        self.launch_app('app-x', overlay=True)
        try:
            wait_for(lambda: self.click_reaches('app-x', inside, 0.5), 10, 0.5,
                     'control: a click to reach the overlay without a session')
        finally:
            self.stop_app('app-x')
        self.locked_session()
        try:
            reached = self.overlay_takes_click(inside)
        finally:
            self.end_session()
        self.wait_released()
        self.way('an X11 override-redirect window over the app', 'open' if reached else 'closed')
        if reached and self.kwin_version.startswith('5.'):
            return ('KNOWN LIMITATION: during the session a click over app-a reached the overlay: KWin 5.27\'s '
                    'scripts are not told of override-redirect windows; KWin 6 lists them and the app lock hides them')
        if reached:
            raise AssertionError('during the session a click over app-a reached the overlay')
        return 'the control click reached the overlay; during the session it was hidden and took no click'

    def screen_edge(self):
        """Two corners: the top right set to the task switcher ([TabBox]
        BorderActivate=1, KWin's ElectricTopRight), which takes the keyboard
        when it opens, and the bottom left to KRunner ([ElectricBorders]
        BottomLeft=KRunner), which KWin calls over D-Bus (the stand-in
        records it)."""
        corners = '\n[TabBox]\nBorderActivate=1\n\n[ElectricBorders]\nBottomLeft=KRunner\n'

        def settings():
            text = self.kwinrc()

            def entry(group, key):
                part = text[text.index(f'[{group}]'):] if f'[{group}]' in text else ''
                return next((line.split('=', 1)[1] for line in part.splitlines()[1:] if line.startswith(f'{key}=')),
                            None)
            return entry('TabBox', 'BorderActivate'), entry('ElectricBorders', 'BottomLeft')

        def push(x, y):
            self.activate('app-a')
            self.input.move(WIDTH // 2, HEIGHT // 2)
            time.sleep(0.3)
            # Pushed against the corner for a second: past KWin's activation delay.
            for _ in range(20):
                self.input.move(x, y)
                time.sleep(0.05)
            time.sleep(0.5)

        def switcher_takes_keys():
            push(WIDTH - 1, 0)
            taken = not self.keys_typed_reach('app-a')
            if taken:
                self.input.key('escape')
                wait_for(lambda: self.keys_typed_reach('app-a'), 5, 0.2, 'the switcher to close on Escape')
            self.input.move(WIDTH // 2, HEIGHT // 2)
            return taken

        def krunner_called():
            before = len(self.events()['krunner'])
            push(0, HEIGHT - 1)
            self.input.move(WIDTH // 2, HEIGHT // 2)
            return len(self.events()['krunner']) > before

        self.add_to_kwinrc(corners)
        try:
            self.start_app('app-a')
            switcher, krunner = switcher_takes_keys(), krunner_called()
            if not krunner or (not switcher and self.kwin_version.startswith('5.')):
                raise AssertionError(f'control: without a session the switcher corner {"worked" if switcher else "did nothing"}, '
                                     f'the KRunner corner {"worked" if krunner else "did nothing"}')
            self.locked_session()
            try:
                if settings() != ('9', 'None'):
                    raise AssertionError(f'during the session kwinrc says {settings()}, not 9 and None')
                if switcher and switcher_takes_keys():
                    raise AssertionError('during the session the corner opened the switcher')
                if krunner_called():
                    raise AssertionError('during the session the corner called KRunner')
                if not self.locked():
                    raise AssertionError('the lock did not hold after the corners')
            finally:
                self.end_session()
            self.wait_released()
            if settings() != ('1', 'KRunner'):
                raise AssertionError(f'after End kwinrc says {settings()}, not the user\'s 1 and KRunner')
        finally:
            self.write_kwinrc(self.kwinrc().replace(corners, ''))
            self.reconfigure()
        self.way('a screen corner set to KRunner', 'closed')
        if not switcher:
            # Seen on KWin 6.7 without OpenGL; 6.3 opens it in the same setup.
            self.way('a screen corner set to the task switcher', 'untestable')
            return (f'the KRunner corner called it without a session and not during it; UNTESTABLE (the switcher corner) '
                    f'on KWin {self.kwin_version} here: it opens no switcher that takes the keys even without a '
                    'session; kwinrc said none during the session, the user\'s corners were back after End')
        self.way('a screen corner set to the task switcher', 'closed')
        return ('control: the switcher corner took the keys and the KRunner corner called it; during the session '
                'kwinrc said none, neither corner did anything and keys reached app-a; after End the user\'s corners '
                'were back')
