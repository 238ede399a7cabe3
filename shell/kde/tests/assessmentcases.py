# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's assessment cases (issue 45; mixed into run's Cases): the
exam app (shell/tests/exam.py as app-a's own process) begins and ends an
assessment; the script unloaded during one interrupts it, the clipboard is
emptied, and the red team's ways are tried again inside one.
"""

import json
import subprocess
import time

from harness import CONTRACT, EXAM_ARGUMENTS, stop_group
from kwin import SCRIPT_ID, SOCKET, middle
from waiting import wait_for


class AssessmentCases:
    # -- the exam app ---------------------------------------------------------

    PRINT_PRESSED = 'Guided Access test: Print pressed'

    def start_exam(self):
        """The exam app: shell/tests/exam.py on app-a's interpreter copy, so
        that the daemon gives the calls it makes from its own process app-a's
        id (as an exam browser calls BeginAssessment itself)."""
        self.exams += 1
        log_path = f'{self.work}/logs/exam-{self.exams}.log'
        process = subprocess.Popen([f'{self.work}/bin/app-a', f'{self.work}/source/exam.py', log_path, *EXAM_ARGUMENTS],
                                   stdin=subprocess.PIPE, env=self.env, text=True,
                                   stdout=open(f'{self.work}/logs/exam-{self.exams}.out', 'w'),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.remember_group(process.pid)
        self.exam = (process, log_path)
        wait_for(lambda: 'ready' in self.exam_lines() or process.poll() is not None, 10, 0.05, 'the exam app')
        if process.poll() is not None:
            raise RuntimeError(f'exam.py exited; see logs/exam-{self.exams}.out')

    def stop_exam(self):
        process = self.exam[0]
        try:
            process.stdin.close()
            process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        stop_group(process.pid, 1)

    def exam_lines(self):
        try:
            with open(self.exam[1]) as f:
                return f.read().splitlines()
        except OSError:
            return []

    def exam_signals(self, name, since=0):
        """What the exam app heard of signal NAME (the rest of each line: a reason)."""
        prefix = f'signal {name}'
        return [line[len(prefix):].strip() for line in self.exam_lines()[since:] if line.split(' ')[:2] == prefix.split()]

    def exam_says(self, command, timeout=15):
        """Has the exam app make a call (exam.py's commands); what it
        answers after the command's word: 'ok' (and what came back), or
        'error NAME MESSAGE'."""
        word = command.split()[0]
        seen = len(self.exam_lines())
        self.exam[0].stdin.write(command + '\n')
        self.exam[0].stdin.flush()
        return wait_for(lambda: next((line[len(word) + 1:] for line in self.exam_lines()[seen:]
                                      if line.startswith(word + ' ')), None),
                        timeout, 0.05, f'the exam app\'s answer to "{word}"')

    def begin_assessment(self, participants=()):
        """managed.json lists app-a as an exam app, and the exam app begins
        an assessment with PARTICIPANTS (asked again while the daemon has
        not read the file yet)."""
        self.write_managed({'AssessmentApplications': [self.app_id('app-a')]})
        options = CONTRACT['ASSESSMENT_OPTIONS']
        configuration = json.dumps({options['participants']: [self.app_id(name) for name in participants]})

        def began():
            answer = self.exam_says(f'begin {configuration}')
            if answer == 'ok':
                return True
            if 'PermissionDenied' not in answer:
                raise AssertionError(f'BeginAssessment: {answer}')
            time.sleep(0.2)
            return False
        wait_for(began, 10, 0.05, 'BeginAssessment allowed (managed.json read again)')
        mode = str(self.prop('Mode'))
        if mode != CONTRACT['SESSION_MODE']['assessment'] or not self.prop('Enabled'):
            raise AssertionError(f'after BeginAssessment Mode is "{mode}", Enabled {self.prop("Enabled")}')

    def finish_assessment(self):
        """EndAssessment by the exam app (only it may end one: End with the
        passcode may not), by a new process of it if this one is gone."""
        if not (self.prop('Enabled') and str(self.prop('Mode')) == CONTRACT['SESSION_MODE']['assessment']):
            return
        if self.exam[0].poll() is not None:
            self.start_exam()
        answer = self.exam_says('end')
        if answer != 'ok':
            raise AssertionError(f'EndAssessment: {answer}')
        wait_for(lambda: not self.prop('Enabled'), 5, 0.05, 'the assessment to end')

    def print_shortcut(self):
        """A global shortcut on Print, as a screenshot tool has one
        (Spectacle is not installed here): a plain script's, registered
        before any session, which logs when it fires. Unload it after."""
        return self.run_script(
            "registerShortcut('Guided Access test: Print', 'Guided Access test: Print', 'Print', function () {\n"
            f"    print({json.dumps(self.PRINT_PRESSED)});\n"
            "});\n")

    def print_reaches(self, timeout=1.0):
        """Presses Print; whether the shortcut on it fired."""
        logged = self.kwin_log_size()
        self.input.key('print')
        try:
            self.kwin_logged(logged, self.PRINT_PRESSED, timeout)
            return True
        except TimeoutError:
            return False

    def clipboard(self, text=None):
        """KWin's clipboard as any Wayland program sees it (wl-paste, through
        the data-control protocol Klipper uses): what it holds, '' when
        empty; with TEXT, copies TEXT there first (wl-copy keeps serving it)."""
        env = {**self.env, 'WAYLAND_DISPLAY': SOCKET}
        if text is not None:
            subprocess.run(['wl-copy', text], env=env, check=True, timeout=5, stdout=subprocess.DEVNULL)
        try:
            pasted = subprocess.run(['wl-paste', '--no-newline'], env=env, capture_output=True, text=True, timeout=2)
        except subprocess.TimeoutExpired:
            return ''  # nothing offered it
        return pasted.stdout if pasted.returncode == 0 else ''

    def klipper_calls(self, since):
        """What the Klipper stand-in was asked since call SINCE, each with
        its clearing's exit status when that failed."""
        return [name + (f' (exit {status})' if status else '') for _, name, status in self.events()['klipper'][since:]]

    # -- cases ----------------------------------------------------------------

    def assessment_interrupted(self):
        started = time.monotonic()
        assessment = CONTRACT['SESSION_MODE']['assessment']
        self.bring_up_apps()
        self.start_exam()

        def unload_and_back(what):
            # KWin's answer, not a look afterwards: the daemon may have loaded it
            # again by then (it does within a second, and a loaded machine's
            # look can come later).
            if not self.unload_script(SCRIPT_ID):
                raise AssertionError(f'unloadScript("{SCRIPT_ID}") did not unload it ({what})')
            try:
                wait_for(lambda: self.script_loaded() and 'kwin' in self.enforcers() and self.locked(), 10, 0.1,
                         f'the daemon to load the script again, and it to register and lock ({what})')
            except TimeoutError:
                self.scripting('start')
                raise
        try:
            # Control: a plain session (an administrator's Start), the exam
            # app listening all along: the script unloaded says nothing to it.
            self.start_session('app-a')
            try:
                self.wait_locked()
                unload_and_back('plain session')
                time.sleep(0.3)
            finally:
                self.end_session()
            self.wait_released()
            if self.exam_signals('AssessmentInterrupted'):
                raise AssertionError(f'control: a plain session\'s enforcer leaving interrupted: '
                                     f'{self.exam_signals("AssessmentInterrupted")}')
            self.activate('app-a')
            since = len(self.exam_lines())
            self.begin_assessment()
            try:
                self.wait_locked()
                claims = wait_for(lambda: self.enforcers().get('kwin'), 10, 0.1, 'the script registered')
                if 'assessment' not in claims:
                    raise AssertionError(f'the script does not claim assessment: {claims}')
                if self.exam_signals('AssessmentBegan', since) != ['']:
                    raise AssertionError(f'the exam app heard AssessmentBegan {len(self.exam_signals("AssessmentBegan", since))} times')
                heard = len(self.exam_lines())
                unloaded = time.monotonic()
                self.unload_script(SCRIPT_ID)
                reason = wait_for(lambda: next(iter(self.exam_signals('AssessmentInterrupted', heard)), None), 10, 0.05,
                                  'AssessmentInterrupted in the exam app')
                took = time.monotonic() - unloaded
                if not reason:
                    raise AssertionError('AssessmentInterrupted came without a reason')
                if not self.prop('Enabled') or str(self.prop('Mode')) != assessment:
                    raise AssertionError(f'the interruption loosened the session: Enabled {self.prop("Enabled")}, '
                                         f'Mode "{self.prop("Mode")}"')
                wait_for(lambda: self.script_loaded() and 'assessment' in self.enforcers().get('kwin', []) and self.locked(),
                         10, 0.1, 'the daemon to load the script again, and it to register and lock')
                time.sleep(0.5)
                self.lock_in_place('the script came back')
                if self.exam_signals('AssessmentEnded', since):
                    raise AssertionError('the exam app heard AssessmentEnded before it ended the assessment')
            finally:
                self.finish_assessment()
            self.wait_released()
            if len(self.exam_signals('AssessmentEnded', since)) != 1:
                raise AssertionError('the exam app did not hear AssessmentEnded once after EndAssessment')
        finally:
            self.stop_exam()
            self.write_managed({})
        self.assessment_ways['the script unloaded (org.kde.KWin /Scripting unloadScript)'] = 'closed'
        return (f'AssessmentInterrupted "{reason}" {took:.2f} s after the unload; Enabled, Mode assessment and the '
                'lock held; the daemon loaded the script again, which registered (with assessment), locked and blocked '
                'Alt+Tab; EndAssessment by the app ended it (control: nothing heard in a plain session); '
                f'{time.monotonic() - started:.1f} s')

    def assessment_clipboard(self):
        """Issue 45: an assessment that does not allow the clipboard empties
        it when it begins and when it ends (the script asks Klipper)."""
        started = time.monotonic()
        self.start_app('app-a')
        self.activate('app-a')
        self.start_exam()
        try:
            # Control: a plain session leaves the clipboard as it is.
            self.clipboard('copied before a plain session')
            self.start_session('app-a')
            try:
                self.wait_locked()
                time.sleep(0.5)
                kept = self.clipboard()
            finally:
                self.end_session()
            self.wait_released()
            if kept != 'copied before a plain session':
                raise AssertionError(f'control: a plain session changed the clipboard to {kept!r}')
            asked = len(self.events()['klipper'])
            self.clipboard('copied before the exam')
            self.begin_assessment()
            try:
                self.wait_locked()
                wait_for(lambda: self.clipboard() == '', 5, 0.1, 'the clipboard emptied when the assessment began')
                at_begin = self.klipper_calls(asked)
                self.clipboard('copied during the exam')
            finally:
                self.finish_assessment()
            self.wait_released()
            wait_for(lambda: self.clipboard() == '', 5, 0.1, 'the clipboard emptied when the assessment ended')
            at_end = self.klipper_calls(asked + len(at_begin))
        finally:
            self.stop_exam()
            self.write_managed({})
        for when, calls in (('begin', at_begin), ('end', at_end)):
            if sorted(calls) != ['clearClipboardContents', 'clearClipboardHistory']:
                raise AssertionError(f'Klipper was asked {calls} at the assessment\'s {when}')
        return ('copied text gone when the assessment began, what was copied in it gone when it ended; Klipper asked '
                'to clear its contents and its history at each (control: a plain session kept the clipboard); '
                f'{time.monotonic() - started:.1f} s')

    def assessment_red_team(self):
        """Issues 44 and 45: the first red team's ways of the keyboard and of
        other processes again, inside an assessment with a participant."""
        started = time.monotonic()
        ways = self.assessment_ways
        for name in ('app-a', 'app-b'):
            self.start_app(name)
        self.start_app('app-x', x11=True)
        if getattr(self, 'untestable_shortcuts', None) is None:  # the shortcuts' case did not run
            self.shortcut_controls(self.try_shortcuts())
        untestable = self.untestable_shortcuts
        if 'app-c' in self.apps:  # its window comes during the assessment
            self.stop_app('app-c')
            wait_for(lambda: not self.window('app-c'), 5, 0.1, 'app-c to close')
        printer = self.print_shortcut()
        self.start_exam()
        notified = None
        try:
            self.activate('app-a')
            if not self.print_reaches(2.0):
                raise AssertionError('control: Print without a session did not fire the shortcut on it')
            self.begin_assessment(participants=('app-b',))
            try:
                seen = self.assessment_inside(ways, untestable)
                try:
                    self.end_session()
                    refused = None
                except self.dbus.DBusException as error:
                    refused = error.get_dbus_name().rsplit('.', 1)[-1]
                if refused is None or not self.prop('Enabled') or not self.locked(('app-c', 'app-x')):
                    raise AssertionError('End with the passcode ended the assessment or loosened the lock')
                ways['End with the passcode'] = 'closed'
                notified = self.notify('assessment')
                self.banner_stays_hidden('assessment', 'in the assessment', 1.0,
                                         'a banner is visible in the assessment')
                ways['a notification banner'] = 'closed'
            finally:
                self.finish_assessment()
            self.wait_released(('app-c', 'app-x'))
            if not self.print_reaches(2.0):
                raise AssertionError('after the assessment Print did not fire the shortcut on it')
        finally:
            if notified is not None:
                self.close_notification(notified, 'assessment')
            self.stop_exam()
            self.unload_script(printer)
            self.write_managed({})
        took = time.monotonic() - started
        return (f'{"; ".join(seen)}; End with the passcode refused ({refused}); no banner; Print fired without a '
                f'session and after EndAssessment (KNOWN LIMITATIONS, KWin {self.kwin_version}: '
                + (', '.join(name for name, state in ways.items() if state == 'open') or 'none')
                + (f'; UNTESTABLE here: {", ".join(name for name, state in ways.items() if state == "untestable")}'
                   if 'untestable' in ways.values() else '')
                + f'); {took:.1f} s')

    def assessment_inside(self, ways, untestable):
        """The ways tried inside the assessment (app-b its participant)."""
        seen = []
        others = ('app-c', 'app-x')
        self.launch_app('app-c')
        wait_for(lambda: (self.window('app-c') or {}).get('minimized') and self.locked(('app-x',)), 20, 0.1,
                 'app-c\'s new window and app-x minimized')
        ways['another app\'s new window'] = 'closed'
        if self.window('app-b')['minimized']:
            raise AssertionError('the participant app-b was minimized')
        # app-b, the participant, is reachable: activated it stays, and takes clicks.
        self.activate('app-b')
        time.sleep(0.3)
        b = self.window('app-b')
        if not b['active'] or b['minimized'] or not self.click_reaches('app-b', middle(b)):
            raise AssertionError(f'the participant app-b is not reachable{self.seen()}')
        seen.append('app-b activated stayed active and took a click')
        for other, way in (('app-c', 'another app activated (a taskbar\'s way)'), ('app-x', 'an Xwayland app')):
            self.activate('app-a')
            self.activate_once(other)
            wait_for(lambda: self.active() in ('app-a', 'app-b') and self.locked(others), 5, 0.05,
                     f'the focus back on app-a or app-b after activating {other}')
            time.sleep(0.2)
            if not self.locked(others):
                raise AssertionError(f'{other} came back after activation')
            ways[way] = 'closed'
        seen.append('app-c and app-x activated bounced back')
        # Alt+Tab: among app-a and app-b only.
        self.activate('app-a')
        tabbed = self.alt_tabs()
        if 'app-b' not in tabbed or any(other in tabbed for other in others) or not self.locked(others):
            raise AssertionError(f'Alt+Tab in the assessment went through {tabbed}, not app-b alone besides app-a')
        ways['Alt+Tab'] = 'closed'
        seen.append('Alt+Tab reached app-b, never app-c or app-x')
        # The other shortcuts (Alt+Tab is tried above) and the launcher.
        tried = {k: v for k, v in self.try_shortcuts().items() if k != 'Alt+Tab' and k not in untestable}
        if any(tried.values()):
            raise AssertionError(f'worked in the assessment: {", ".join(k for k, v in tried.items() if v)}')
        if self.launcher_seen['keys']:
            raise AssertionError(f'a key reached the launcher in the assessment ({self.launcher_seen["fate"]})')
        for way in tried:
            ways[way] = 'closed'
        for way in untestable:
            if way != 'Alt+Tab':
                ways[way] = 'untestable'
        if not any(way.startswith('launcher') for way in untestable):
            ways['Meta alone calls the launcher'] = 'open' if self.launcher_seen['called'] else 'closed'
        seen.append(f'{len(tried)} shortcuts did nothing')
        self.activate('app-a')
        if self.print_reaches():
            raise AssertionError('Print fired the shortcut on it in the assessment')
        ways['Print (a screenshot tool\'s global shortcut)'] = 'closed'
        # KWin's ScreenShot2 asked by a program whose desktop file does not
        # name the interface (the exam app's process here): KWin's own rule,
        # session or not. A program whose desktop file names it (Spectacle's,
        # the suite's) still captures: nothing a script can stop.
        shot = self.exam_says('kwin-screenshot', 30)
        if 'NoAuthorized' in shot:
            seen.append('ScreenShot2 refused to app-a\'s process by KWin (NoAuthorized)')
        elif self.capturing:
            raise AssertionError(f'ScreenShot2 from the exam app\'s process: {shot}')
        else:
            seen.append(f'ScreenShot2 not tried (KWin {self.kwin_version} has no ScreenShot2 here: {shot})')
        if self.capturing:
            self.screen_area(0, 0, 1, 1)
            seen.append('the suite\'s authorized program captured all the same')
        # An override-redirect window of another process over app-a.
        self.stop_app('app-x')
        reached = self.overlay_takes_click((300, 200))
        if reached and not self.kwin_version.startswith('5.'):
            raise AssertionError('in the assessment a click over app-a reached the overlay')
        ways['an X11 override-redirect window over the app'] = 'open' if reached else 'closed'
        self.start_app('app-x', x11=True)
        wait_for(lambda: self.locked(others), 10, 0.1, 'app-x minimized again')
        return seen
