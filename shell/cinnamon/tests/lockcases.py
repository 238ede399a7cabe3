# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's cases of the lock and its end (mixed into run's
Cases): the extension registers, other apps are unreachable, the allowed
ones stay reachable, and the gesture's dialog ends a session only with the
passcode. Each beside its control: the same action without a session."""

import json
import os
import signal
import subprocess
import time

from harness import log
from suite import UUID
from waiting import wait_for


class LockCases:
    def enforcer_registered(self):
        enforcers = wait_for(lambda: self.enforcers().get('cinnamon') is not None and self.enforcers(), 10, 0.1,
                             'RegisterEnforcer("cinnamon", ...)')
        claims = ['accessibility-shortcut', 'also-allowed', 'app-lock', 'app-switching', 'assessment', 'clipboard',
                  'disabled-regions', 'power-menu', 'touch']
        if sorted(enforcers['cinnamon']) != claims:
            raise AssertionError(f'Enforcers is {enforcers}: "cinnamon" should claim exactly {", ".join(claims)}')
        status = subprocess.run([f'{self.work}/bin/guided-access', 'status'], env=self.env, capture_output=True,
                                text=True, timeout=20)
        line = next((line.strip() for line in status.stdout.splitlines() if 'cinnamon' in line), '')
        if status.returncode != 0 or not line:
            raise AssertionError(f'guided-access status does not name cinnamon: {status.stdout}{status.stderr}')
        return f'cinnamon → {", ".join(enforcers["cinnamon"])}; status: "{line}"'

    def other_app_unreachable(self):
        self.start_app('app-a')
        self.start_app('app-b')
        # Control: without a session, app-b comes forward and keeps the focus.
        self.activate('app-a')
        self.activate('app-b')
        time.sleep(0.3)
        if not self.window('app-b')['focused'] or self.window('app-b')['minimized']:
            raise AssertionError('control: app-b did not keep the focus without a session')
        self.activate('app-a')
        self.start_session('app-a')
        wait_for(lambda: self.window('app-b')['minimized'], 5, what='app-b to be minimized')
        self.js('global._ga.activate("app-b")')
        wait_for(lambda: self.window('app-a')['focused'] and self.window('app-b')['minimized'], 5,
                 what='the focus to bounce back to app-a')
        time.sleep(0.3)
        if not self.window('app-b')['minimized']:
            raise AssertionError('app-b came back after activation')
        self.launch_app('app-c')
        wait_for(lambda: (self.window('app-c') or {}).get('minimized'), 20, what='the new window of app-c minimized')
        self.screenshot('cinnamon-locked')
        self.end_session()
        wait_for(lambda: not self.window('app-b')['minimized'] and not self.window('app-c')['minimized'], 5,
                 what='app-b and app-c back after End')
        return 'activating app-b bounced back to app-a; app-c\'s new window was minimized; both back after End'

    def also_allowed(self):
        for name in ('app-a', 'app-b', 'app-c'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        self.start_session('app-a', also_allowed=('app-b',))
        try:
            wait_for(lambda: self.window('app-c')['minimized'], 5, what='app-c to be minimized')
            if self.window('app-b')['minimized']:
                raise AssertionError('the also-allowed app-b was minimized')
            self.activate('app-b')
            time.sleep(0.3)
            if not self.window('app-b')['focused']:
                raise AssertionError('the also-allowed app-b did not keep the focus')
            self.js('global._ga.activate("app-c")')
            wait_for(lambda: self.window('app-c')['minimized'] and not self.window('app-c')['focused'], 5,
                     what='app-c to stay unreachable')
        finally:
            self.end_session()
        wait_for(lambda: not self.window('app-c')['minimized'], 5, what='app-c back after End')
        return 'app-b (also allowed) stays and takes the focus; app-c minimized and bounced; back after End'

    def end_dialog(self):
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        # Control: without a session the gesture opens nothing.
        self.gesture()
        time.sleep(0.5)
        if self.js('global._ga.endDialog()') is not None:
            raise AssertionError('control: the gesture opened the end dialog without a session')
        self.start_session('app-a')
        wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
        self.gesture()
        dialog = wait_for(lambda: self.js('global._ga.endDialog()'), 5, 0.05, 'the end dialog')
        if not dialog['passcodeFocused']:
            raise AssertionError(f'the passcode field does not have the keyboard: {dialog}')
        unnamed = [name for name in dialog['controls'] if not name]
        log(f'A11Y Cinnamon end dialog: {len(dialog["controls"])} controls ({", ".join(dialog["controls"])}), '
            f'unnamed: {len(unnamed)}')
        if unnamed or len(dialog['controls']) < 3:
            raise AssertionError(f'the dialog\'s controls and their names: {dialog["controls"]}')
        time.sleep(0.3)  # its fade-in
        self.screenshot('cinnamon-end-dialog')
        self.type_text('1111')
        self.key('Return')
        message = wait_for(lambda: (self.js('global._ga.endDialog()') or {}).get('message'), 10, 0.1,
                           'the dialog to say the passcode was wrong')
        if not self.prop('Enabled') or not self.window('app-b')['minimized']:
            raise AssertionError('a wrong passcode loosened the lock')
        self.type_passcode()
        wait_for(lambda: self.js('global._ga.endDialog()') is None and not self.window('app-b')['minimized'], 5, 0.05,
                 'the dialog gone and app-b back')
        return (f'dialog "{" / ".join(dialog["texts"])}" (role {dialog["role"]}), the passcode field focused; '
                f'wrong passcode: "{message}", still locked; the right one ended it, app-b back')

    def dialog_switches(self):
        """The dialog's accessibility switches, with the keyboard alone: from
        the passcode field Tab reaches Screen Reader's switch and Space turns
        it on, Tab and Space turn Zoom on (Features1, the switches and
        Cinnamon's magnifier say so); a feature not in the shortcut has no
        switch; Shift+Tab back to the passcode, which ends the session, and
        both are off again. Control: with an empty shortcut the dialog has
        no switch, and Tab from the passcode goes to its buttons."""
        names = ('ScreenReader', 'Zoom', 'InvertColors')

        def features():
            return {name: self.feature(name) for name in names}
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        before = features()
        if any(before.values()):
            raise AssertionError(f'features on before the case: {before}')
        control = self.switch_with_keys([])
        if control['switches'] or control['focused'] not in ('Cancel', 'End') or control['features'] != before:
            raise AssertionError(f'control: with an empty shortcut the dialog showed {control["switches"]}, Tab went '
                                 f'to "{control["focused"]}", Features1 {control["features"]}')
        during = self.switch_with_keys(['ScreenReader', 'Zoom'])
        shown = {switch['name']: switch['checked'] for switch in during['switches']}
        if during['features'] != {'ScreenReader': True, 'Zoom': True, 'InvertColors': False} \
                or shown != {'Screen Reader': True, 'Zoom': True} or not during['magnifier']:
            raise AssertionError(f'during the session: Features1 {during["features"]}, the switches {shown}, '
                                 f'Cinnamon\'s magnifier {during["magnifier"]}')
        after = wait_for(lambda: features() == before and features(), 5, 0.1, 'both features off after End')
        return (f'before {before}; during {during["features"]}, the switches {shown}, Cinnamon\'s magnifier on; '
                f'after End {after}; no InvertColors switch (control: no switch with an empty shortcut, and '
                f'Tab went to "{control["focused"]}")')

    def switch_with_keys(self, shortcut):
        """A session with the accessibility shortcut SHORTCUT; the gesture,
        then Tab and Space once for each of its features, waiting for the
        daemon's answer (with none, Tab alone); Shift+Tab back to the
        passcode, which ends the session. Returns the dialog's switches,
        the name of what Tab reached last, Features1 and whether Cinnamon's
        magnifier was on, as they were before End."""
        self.start_session('app-a', shortcut=shortcut)
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            self.gesture()
            wait_for(lambda: (self.js('global._ga.endDialog()') or {}).get('passcodeFocused'), 5, 0.05,
                     'the end dialog with the passcode focused')
            for feature in shortcut:
                self.key('Tab')
                self.key('space')
                wait_for(lambda: self.feature(feature), 5, 0.05, f'{feature} on')
            if not shortcut:
                self.key('Tab')
            time.sleep(0.3)  # the switches show the daemon's answers
            dialog = self.js('global._ga.endDialog()')
            seen = {'switches': dialog['switches'], 'focused': dialog['focused'],
                    'features': {name: self.feature(name) for name in ('ScreenReader', 'Zoom', 'InvertColors')},
                    'magnifier': self.js('imports.ui.main.magnifier.enabled')}
            for _ in shortcut or ['ScreenReader']:
                self.key('shift+Tab')
            self.type_passcode()
            return seen
        finally:
            if self.prop('Enabled'):
                self.end_session()

    def unloaded_in_session(self):
        """Unloaded in the middle of a session (Cinnamon's disable(), as when
        Cinnamon reloads it), the extension puts Cinnamon back exactly as
        before the session (panels, hotkeys, the switchers, Expo, Scale,
        hot corners, the run dialog, the windows it minimized) and its
        registration goes; loaded again, it locks again."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        before = self.js('global._ga.snapshot()')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            if self.js('global._ga.snapshot()') == before:
                raise AssertionError('control: the session changed nothing the snapshot sees')
            self.js(f'imports.ui.extension.unloadExtension("{UUID}", imports.ui.extension.Type.EXTENSION)')
            wait_for(lambda: 'cinnamon' not in self.enforcers(), 10, what='the registration to go')
            try:
                wait_for(lambda: self.js('global._ga.snapshot()') == before, 5, what='Cinnamon as it was before the session')
            except TimeoutError:
                now = self.js('global._ga.snapshot()')
                raise AssertionError('unloaded, the extension left Cinnamon changed: ' + '; '.join(
                    f'{key} {before[key]} → {now[key]}' for key in before if now[key] != before[key])) from None
            self.js(f'imports.ui.extension.loadExtension("{UUID}", imports.ui.extension.Type.EXTENSION)')
            wait_for(lambda: 'cinnamon' in self.enforcers() and self.window('app-b')['minimized'], 10,
                     what='the extension loaded again to lock again')
        finally:
            self.end_session()
        return (f'{len(before["hotKeys"])} hotkeys, {len(before["panels"])} panel(s), the overrides and the windows as '
                'before the session once unloaded; locked again once loaded')

    def switched_off_in_session(self):
        """Switched off in Cinnamon's Extensions settings during a session
        (its uuid taken out of org.cinnamon enabled-extensions), the
        extension is put back in the list by the daemon, and Cinnamon loads
        it: locked again. Control: without a session it stays off."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        self.set_extension(False)
        wait_for(lambda: 'cinnamon' not in self.enforcers(), 10, what='control: the registration to go')
        time.sleep(2)
        if 'cinnamon' in self.enforcers():
            raise AssertionError('control: without a session the extension came back on')
        self.set_extension(True)
        wait_for(lambda: 'cinnamon' in self.enforcers(), 10, what='the extension on again')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            switched = time.monotonic()
            self.set_extension(False)
            wait_for(lambda: UUID in self.enabled_extensions() and 'cinnamon' in self.enforcers()
                     and self.window('app-b')['minimized'], 10, what='the daemon to turn the extension back on')
            back = time.monotonic() - switched
            self.way('switching the extension off in Cinnamon\'s settings', 'closed')
        finally:
            self.set_extension(True)
            self.end_session()
        return f'back on and locked {back:.1f} s after it was switched off; without a session it stayed off'

    def app_relaunched(self):
        """kill -9 of the locked app: launched again through Cinnamon (its
        desktop file) and focused, 3 times a minute; the 4th time it stays
        gone, the lock holds and the shield says so and names the keys; it
        goes with End. Control: without a session it stays gone, no shield."""
        def kill(pid):
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: (self.window('app-a') or {}).get('pid') != pid, 10, 0.1, f'app-a (pid {pid}) to go')

        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        kill(self.window('app-a')['pid'])
        time.sleep(2)
        if self.window('app-a') or self.js('global._ga.shown("guided-access-shield")') is not None:
            raise AssertionError('control: app-a came back, or a shield showed, without a session')
        self.apps.pop('app-a', None)
        self.start_app('app-a')
        self.start_session('app-a')
        took = []
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            for attempt in range(1, 4):
                pid = self.window('app-a')['pid']
                since = time.monotonic()
                kill(pid)
                wait_for(lambda: (self.window('app-a') or {}).get('pid') not in (None, pid), 15, 0.05,
                         f'app-a launched again (time {attempt})')
                took.append(time.monotonic() - since)
                wait_for(lambda: self.window('app-a')['focused'] and self.window('app-b')['minimized'], 5, 0.05,
                         'the launched app-a to have the focus with app-b minimized')
                time.sleep(1)  # as a person would, before it goes again
            kill(self.window('app-a')['pid'])
            said = wait_for(lambda: self.js('global._ga.shown("guided-access-shield")'), 10, 0.1,
                            'the shield after the 4th exit')
            if self.window('app-a') or not self.window('app-b')['minimized'] or not self.prop('Enabled'):
                raise AssertionError('after the 4th exit: app-a back, or the lock gone')
            if 'The app has closed' not in said or 'Super+Alt+Escape' not in said:
                raise AssertionError(f'the shield says "{said}"')
        finally:
            self.end_session()
        wait_for(lambda: self.js('global._ga.shown("guided-access-shield")') is None, 5, 0.1, 'the shield gone after End')
        self.apps.pop('app-a', None)
        return (f'control: stayed gone without a session; in the session launched again 3 times (kill → window '
                f'{", ".join(f"{t:.2f}" for t in took)} s), focused, app-b minimized; the 4th exit within a minute '
                f'left it gone, the lock held, the shield said "{said}"; gone after End')

    def notify(self, summary):
        """A notification, as any program sends one (Cinnamon is the
        notification server); its id."""
        server = self.bus.get_object('org.freedesktop.Notifications', '/org/freedesktop/Notifications', introspect=False)
        return int(server.Notify('app-b', self.dbus.UInt32(0), '', summary, 'from app-b', self.dbus.Array([], 's'),
                                 self.dbus.Dictionary({}, 'sv'), 5000,
                                 dbus_interface='org.freedesktop.Notifications', timeout=10))

    def close_notification(self, identifier):
        server = self.bus.get_object('org.freedesktop.Notifications', '/org/freedesktop/Notifications', introspect=False)
        server.CloseNotification(self.dbus.UInt32(identifier), dbus_interface='org.freedesktop.Notifications', timeout=10)

    def banner_shown(self, summary, seconds):
        """Whether Cinnamon shows a banner of SUMMARY within SECONDS."""
        check = ('(() => { const tray = imports.ui.main.messageTray; '
                 f'return tray._notificationBin.mapped && tray._notification?.title === {json.dumps(summary)}; }})()')
        try:
            return wait_for(lambda: self.js(check), seconds, 0.05, f'a banner of "{summary}"')
        except TimeoutError:
            return False

    def notifications_denied(self):
        """With notifications denied, a notification sent during the session
        shows no banner (the daemon switched Cinnamon's own banners off:
        org.cinnamon.desktop.notifications display-notifications); one sent
        after End does. Control: one sent before the session shows."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        shown = {}
        for when in ('before', 'during', 'after'):
            if when == 'during':
                self.start_session('app-a', restrictions={'notifications': 'deny'})
                wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            try:
                identifier = self.notify(f'sent {when} the session')
                shown[when] = self.banner_shown(f'sent {when} the session', 3)
                self.close_notification(identifier)
                wait_for(lambda: not self.js('imports.ui.main.messageTray._notificationBin.mapped'), 5, 0.1,
                         'the banner closed')
            finally:
                if when == 'during':
                    self.end_session()
        if shown != {'before': True, 'during': False, 'after': True}:
            raise AssertionError(f'banners shown: {shown}')
        return 'a banner before the session and after End; none for the notification sent during it'

    def disabled_region(self):
        """A click in a disabled region does not reach the app, one beside it
        does; after End both do. Control: both reach it without a session."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        a = self.window('app-a')
        # The left half of app-a's window (below its title bar) is disabled.
        region = (a['x'], a['y'], a['width'] // 2, a['height'])
        inside = (a['x'] + a['width'] // 4, a['y'] + a['height'] // 2)
        outside = (a['x'] + 3 * a['width'] // 4, a['y'] + a['height'] // 2)
        if not (self.click_reaches('app-a', *inside) and self.click_reaches('app-a', *outside)):
            raise AssertionError('control: clicks did not reach app-a without a session')
        self.start_session('app-a', regions=[region])
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            time.sleep(0.3)
            inside_reached, outside_reached = self.click_reaches('app-a', *inside), self.click_reaches('app-a', *outside)
        finally:
            self.end_session()
        if inside_reached:
            raise AssertionError('a click inside the disabled region reached the app')
        if not outside_reached:
            raise AssertionError('a click outside the disabled region did not reach the app')
        self.activate('app-a')  # the windows End restored may lie over it
        wait_for(lambda: self.click_reaches('app-a', *inside, seconds=0.5), 3, what='a click in the former region after End')
        return f'region {region}: the click inside stopped, the one outside reached app-a; both after End'

    def touch_denied(self):
        """touch denied: no click reaches the app, anywhere on it; keys still
        do, and the gesture still ends the session. Control: clicks reach it
        in a session with touch allowed, and after End."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        a = self.window('app-a')
        centre = (a['x'] + a['width'] // 2, a['y'] + a['height'] // 2)
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            if not self.click_reaches('app-a', *centre):
                raise AssertionError('control: a click did not reach app-a in a session with touch allowed')
        finally:
            self.end_session()
        self.activate('app-a')
        self.start_session('app-a', restrictions={'touch': 'deny'})
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            time.sleep(0.3)
            if self.click_reaches('app-a', *centre):
                raise AssertionError('a click reached app-a with touch denied')
            before = len(self.keys('app-a'))
            self.key('x')
            wait_for(lambda: len(self.keys('app-a')) > before, 3, 0.05, 'a key to reach app-a with touch denied')
            self.end_with_gesture(' with touch denied')
        finally:
            if self.prop('Enabled'):
                self.end_session()
        self.activate('app-a')  # the windows End restored may lie over it
        wait_for(lambda: self.click_reaches('app-a', *centre, seconds=0.5), 3, what='a click to reach app-a after End')
        return 'no click reached app-a; keys did; the gesture and the passcode ended the session; clicks again after End'
