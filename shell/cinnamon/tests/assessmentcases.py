# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's assessment cases (mixed into run's Cases): the exam
app (shell/tests/exam.py as app-a's own process) begins and ends an
assessment; Cinnamon's screenshot service refuses during it, and the
clipboard is emptied at its begin and end."""

import json
import os
import subprocess
import time

from examclient import Client, refused_name
from harness import CONTRACT, PASSCODE
from waiting import wait_for


class AssessmentCases:
    def cinnamon_screenshot(self, path):
        """Cinnamon's own screenshot service, as its screenshot tool calls
        it; the D-Bus error's name, or None once the file is written."""
        try:
            self.dbus.Interface(self.bus.get_object('org.Cinnamon', '/org/Cinnamon', introspect=False),
                                'org.Cinnamon').Screenshot(False, False, path, timeout=10)
        except self.dbus.DBusException as error:
            return f'{error.get_dbus_name().rsplit(".", 1)[-1]}: {error.get_dbus_message()}'
        wait_for(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 10, 0.1, f'Cinnamon to write {path}')
        return None

    def assessment(self):
        """An exam app listed in managed.json begins an assessment with
        app-c as participant: app-b minimized and bounced, app-c reachable;
        Cinnamon's screenshot service refuses; End with the passcode is
        refused and the exam app's EndAssessment ends it. Controls: app-b
        (not listed) is refused, and the screenshot service saves a picture
        before the assessment and after it."""
        for name in ('app-a', 'app-b', 'app-c'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        with open(f'{self.work}/managed.json', 'w') as f:
            json.dump({'AssessmentApplications': [self.app_id('app-a')]}, f)
        listed = time.monotonic()
        exam, other = Client(self, 'app-a'), Client(self, 'app-b')
        try:
            if self.cinnamon_screenshot(f'{self.work}/shots/before.png') is not None:
                raise AssertionError('control: Cinnamon\'s screenshot service refused without an assessment')
            configuration = json.dumps({CONTRACT['ASSESSMENT_OPTIONS']['participants']: [self.app_id('app-c')]})
            refused = other.ask(f'begin {configuration}')
            if refused_name(refused) != 'PermissionDenied' or self.prop('Enabled'):
                raise AssertionError(f'control: app-b (not an exam app) began an assessment: {refused}')
            while True:
                outcome = exam.ask(f'begin {configuration}')
                if outcome == 'ok' or refused_name(outcome) != 'PermissionDenied' or time.monotonic() - listed > 3:
                    break
                time.sleep(0.1)  # the daemon reads managed.json again within a second
            if outcome != 'ok':
                raise AssertionError(f'BeginAssessment from app-a: {outcome}')
            try:
                wait_for(lambda: self.window('app-b')['minimized'], 5, what='app-b minimized')
                self.js('global._ga.activate("app-b")')
                wait_for(lambda: self.window('app-b')['minimized'] and not self.window('app-b')['focused'], 5,
                         what='app-b to stay unreachable')
                self.activate('app-c')
                shot = self.cinnamon_screenshot(f'{self.work}/shots/during.png')
                if shot is None or not shot.startswith('AccessDenied'):
                    raise AssertionError(f'Cinnamon\'s screenshot service during the assessment: {shot or "saved"}')
                try:
                    self.end_session(PASSCODE)
                    raise AssertionError('End with the passcode ended the assessment')
                except self.dbus.DBusException as error:
                    ended_by_passcode = error.get_dbus_name().rsplit('.', 1)[-1]
            finally:
                if self.prop('Enabled'):
                    ended = exam.ask('end')
                    if ended != 'ok':
                        raise AssertionError(f'EndAssessment from app-a: {ended}')
            wait_for(lambda: not self.prop('Enabled') and not self.window('app-b')['minimized'], 5,
                     what='the assessment over, app-b back')
            if self.cinnamon_screenshot(f'{self.work}/shots/after.png') is not None:
                raise AssertionError('Cinnamon\'s screenshot service still refuses after the assessment')
        finally:
            exam.stop()
            other.stop()
            with open(f'{self.work}/managed.json', 'w') as f:
                f.write('{}\n')
        return (f'app-b refused ({refused_name(refused)}); app-a began it with app-c: app-b bounced, app-c reached; '
                f'the screenshot service said "{shot}"; End with the passcode refused ({ended_by_passcode}); '
                'EndAssessment ended it; screenshots saved before and after')

    def clipboard(self, text=None):
        """The X11 clipboard as any program sees it (xclip): what it holds,
        '' when empty or unowned; with TEXT, copies TEXT there first (xclip
        keeps serving it until another program takes the clipboard)."""
        if text is not None:
            subprocess.run(['xclip', '-selection', 'clipboard', '-i'], input=text, text=True, env=self.env, check=True,
                           timeout=5, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            pasted = subprocess.run(['xclip', '-selection', 'clipboard', '-o'], env=self.env, capture_output=True,
                                    text=True, timeout=2)
        except subprocess.TimeoutExpired:
            return ''
        return pasted.stdout if pasted.returncode == 0 else ''

    def assessment_clipboard(self):
        """An assessment that does not allow the clipboard empties it when it
        begins and when it ends. Control: a plain session keeps it."""
        for name in ('app-a', 'app-b'):
            if self.window(name) is None:
                self.start_app(name)
        self.activate('app-a')
        self.clipboard('copied before a plain session')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            time.sleep(0.5)
            kept = self.clipboard()
        finally:
            self.end_session()
        if kept != 'copied before a plain session':
            raise AssertionError(f'control: a plain session changed the clipboard to {kept!r}')
        with open(f'{self.work}/managed.json', 'w') as f:
            json.dump({'AssessmentApplications': [self.app_id('app-a')]}, f)
        listed = time.monotonic()
        exam = Client(self, 'app-a')
        try:
            self.clipboard('copied before the exam')
            while (outcome := exam.ask('begin {}')) != 'ok' and time.monotonic() - listed < 3:
                time.sleep(0.1)  # the daemon reads managed.json again within a second
            if outcome != 'ok':
                raise AssertionError(f'BeginAssessment from app-a: {outcome}')
            try:
                wait_for(lambda: self.clipboard() == '', 5, 0.1, 'the clipboard emptied when the assessment began')
                self.clipboard('copied during the exam')
            finally:
                ended = exam.ask('end')
            if ended != 'ok':
                raise AssertionError(f'EndAssessment from app-a: {ended}')
            wait_for(lambda: self.clipboard() == '', 5, 0.1, 'the clipboard emptied when the assessment ended')
        finally:
            exam.stop()
            with open(f'{self.work}/managed.json', 'w') as f:
                f.write('{}\n')
        return ('copied text gone when the assessment began, what was copied in it gone when it ended (control: a plain '
                'session kept the clipboard)')
