# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's red team (mixed into run's Cases): every way away
from the locked app that Cinnamon and X11 offer a person or another
program, each tried without a session (the control: it must work there)
and in one; the tally is a REDTEAM line with each way closed, open or
untestable, every open one named."""

import os
import subprocess
import time

from harness import log
from waiting import wait_for

# Ways out tried by hand and not by a case, and why.
NOT_TRIED = ('Ctrl+Alt+F1 (Xvfb has no virtual terminals; close it with the X server\'s DontVTSwitch, '
             'shell/cinnamon/README.md)', 'the screensaver\'s own dialogs (cinnamon-screensaver does not run here)')

# Checks of what a way out opens, in Cinnamon (Eval).
MENU_OPEN = ("imports.ui.appletManager.getRunningInstancesForUuid('menu@cinnamon.org')"
             ".some(applet => applet.menu.isOpen)")
RUN_DIALOG_OPEN = 'imports.ui.main.modalCount > 0'


class RedTeam:
    def way(self, name, state):
        self.ways[name] = state

    def red_team_tally(self):
        by_state = {state: [name for name, found in self.ways.items() if found == state]
                    for state in ('closed', 'open', 'untestable')}
        log(f'REDTEAM Cinnamon {self.version}: {len(by_state["closed"])} of {len(self.ways)} ways out closed'
            + ''.join(f'; {state}: {", ".join(names)}' for state, names in by_state.items() if names and state != 'closed')
            + f'; not tried: {", ".join(NOT_TRIED)}')

    def close_everything(self):
        """Puts back what a control opened: menus, Expo, Scale, dialogs."""
        self.key('Escape')
        self.js('(() => { const Main = imports.ui.main; if (Main.expo.visible) Main.expo.hide(); '
                'if (Main.overview.visible) Main.overview.hide(); return true; })()')
        time.sleep(0.3)

    def shell_ways(self):
        """Cinnamon's own ways away: each opens its thing without a session
        and nothing during one."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        # A hot corner, as a person sets one (top left: Expo, at once).
        subprocess.run(['gsettings', 'set', 'org.cinnamon', 'hotcorner-layout',
                        "['expo:true:0', 'scale:false:0', 'scale:false:0', 'desktop:false:0']"],
                       env=self.env, check=True, timeout=20)
        ways = {
            'Alt+Tab': (lambda: self.key('alt+Tab'), lambda: not self.window('app-a')['focused']),
            'the menu (Super)': (lambda: self.key('super'), lambda: self.js(MENU_OPEN)),
            'the panel\'s menu button': (lambda: self.click(16, 780), lambda: self.js(MENU_OPEN)),
            'Expo (Ctrl+Alt+Up)': (lambda: self.key('ctrl+alt+Up'), lambda: self.js('imports.ui.main.expo.visible')),
            'Scale (Ctrl+Alt+Down)': (lambda: self.key('ctrl+alt+Down'),
                                      lambda: self.js('imports.ui.main.overview.visible')),
            'the hot corner (Expo)': (self.hot_corner, lambda: self.js('imports.ui.main.expo.visible')),
            'the run dialog (Alt+F2)': (lambda: self.key('alt+F2'), lambda: self.js(RUN_DIALOG_OPEN)),
        }
        controls = {}
        for name, (act, opened) in ways.items():
            self.activate('app-a')
            self.park_pointer()
            act()
            controls[name] = self.seen_within(opened, 2)
            self.close_everything()
        missing = [name for name, worked in controls.items() if not worked]
        if missing:
            raise AssertionError(f'control: without a session these did nothing: {", ".join(missing)}')
        self.activate('app-a')
        self.start_session('app-a')
        leaked = []
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            for name, (act, opened) in ways.items():
                self.park_pointer()
                act()
                if self.seen_within(opened, 1):
                    leaked.append(name)
                    self.close_everything()
                self.way(name, 'open' if name in leaked else 'closed')
            panels = self.js('imports.ui.main.panelManager.getPanels().filter(Boolean).map(p => p.actor.visible)')
        finally:
            self.end_session()
        wait_for(lambda: self.js('imports.ui.main.panelManager.getPanels().filter(Boolean).every(p => p.actor.visible)'), 5,
                 what='the panels back after End')
        # After End each works again: the control once more, for the first.
        self.activate('app-a')
        self.key('alt+Tab')
        if not self.seen_within(lambda: not self.window('app-a')['focused'], 2):
            raise AssertionError('Alt+Tab did not work again after End')
        if leaked:
            raise AssertionError(f'during the session these still led away: {", ".join(leaked)}')
        return f'{len(ways)} ways tried, each working without a session and doing nothing in one (panels {panels})'

    def seen_within(self, check, seconds):
        try:
            return wait_for(check, seconds, 0.05, 'it')
        except TimeoutError:
            return False

    def hot_corner(self):
        self.xdotool('mousemove', '100', '100')
        time.sleep(0.1)
        self.xdotool('mousemove', '0', '0')

    def park_pointer(self):
        self.xdotool('mousemove', '640', '400')

    def click(self, x, y):
        self.xdotool('mousemove', str(x), str(y), 'click', '1')

    def x11_ways(self):
        """What X11 gives any program: XTEST input from another program
        reaches the locked app as a person's would, never another app (a
        shell cannot tell it from a person's: named open); xkill closes the
        locked app, which is launched again while the lock holds."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            before = {name: len(self.keys(name)) for name in ('app-a', 'app-b')}
            self.xdotool('key', 'x')
            wait_for(lambda: len(self.keys('app-a')) > before['app-a'], 2, what='the synthesized key to reach app-a')
            if len(self.keys('app-b')) > before['app-b'] or not self.window('app-b')['minimized']:
                raise AssertionError('a synthesized key reached app-b, or brought it forward')
            self.way('XTEST input from another program (reaches the locked app as a person\'s keys do)', 'open')
            pid = self.window('app-a')['pid']
            self.xdotool('search', '--name', '^app-a$', 'windowkill')
            wait_for(lambda: (self.window('app-a') or {}).get('pid') not in (None, pid), 15, 0.05,
                     'app-a launched again after xkill')
            wait_for(lambda: self.window('app-a')['focused'] and self.window('app-b')['minimized'], 5, 0.05,
                     'the launched app-a to have the focus with app-b minimized')
            self.way('xkill of the locked app', 'closed')
        finally:
            self.end_session()
        self.apps.pop('app-a', None)
        return ('a key synthesized with XTEST reached app-a only; xkill closed app-a, which was launched again and '
                'focused, app-b minimized')

    def override_redirect(self):
        """Another program's override-redirect window over the whole screen
        (what X11 lets any client map, above every managed window): without
        a session a click over app-a reaches it (the control); during one
        it is hidden and covered, and the click reaches it no more; once it
        is gone, app-a's own popup menu (an override-redirect window too)
        opens and takes its click."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        inside = self.inside('app-a')
        self.launch_app('app-x', overlay='overlay')
        try:
            wait_for(lambda: self.js('global._ga.overlay()') is not None, 10, 0.1, 'the overlay mapped')
            if not self.seen_within(lambda: self.click_reaches('app-x', *inside, seconds=0.5), 10):
                raise AssertionError('control: without a session a click over app-a did not reach the overlay')
        finally:
            self.stop_app('app-x')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            self.launch_app('app-x', overlay='overlay')
            wait_for(lambda: self.js('global._ga.overlay()') is not None, 10, 0.1, 'the overlay mapped')
            time.sleep(0.5)
            shown = self.js('global._ga.overlay()')
            reached = self.click_reaches('app-x', *inside)
            self.stop_app('app-x')
            wait_for(lambda: self.js('global._ga.overlay()') is None, 5, 0.1, 'the overlay gone')
            menu = self.own_menu_works('app-a', inside)
        finally:
            self.stop_app('app-x')
            self.end_session()
        self.way('another program\'s override-redirect window over the app', 'open' if reached else 'closed')
        if reached or shown['visible']:
            raise AssertionError(f'during the session the overlay was {"shown" if shown["visible"] else "hidden"} and '
                                 f'{"took" if reached else "did not take"} the click ({shown})')
        if not menu:
            raise AssertionError('during the session app-a\'s own popup menu did not take its click')
        return ('the control click reached the overlay; during the session it was hidden and took no click; after it '
                'went, app-a\'s own popup menu (override-redirect too) opened and took its click')

    def inside(self, name):
        """A point inside NAME's window, away from its title bar."""
        window = self.window(name)
        return window['x'] + window['width'] // 3, window['y'] + window['height'] // 2

    def own_menu_works(self, name, point):
        """A right-click at POINT opens NAME's popup menu (GTK maps it as an
        override-redirect window on X11); a click on its item reaches it."""
        log_path = self.app_log(name)
        with open(log_path) as f:
            before = sum(line.startswith('menu ') for line in f)
        self.xdotool('mousemove', str(point[0]), str(point[1]), 'click', '3')
        time.sleep(0.5)
        self.xdotool('mousemove', str(point[0] + 20), str(point[1] + 12), 'click', '1')

        def chosen():
            with open(log_path) as f:
                return sum(line.startswith('menu ') for line in f) > before
        return self.seen_within(chosen, 2)

    def keyboard_grab(self):
        """Another program's keyboard grab (XGrabKeyboard, on an
        override-redirect window of its own, which any X11 client may map
        and grab with) during a session: whether the keys typed go to it
        (open: a shell cannot refuse or break another client's grab) or
        still to the locked app (closed, as observed: see README), in the
        tally. After it exits the keys reach the app. Control: without a
        session the same grab takes the keys."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        taken = {}
        for session in (False, True):
            if session:
                self.start_session('app-a')
                wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            try:
                self.launch_app('app-x', overlay='overlay-grab')
                log_path = self.app_log('app-x')
                wait_for(lambda: os.path.exists(log_path) and 'grab ' in open(log_path).read(), 10, 0.1,
                         'app-x to grab the keyboard')
                status = open(log_path).read().split('grab ', 1)[1].split()[0]
                before = {name: len(self.keys(name)) for name in ('app-a', 'app-x')}
                self.type_text('qz')
                time.sleep(0.5)
                taken[session] = (status, {name: len(self.keys(name)) - before[name] for name in before})
                self.stop_app('app-x')
                wait_for(lambda: self.keys_reach('app-a'), 5, 0.2, 'keys to reach app-a again after app-x left')
            finally:
                if session:
                    self.end_session()
        if taken[False][0] != 'success' or taken[False][1]['app-x'] == 0:
            raise AssertionError(f'control: without a session the grab did not take the keys: {taken[False]}')
        status, counts = taken[True]
        grabbed = status == 'success' and counts['app-x'] > 0 and counts['app-a'] == 0
        self.way('another program\'s XGrabKeyboard (an override-redirect window of its own takes every key while it '
                 'holds the grab)', 'open' if grabbed else 'closed')
        return (f'without a session the grab took the keys ({taken[False]}); during one: grab {status}, keys '
                f'{counts} ({"open: X11 gave the keys to the grabbing client" if grabbed else "closed: they reached app-a"})'
                '; after it exited the keys reached app-a again')

    def keys_reach(self, name):
        """Whether a key typed now reaches NAME."""
        before = len(self.keys(name))
        self.type_text('k')
        time.sleep(0.2)
        return len(self.keys(name)) > before
