# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's cases of the lock itself (mixed into run's Cases): the
script registered, other apps (a new window, an Xwayland app) unreachable,
also-allowed apps and Alt+Tab, disabled regions, notifications and
keyboards denied; each beside its control.
"""

import subprocess
import time

from kwin import SCRIPT_ID, middle
from waiting import wait_for


class LockCases:
    def enforcer_registered(self):
        enforcers = self.wait_registered('RegisterEnforcer("kwin", ...)')
        if not self.script_loaded():
            raise AssertionError(f'isScriptLoaded("{SCRIPT_ID}") is false')
        if 'app-lock' not in enforcers['kwin']:
            raise AssertionError(f'Enforcers is {enforcers}: "kwin" does not claim app-lock')
        status = subprocess.run([f'{self.work}/bin/guided-access', 'status'], env=self.env, capture_output=True,
                                text=True, timeout=20)
        if status.returncode != 0 or 'kwin' not in status.stdout:
            raise AssertionError(f'guided-access status does not name kwin: {status.stdout}{status.stderr}')
        line = next((line.strip() for line in status.stdout.splitlines() if 'kwin' in line), '')
        return f'kwin → {", ".join(enforcers["kwin"])}; status: "{line}"'

    def other_apps_unreachable(self):
        self.start_app('app-a')
        self.start_app('app-b')
        self.start_app('app-x', x11=True)
        others = ('app-b', 'app-x')
        # Control: without a session, B and the X11 app come forward and keep
        # the focus, and B shown again by another script stays shown.
        for other in others:
            self.activate('app-a')
            self.activate(other)
            time.sleep(0.3)
            window = self.window(other)
            if not window['active'] or window['minimized']:
                raise AssertionError(f'control: {other} did not keep the focus without a session')
        self.set_minimized_once('app-b', True)
        self.set_minimized_once('app-b', False)
        if self.window('app-b')['minimized']:
            raise AssertionError('control: app-b shown again by a script did not stay shown without a session')
        self.activate('app-a')
        self.start_session('app-a')
        flashes = []
        try:
            self.wait_locked(others)
            for other in others:
                since = time.monotonic()
                self.activate_once(other)
                wait_for(lambda: self.window('app-a')['active'] and self.locked(others), 5, 0.05,
                         f'the focus to go back to app-a after activating {other}')
                time.sleep(0.3)
                if not self.locked(others):
                    raise AssertionError(f'{other} came back after activation')
                shown = [r for r in self.reports_since(since) if not (self.window(other, r[1]) or {}).get('minimized')]
                flashes.append(f'{other} seen unminimized in {len(shown)} report(s)' if shown else f'{other} never shown')
            # Shown again without being activated: no focus change tells the
            # lock, only the window's own minimizedChanged.
            since = time.monotonic()
            self.set_minimized_once('app-b', False)
            wait_for(lambda: self.locked(others), 5, 0.05, 'app-b minimized again after another script showed it')
            shown = [r for r in self.reports_since(since) if not (self.window('app-b', r[1]) or {}).get('minimized')]
            flashes.append(f'app-b shown by a script: minimized again, seen shown in {len(shown)} report(s)')
            self.launch_app('app-c')
            wait_for(lambda: (self.window('app-c') or {}).get('minimized'), 20, 0.1,
                     'the new window of app-c minimized')
        finally:
            self.end_session()
        self.wait_released(others + ('app-c',))
        for way in ('another app activated (a taskbar\'s way)', 'another app\'s new window', 'an Xwayland app'):
            self.way(way, 'closed')
        return f'activating app-b, app-x bounced back to app-a ({"; ".join(flashes)}); ' \
            'app-c\'s new window minimized; all back after End'

    def alt_tab(self):
        """Alt+Tab as a person presses it (Alt held a moment); the active
        window's caption afterwards, and every one active in between."""
        since = time.monotonic()
        self.input.key('alt+tab', hold=0.3)
        time.sleep(0.6)
        seen = [r[1]['active'] for r in self.reports_since(since)]
        return self.active(), seen

    def alt_tabs(self, times=3):
        """Alt+Tab TIMES times: every window active on the way."""
        tabbed = []
        for _ in range(times):
            active, between = self.alt_tab()
            tabbed += between + [active]
        return tabbed

    def switcher_blocked(self):
        """Alt+Tab changes nothing: app-a stays active and receives the Tab."""
        self.activate('app-a')
        before = len(self.keys('app-a'))
        _, between = self.alt_tab()
        switched = any(active not in ('app-a', None) for active in between)
        return not switched and any(key == 'Tab' for _, key in self.keys('app-a')[before:])

    def lock_in_place(self, after):
        """Fails unless app-b is minimized and Alt+Tab is blocked (AFTER:
        what the lock came back from)."""
        if not self.locked() or not self.switcher_blocked():
            raise AssertionError(f'the lock is not in place after {after}')

    def also_allowed(self):
        for name in ('app-a', 'app-b', 'app-c'):
            self.start_app(name)
        # Control: without a session Alt+Tab from app-a reaches app-b (the
        # window active before it).
        self.activate('app-c')
        self.activate('app-b')
        self.activate('app-a')
        if self.alt_tab()[0] != 'app-b':
            raise AssertionError(f'control: without a session Alt+Tab from app-a did not reach app-b{self.seen()}')
        self.activate('app-a')
        self.start_session('app-a', also_allowed=('app-b',))
        try:
            wait_for(lambda: self.locked(('app-c',)), 5, 0.05, 'app-c minimized')
            time.sleep(0.5)
            if self.window('app-b')['minimized']:
                raise AssertionError('the also-allowed app-b was minimized')
            self.activate('app-a')
            went, seen_there = self.alt_tab()
            back, seen_back = self.alt_tab()
            if (went, back) != ('app-b', 'app-a'):
                raise AssertionError(f'Alt+Tab went to {went}, then to {back}, not app-b and back to app-a{self.seen()}')
            # app-b, active, takes clicks: the shield leaves it uncovered.
            self.alt_tab()
            wait_for(lambda: self.window('app-b')['active'], 3, 0.05, 'app-b active again')
            if not self.click_reaches('app-b', middle(self.window('app-b'))):
                raise AssertionError('a click on the also-allowed app-b did not reach it')
            self.activate('app-a')
            self.activate_once('app-c')
            wait_for(lambda: self.active() in ('app-a', 'app-b') and self.locked(('app-c',)), 5, 0.05,
                     'the focus back on an allowed app after activating app-c')
            # Alt+Tab (three times) never lands on app-c.
            tabbed = self.alt_tabs()
            if 'app-c' in tabbed or not self.locked(('app-c',)):
                raise AssertionError(f'Alt+Tab reached app-c: {tabbed}')
        finally:
            self.end_session()
        self.wait_released(('app-c',))
        # app-switching denied: Alt+Tab does nothing, also-allowed or not.
        self.activate('app-a')
        self.start_session('app-a', also_allowed=('app-b',), restrictions={'app-switching': 'deny'})
        try:
            wait_for(lambda: self.locked(('app-c',)), 5, 0.05, 'app-c minimized')
            time.sleep(0.5)
            if not self.switcher_blocked():
                raise AssertionError('with app-switching denied Alt+Tab switched')
        finally:
            self.end_session()
        self.wait_released(('app-c',))
        # After End Alt+Tab works (the switcher's shortcut is active again).
        self.activate('app-b')
        self.activate('app-a')
        after = self.alt_tab()[0]
        if after != 'app-b':
            raise AssertionError(f'after End Alt+Tab from app-a went to {after}, not app-b')
        self.way('another app activated or Alt+Tab, with an also-allowed app', 'closed')
        return ('Alt+Tab: app-a → app-b → app-a in the session (app-b took a click); app-c bounced back and was never '
                'in Alt+Tab; with app-switching denied Alt+Tab did nothing; Alt+Tab worked without a session and '
                'after End')

    def disabled_region(self):
        self.bring_up_apps()
        a = self.window('app-a')
        # The left half of app-a's window is disabled; clicks go to a point
        # in each half.
        region = (a['x'], a['y'], a['width'] // 2, a['height'])
        inside = (a['x'] + a['width'] // 4, a['y'] + a['height'] // 2)
        outside = (a['x'] + 3 * a['width'] // 4, a['y'] + a['height'] // 2)
        if not (self.click_reaches('app-a', inside) and self.click_reaches('app-a', outside)):
            raise AssertionError('control: clicks did not reach app-a without a session')
        # A time limit too, so that the screenshot shows the time left.
        self.start_session('app-a', regions=[region], time_limit=3600)
        try:
            self.wait_locked()
            time.sleep(0.5)  # the blocker's window maps
            inside_reached, outside_reached = self.click_reaches('app-a', inside), self.click_reaches('app-a', outside)
            self.screenshot('kde-locked')
        finally:
            self.end_session()
        self.wait_released()
        if inside_reached:
            raise AssertionError('a click inside the disabled region reached the app')
        if not outside_reached:
            raise AssertionError('a click outside the disabled region did not reach the app')
        time.sleep(0.3)
        if not self.click_reaches('app-a', inside):
            raise AssertionError('after End a click in the former region did not reach the app')
        return f'region {region}'

    def banner_shows(self, summary, what):
        """A notification whose banner a person sees (WHAT: when), closed after."""
        notification = self.notify(summary)
        wait_for(lambda: self.banner_seen(summary), 20, 0.1, what)
        self.close_notification(notification, summary)

    def notifications_hidden(self):
        self.bring_up_apps()
        self.banner_shows('control', 'the banner without a session (control)')
        before = self.events()

        def inhibitions():
            events = self.events()
            return (len(events['inhibit']) - len(before['inhibit'])) - (len(events['uninhibit']) - len(before['uninhibit']))

        self.start_session('app-a', restrictions={'notifications': 'deny'})
        try:
            self.wait_locked()
            # The daemon's do-not-disturb, as on Plasma (plasmashell's Inhibit, played by the stand-in).
            wait_for(lambda: inhibitions() == 1, 5, 0.05, 'the daemon\'s Inhibit on the notification server')
            during = self.notify('during')
            self.banner_stays_hidden('during', 'during the session', 1.5,
                                     'the banner is visible with notifications denied')
            if not self.window('app-a')['active']:
                raise AssertionError('the banner took the focus from app-a')
        finally:
            self.end_session()
        self.wait_released()
        wait_for(lambda: inhibitions() == 0, 5, 0.05, 'the daemon\'s UnInhibit at End')
        # The banner still up shows again at the opacity it faded in to.
        wait_for(lambda: self.window('during')['opacity'] == 1, 5, 0.05, 'the banner of the session back at full opacity')
        self.close_notification(during, 'during')
        self.banner_shows('after', 'a banner after End')
        events = self.events()
        self.way('a notification banner', 'closed')
        return ('banner seen without a session and after End, not during it, though it faded itself in (hidden on screen by '
                'the script, back at full opacity after End); the daemon\'s '
                f'do-not-disturb held during it: Inhibit {len(events["inhibit"]) - len(before["inhibit"])}x, '
                f'UnInhibit {len(events["uninhibit"]) - len(before["uninhibit"])}x')

    def keyboards_denied(self):
        self.bring_up_apps()
        # Control: without a session, and in a session with keyboards allowed.
        if self.keys_typed_reach('app-a') != list('asdf'):
            raise AssertionError('control: typed keys did not reach app-a without a session')
        self.start_session('app-a', restrictions={'keyboards': 'allow'})
        try:
            self.wait_locked()
            time.sleep(0.5)
            allowed = self.keys_typed_reach('app-a')
        finally:
            self.end_session()
        self.wait_released()
        if allowed != list('asdf'):
            raise AssertionError(f'control: in a session with keyboards allowed app-a got {allowed} for "asdf"')
        self.activate('app-a')
        time.sleep(0.3)
        unlocked = self.centre()
        logged = self.kwin_log_size()
        self.start_session('app-a', restrictions={'keyboards': 'deny'})
        ended = False
        try:
            self.wait_locked()
            self.kwin_logged(logged, 'Guided Access: keyboard blocked', what='the keyboard block to be shown')
            time.sleep(0.3)
            plain = self.centre()
            during = self.keys_typed_reach('app-a')
            during += [key for key in ('Return', 'Tab', 'Escape') if self.key_reaches('app-a', key.lower(), key, 0.3)]
            if during:
                raise AssertionError(f'with keyboards denied app-a got the keys {during}')
            # KWin 5.27 gives keys to our block while app-a stays active;
            # KWin 6 gives them to the active window, so none is active.
            if self.window('app-a')['active'] != self.kwin_version.startswith('5.'):
                raise AssertionError('app-a is ' + ('no longer' if self.kwin_version.startswith('5.') else 'still')
                                     + f' the active window in KWin {self.kwin_version}')
            self.end_gesture()
            wait_for(lambda: self.centre() != plain, 5, 0.1, 'the dialog (the gesture with keyboards denied)')
            time.sleep(0.5)
            typed = len(self.keys('app-a'))
            self.passcode_ends()
            ended = True
            if self.keys('app-a')[typed:]:
                raise AssertionError(f'keys typed into the dialog reached app-a: {self.keys("app-a")[typed:]}')
        finally:
            if not ended:
                self.end_session()
        self.wait_released()
        self.kwin_logged(logged, 'Guided Access: keyboard unblocked', what='the keyboard block to go')
        wait_for(lambda: self.centre() == unlocked, 5, 0.1, 'the dialog to close (the middle as before the session)')
        time.sleep(0.3)
        after = self.keys_typed_reach('app-a')
        if after != list('asdf'):
            raise AssertionError(f'after End app-a got {after} for "asdf" (active: {self.active()})')
        return 'no key reached app-a (a, s, d, f, Return, Tab, Escape); the gesture opened the dialog and the ' \
            'passcode typed there ended the session; keys reach app-a again after End, as without a session and ' \
            'with keyboards allowed'
