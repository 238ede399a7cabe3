# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's cases of the lock itself (mixed into run's Cases): other
apps unreachable, the overview and switchers, disabled regions, the end
dialog, the time-up shield, keyboards and notifications denied, and
everything put back after End; each beside its control."""

import os
import time

from harness import PASSCODE
from shellinfo import END_SHORTCUT, KEY
from waiting import wait_for


class LockCases:
    def other_app_unreachable(self):
        self.start_app('app-a')
        self.start_app('app-b')
        # Control: without a session, B comes forward and keeps the focus.
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
        self.start_app_minimized('app-c')
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='app-b to come back after End')
        if self.window('app-c')['minimized']:
            raise AssertionError('app-c stayed minimized after End')
        return 'activate bounced back; a new window of another app was minimized'

    def start_app_minimized(self, name):
        """Starts an app during a session: its window must end up minimized."""
        self.launch_app(name)
        wait_for(lambda: (self.window(name) or {}).get('minimized'), 20, what=f'the new window of {name} minimized')

    def overview_and_switcher(self):
        def try_all():
            self.activate('app-a')
            shown = {}
            self.js(f'global._ga.tap([], {KEY["Super_L"]})')
            time.sleep(0.4)
            shown['overview (Super)'] = self.js('global._gaShell.Main.overview.visible')
            self.close_overview()
            self.js(f'global._ga.tap([{KEY["Super_L"]}], {KEY["a"]})')
            time.sleep(0.4)
            shown['app grid (Super+A)'] = self.js('global._gaShell.Main.overview.visible')
            self.close_overview()
            self.js('global._gaShell.Main.overview.toggle()')
            time.sleep(0.3)
            shown['overview.toggle() (hot corner, Activities)'] = self.js('global._gaShell.Main.overview.visible')
            self.close_overview()
            self.js(f'global._ga.keys([{KEY["Alt_L"]}, {KEY["Tab"]}], true); global._ga.keys([{KEY["Tab"]}], false)')
            time.sleep(0.5)
            shown['switcher (Alt+Tab)'] = self.js('global._ga.switcherShown()')
            self.js(f'global._ga.keys([{KEY["Alt_L"]}], false)')
            time.sleep(0.3)
            self.close_overview()
            return shown

        control = try_all()
        if not all(control.values()):
            raise AssertionError(f'control: without a session not everything opened: {control}')
        self.start_session('app-a')
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        locked = try_all()
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        if any(locked.values()):
            raise AssertionError(f'opened during the session: {[k for k, v in locked.items() if v]}')
        return ', '.join(control)

    def disabled_region(self):
        self.activate('app-a')
        a = self.window('app-a')
        # The left half of app-a's window is disabled; clicks go to a point
        # in each half, inside the client area.
        region = (a['x'], a['y'], a['width'] // 2, a['height'])
        inside = (a['x'] + a['width'] // 4, a['y'] + a['height'] // 2)
        outside = (a['x'] + 3 * a['width'] // 4, a['y'] + a['height'] // 2)

        def click(point):
            before = self.clicks('app-a')
            self.js(f'global._ga.click({point[0]}, {point[1]})')
            try:
                wait_for(lambda: self.clicks('app-a') > before, 1.5, what='the click')
                return True
            except TimeoutError:
                return False

        if not (click(inside) and click(outside)):
            raise AssertionError('control: clicks did not reach app-a without a session')
        self.start_session('app-a', regions=[region])
        wait_for(lambda: self.locked_on_screen('app-b', regions=1), 5, what='the region blocker')
        inside_reached, outside_reached = click(inside), click(outside)
        if os.environ.get('SCREENSHOTS') and not self.layouts:
            self.set_outlines(True)
            time.sleep(0.5)
            self.screenshot('locked-desktop')
            self.set_outlines(False)
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        if inside_reached:
            raise AssertionError('a click inside the disabled region reached the app')
        if not outside_reached:
            raise AssertionError('a click outside the disabled region did not reach the app')
        if not click(inside):
            raise AssertionError('after End a click in the former region did not reach the app')
        return f'region {region}'

    def stage_has(self, name):
        return self.js(f'!!global._ga.find(global.stage, "{name}")')

    def type_text(self, text):
        for character in text:
            self.js(f'global._ga.tap([], {ord(character)})')
        self.js(f'global._ga.tap([], {KEY["Return"]})')

    def end_dialog(self):
        self.activate('app-a')
        self.start_session('app-a')
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        self.js('; '.join([END_SHORTCUT] * 3))
        wait_for(lambda: self.stage_has('guided-access-passcode'), 5, what='the end dialog')
        if os.environ.get('SCREENSHOTS'):
            time.sleep(1)  # the dialog fades in
        self.screenshot('end-dialog')
        self.type_text('1357')
        time.sleep(1)
        if not self.prop('Enabled') or not self.locked_on_screen('app-b'):
            raise AssertionError('a wrong passcode ended the session')
        message = self.js('global._ga.find(global.stage, "guided-access-message").text')
        if not message:
            raise AssertionError('no message after a wrong passcode')

        def right_passcode_ends():
            self.type_text(PASSCODE)
            try:
                wait_for(lambda: not self.prop('Enabled'), 3, what='End')
                return True
            except TimeoutError:
                return False  # still backing off after the wrong one: try again
        wait_for(right_passcode_ends, 30, 0.5, what='the right passcode to end the session')
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        wait_for(lambda: not self.stage_has('guided-access-passcode'), 5, what='the dialog to close')
        return f'wrong passcode: "{message}"'

    def expiry_shield(self):
        self.activate('app-a')
        self.start_session('app-a', time_limit=2)
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        if self.stage_has('guided-access-shield'):
            raise AssertionError('the shield is up before the time ran out')
        wait_for(lambda: self.prop('State') == 'expired', 10, what='State expired')
        wait_for(lambda: self.stage_has('guided-access-shield'), 5, what='the expiry shield')
        # What it says: the gesture's keys as configured (the default here).
        said = self.js('(() => { const texts = []; const walk = a => { if (a.text) texts.push(a.text); '
                       'a.get_children().forEach(walk); }; walk(global._ga.find(global.stage, "guided-access-shield")); '
                       'return texts.join(" "); })()')
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b') and not self.stage_has('guided-access-shield'),
                 5, what='the shield to go')
        if 'Press Super+Alt+Escape three times' not in said:
            raise AssertionError(f'the shield says "{said}", not the gesture\'s keys')
        return f'shield shown at expired ("{said}"), removed by End'

    def restored_after_end(self):
        self.activate('app-a')
        before = self.js('global._ga.snapshot()')
        self.start_session('app-a', regions=[(0, 400, 200, 200), (600, 0, 100, 100)], time_limit=3600,
                           restrictions={'app-switching': 'deny', 'notifications': 'deny',
                                         'power-menu': 'deny', 'touch': 'deny', 'keyboards': 'deny'})
        wait_for(lambda: self.locked_on_screen('app-b', regions=2), 5, what='the lock')
        during = self.js('global._ga.snapshot()')
        changed = [key for key in before if before[key] != during[key]]
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        time.sleep(0.3)
        after = self.js('global._ga.snapshot()')
        differences = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
        if differences:
            raise AssertionError(f'not restored: {differences}')
        expected = {'showOwn', 'swipe', 'banner', 'activities', 'dateMenu', 'quickSettings', 'appMenu', 'a11yMenu',
                    'panelReactive', 'windowMenuOwn', 'screenshotOwn', 'workspaceScrollOwn', 'workspaceSwipe',
                    'appSwitchGesture', 'backgroundGroup', 'keyboardBox', 'statusArea', 'uiGroup', 'windows'}
        expected -= {key for key in expected if before[key] is None}  # what this shell version lacks
        if set(changed) != expected:
            raise AssertionError(f'the session changed only {sorted(changed)}, expected {sorted(expected)}')
        return 'overview, gestures, window menu, screenshot UI, banners, panel, keyboard, chrome and windows as before'

    def keyboards_denied(self):
        self.activate('app-a')
        if not self.typed('app-a', 'x'):
            raise AssertionError('control: a typed key did not reach app-a without a session')
        self.start_session('app-a', restrictions={'keyboards': 'allow'})
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        allowed = self.typed('app-a', 'y')
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        if not allowed:
            raise AssertionError('control: a typed key did not reach app-a with keyboards allowed')

        self.start_session('app-a', restrictions={'keyboards': 'deny'})
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        try:
            if not self.window('app-a')['focused']:
                raise AssertionError('app-a lost the focus (the check below would prove nothing)')
            if self.typed('app-a', 'z'):
                raise AssertionError('a typed key reached app-a with keyboards denied')
            # Focusing the window again (as a click would) does not give the keys back.
            self.js('global._ga.activate("app-b")')
            self.activate('app-a')
            if self.typed('app-a', 'v'):
                raise AssertionError('a typed key reached app-a after it was focused again')
            # The end shortcut still opens the end dialog, which takes the passcode.
            self.js('; '.join([END_SHORTCUT] * 3))
            wait_for(lambda: self.stage_has('guided-access-passcode'), 5, what='the end dialog')
            self.type_text(PASSCODE)
            wait_for(lambda: not self.prop('Enabled'), 5, what='the typed passcode to end the session')
        finally:
            if self.prop('Enabled'):
                self.end_session()
            if self.stage_has('guided-access-passcode'):
                self.js(f'global._ga.tap([], {KEY["Escape"]})')  # Cancel
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        wait_for(lambda: not self.stage_has('guided-access-passcode'), 5, what='the dialog to close')
        self.activate('app-a')
        if not self.typed('app-a', 'w'):
            raise AssertionError('after End a typed key did not reach app-a')
        received = [key for _, key in self.keys('app-a')]
        if 'z' in received or 'v' in received or any(digit in received for digit in PASSCODE):
            raise AssertionError(f'keys typed during the session reached app-a: {received}')
        return 'x reached app-a without a session, y with keyboards allowed, z and v (after refocusing) not with keyboards denied; ' \
            'the passcode typed into the end dialog ended the session'

    def close_notification(self, notification):
        self.notifications().CloseNotification(self.dbus.UInt32(notification), timeout=10)
        wait_for(lambda: not self.banner_shown() and self.js('global._gaShell.Main.messageTray._notificationState') == 0,
                 5, what='the banner to go')

    def notify_unseen(self, summary, why):
        """Sends a notification and fails when its banner shows within 1.5 s
        of its arrival in the shell's queue; returns its id."""
        notification = self.notify(summary)
        wait_for(lambda: self.js('global._gaShell.Main.messageTray._notificationQueue'
                                 f'.some(n => n.title === {summary!r})'), 5, what='the notification to arrive')
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            if self.banner_shown():
                raise AssertionError(f'a banner was shown {why}')
            time.sleep(0.05)
        return notification

    def banner_shown(self):
        return self.js('(() => { const tray = global._gaShell.Main.messageTray; '
                       'return tray.visible && tray._banner !== null; })()')

    def notifications_denied(self):
        # The shell starts org.gnome.Shell.Notifications, which takes the name.
        wait_for(lambda: self.bus.name_has_owner('org.freedesktop.Notifications'), 10,
                 what='org.freedesktop.Notifications to have an owner')
        control = self.notify('control')
        wait_for(self.banner_shown, 5, what='the banner without a session (control)')
        self.close_notification(control)

        self.activate('app-a')
        self.start_session('app-a', restrictions={'notifications': 'deny'})
        wait_for(lambda: self.locked_on_screen('app-b'), 5, what='the lock')
        try:
            during = self.notify_unseen('during', 'with notifications denied')
        finally:
            self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release')
        self.close_notification(during)
        after = self.notify('after')
        wait_for(self.banner_shown, 5, what='a banner after End')
        self.close_notification(after)
        return 'banner without a session and after End; none during the session (the notification was queued)'
