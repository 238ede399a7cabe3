# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's cases of Assessment mode (mixed into run's Cases), each
beside its control. The exam app is app-a: managed.json lists it in
AssessmentApplications, and a process of its own (shell/tests/exam.py run
with app-a's interpreter copy, so the daemon gives it app-a's id) calls
BeginAssessment and EndAssessment and hears the Assessment* signals. Other
processes' captures come from a second client run with app-c's
interpreter (an app that is not part of the assessment)."""

import json
import os
import time

from examclient import Client, refused_name
from harness import CONTRACT, percentiles
from waiting import wait_for

KEY = CONTRACT['ASSESSMENT_OPTIONS']
PRINT = 0xff61
BEGINS_MEASURED = 5

ASSESSMENT_HELPERS = r"""
(function () {
    const {St} = imports.gi;
    const Main = global._gaShell.Main;
    const ga = global._ga;
    const types = [St.ClipboardType.CLIPBOARD, St.ClipboardType.PRIMARY];
    ga.setClipboard = text => types.forEach(type => St.Clipboard.get_default().set_text(type, text));
    // Asks both selections; ga.clipboard holds [clipboard, primary] once both answered.
    ga.readClipboard = () => {
        ga.clipboard = null;
        const texts = [undefined, undefined];
        types.forEach((type, i) => St.Clipboard.get_default().get_text(type, (_c, text) => {
            texts[i] = text ?? '';
            if (!texts.includes(undefined))
                ga.clipboard = texts;
        }));
    };
    // A screencast or remote-desktop session's handle as mutter reports one
    // to the shell; `stops`: whether it obeys stop() (mutter's always do).
    const {GObject, Meta} = imports.gi;
    ga.CaptureHandle ??= GObject.registerClass(class GuidedAccessTestCaptureHandle extends Meta.RemoteAccessHandle {
        vfunc_stop() {
            if (this.stops)
                this.emit('stopped');
        }
    });
    ga.capture = stops => {
        const handle = new ga.CaptureHandle();
        handle.stops = stops;
        global.backend.get_remote_access_controller().emit('new-handle', handle);
        return true;
    };
    ga.screenshotUIShown = () => Main.screenshotUI?.visible ?? false;
    ga.closeScreenshotUI = () => { if (Main.screenshotUI?.visible) Main.screenshotUI.close(true); };
    return true;
})()
"""


class AssessmentCases:
    # -- the exam app ------------------------------------------------------------

    def exam(self):
        """app-a's client, with managed.json listing app-a (written once)."""
        if getattr(self, '_exam', None) is None:
            self.js(ASSESSMENT_HELPERS)
            with open(f'{self.work}/managed.json', 'w') as f:
                json.dump({'AssessmentApplications': [self.app_id('app-a')]}, f)
            self._exam = Client(self, 'app-a')
            self._other = Client(self, 'app-c')
            self._listed_at = time.monotonic()
        return self._exam

    def begin(self, participants=(), wait=True, **allows):
        """BeginAssessment from app-a's own process; `allows`: contract keys
        in Python spelling (allows_clipboard=True). Retried while the daemon
        has not read managed.json yet (it follows the file within a second)."""
        configuration = {KEY['participants']: [self.app_id(p) for p in participants]}
        for name, value in allows.items():
            configuration[KEY[''.join(w.capitalize() if i else w for i, w in enumerate(name.split('_')))]] = value
        exam = self.exam()
        while True:
            outcome = exam.ask(f'begin {json.dumps(configuration)}')
            if outcome == 'ok' or refused_name(outcome) != 'PermissionDenied' or \
                    time.monotonic() - self._listed_at > 3:
                break
            time.sleep(0.1)
        if outcome != 'ok':
            raise AssertionError(f'BeginAssessment from app-a: {outcome}')
        if wait:
            self.wait_locked()

    def end_session(self, passcode=None):
        """An assessment ends as its app ends it (EndAssessment from app-a's
        process: the passcode does not); any other session as SuiteCases ends it."""
        if getattr(self, '_exam', None) is not None and str(self.prop('Mode')) == CONTRACT['SESSION_MODE']['assessment']:
            outcome = self._exam.ask('end')
            if outcome != 'ok':
                raise AssertionError(f'EndAssessment from app-a: {outcome}')
            return
        if passcode is None:
            super().end_session()
        else:
            super().end_session(passcode)

    def end_assessment(self):
        self.end_session()
        self.wait_released()

    def ensure_apps(self, *names):
        for name in names:
            if self.window(name) is None:
                self.apps.pop(name, None)
                self.start_app(name)
        self.activate('app-a')

    # -- cases -------------------------------------------------------------------

    def assessment_begins(self):
        """Only an app listed in AssessmentApplications begins an assessment:
        app-b's BeginAssessment is PermissionDenied and no session starts.
        app-a's (the control) begins one with app-d as participant: Mode
        assessment, AlsoAllowed app-d, the extension registered for
        assessment, screen-capture and clipboard; app-d's window stays
        reachable (raised, it takes the focus), app-b's is minimized and
        cannot be raised. Before, all three are reachable."""
        self.ensure_apps('app-a', 'app-b', 'app-d')
        exam = self.exam()
        if any(self.window(name)['minimized'] for name in ('app-a', 'app-b', 'app-d')):
            raise AssertionError('control: a window is minimized before the assessment')
        time.sleep(max(0.0, 1.2 - (time.monotonic() - self._listed_at)))  # managed.json read
        refused = Client(self, 'app-b')
        try:
            outcome = refused.ask(f'begin {json.dumps({KEY["participants"]: []})}')
        finally:
            refused.stop()
        if refused_name(outcome) != 'PermissionDenied' or self.prop('Enabled'):
            raise AssertionError(f'app-b (not listed) got {outcome!r}, a session running: {bool(self.prop("Enabled"))}')
        self.begin(participants=['app-d'])
        try:
            mode, also = str(self.prop('Mode')), [str(a) for a in self.prop('AlsoAllowed')]
            if mode != 'assessment' or also != [self.app_id('app-d')]:
                raise AssertionError(f'Mode {mode!r}, AlsoAllowed {also}')
            registered = sorted(str(c) for c in dict(self.prop('Enforcers')).get('gnome-shell', []))
            missing = {'assessment', 'screen-capture', 'clipboard'} - set(registered)
            if missing:
                raise AssertionError(f'the extension did not register {sorted(missing)}: {registered}')
            self.activate('app-d')
            self.wait_unreachable('app-b')
            if self.window('app-d')['minimized']:
                raise AssertionError('the participant app-d was minimized')
            if not exam.has('signal AssessmentBegan'):
                raise AssertionError(f'app-a did not hear AssessmentBegan: {exam.lines()[-5:]}')
        finally:
            self.end_assessment()
        return f'app-b refused ({refused_name(outcome)}); app-a began it: Mode assessment, AlsoAllowed app-d, ' \
               f'registered {", ".join(registered)}; app-d reachable, app-b kept minimized (control: all reachable before)'

    def screenshot_outcome(self, tag):
        path = f'{self.work}/shots/assessment-{tag}.png'
        outcome = self._other.ask(f'screenshot {path}')
        return outcome, os.path.exists(path)

    def print_opens_ui(self):
        self.js(f'global._ga.tap([], {PRINT})')
        try:
            wait_for(lambda: self.js('global._ga.screenshotUIShown()'), 0.6, 0.05, what='the screenshot UI')
            return True
        except TimeoutError:
            return False
        finally:
            self.js('global._ga.closeScreenshotUI()')

    def screen_capture_refused(self):
        """During an assessment (allows-screen-capture false), from app-c's
        process: org.gnome.Shell.Screenshot.Screenshot is AccessDenied and no
        file is written; Print opens no screenshot UI; a mutter ScreenCast
        session started before the assessment is closed by mutter within a
        second of the begin (its Closed signal), and a new one is refused or
        closed within a second. Controls: before it, the screenshot is saved,
        Print opens the screenshot UI and the screencast session keeps
        running; with allows-screen-capture true the screenshot is saved and
        a screencast session runs."""
        self.ensure_apps('app-a', 'app-b')
        self.exam()
        other = self._other  # app-c: an app outside the assessment
        shot, saved = self.screenshot_outcome('control')
        if shot != 'ok' or not saved:
            raise AssertionError(f'control: the screenshot before the assessment: {shot}, saved: {saved}')
        if not self.print_opens_ui():
            raise AssertionError('control: Print opened no screenshot UI without an assessment')
        started = other.ask('screencast')
        if not started.startswith('started '):
            raise AssertionError(f'control: a screencast session could not start: {started}')
        before = started.split()[1]
        time.sleep(0.5)
        if other.has(f'closed {before}'):
            raise AssertionError('control: the screencast session closed without an assessment')
        began = time.monotonic()
        self.begin(wait=False)
        try:
            wait_for(lambda: other.has(f'closed {before}'), 1, 0.01, what='the running screencast to close')
            closed_after = time.monotonic() - began
            self.wait_locked()
            shot, saved = self.screenshot_outcome('during')
            if refused_name(shot) != 'AccessDenied' or saved or 'assessment' not in shot:
                raise AssertionError(f'the screenshot during the assessment: {shot!r}, saved: {saved}')
            if self.print_opens_ui():
                raise AssertionError('Print opened the screenshot UI during the assessment')
            new = other.ask('screencast')
            if new.startswith('started '):
                path = new.split()[1]
                wait_for(lambda: other.has(f'closed {path}'), 1, 0.02, what='the new screencast to be stopped')
                new_outcome = 'stopped as it started'
            else:
                new_outcome = f'refused ({refused_name(new)}: {" ".join(new.split()[2:])})'
        finally:
            self.end_assessment()
        self.begin(allows_screen_capture=True)
        try:
            allowed, allowed_saved = self.screenshot_outcome('allowed')
            cast = other.ask('screencast')
            if allowed != 'ok' or not allowed_saved or not cast.startswith('started '):
                raise AssertionError(f'control: with allows-screen-capture the screenshot: {allowed}, '
                                     f'saved {allowed_saved}; the screencast: {cast}')
            time.sleep(0.3)
            if other.has(f'closed {cast.split()[1]}'):
                raise AssertionError('control: with allows-screen-capture the screencast was stopped')
        finally:
            other.ask('stopcasts')
            self.end_assessment()
        return f'screenshot refused ({refused_name(shot)}: "{" ".join(shot.split()[2:])}"), Print opened nothing, ' \
               f'the running screencast closed {closed_after * 1000:.0f} ms after the begin, a new one {new_outcome}; ' \
               'controls: saved, the screenshot UI opened and the screencast kept running before; ' \
               'saved and running with allows-screen-capture'

    def clipboard(self):
        self.js('global._ga.readClipboard()')
        return wait_for(lambda: self.js('global._ga.clipboard'), 3, 0.02, what='the clipboard\'s text')

    def clipboard_cleared(self):
        """Text on the clipboard and the primary selection before the
        assessment is gone once it began; what was copied during it is gone
        once it ended. Control: with allows-clipboard both stay."""
        self.ensure_apps('app-a', 'app-b')
        self.exam()
        self.js('global._ga.setClipboard("before")')
        if self.clipboard() != ['before', 'before']:
            raise AssertionError(f'control: the clipboard holds {self.clipboard()} after setting it')
        self.begin()
        try:
            at_begin = self.clipboard()
            self.js('global._ga.setClipboard("copied in the exam")')
            during = self.clipboard()
        finally:
            self.end_assessment()
        after = self.clipboard()
        if at_begin != ['', ''] or during != ['copied in the exam'] * 2 or after != ['', '']:
            raise AssertionError(f'clipboard and primary at the begin {at_begin}, copied during {during}, after the end {after}')
        self.js('global._ga.setClipboard("kept")')
        self.begin(allows_clipboard=True)
        try:
            kept_begin = self.clipboard()
        finally:
            self.end_assessment()
        kept_end = self.clipboard()
        if kept_begin != ['kept', 'kept'] or kept_end != ['kept', 'kept']:
            raise AssertionError(f'control: with allows-clipboard at the begin {kept_begin}, after the end {kept_end}')
        return 'both selections empty at the begin and after the end (what was copied during it gone); ' \
               'control: with allows-clipboard kept at both'

    def assessment_interrupted(self):
        """The extension disabled during an assessment: app-a hears
        AssessmentInterrupted naming the enforcer; the daemon keeps the
        assessment; enabled again, the lock is back on screen. Control: no
        AssessmentInterrupted before the disable."""
        self.ensure_apps('app-a', 'app-b')
        exam = self.exam()
        self.begin()
        try:
            interrupted = lambda: [line for line in exam.lines() if line.startswith('signal AssessmentInterrupted')]  # noqa: E731
            heard_before = len(interrupted())
            time.sleep(0.2)
            if len(interrupted()) != heard_before:
                raise AssertionError('control: AssessmentInterrupted before the disable')
            self.js('global._ga.extension(false)')
            try:
                wait_for(lambda: len(interrupted()) > heard_before, 3, 0.02, what='AssessmentInterrupted')
                if not self.prop('Enabled') or str(self.prop('Mode')) != 'assessment':
                    raise AssertionError('the assessment ended when the extension was disabled')
            finally:
                self.js('global._ga.extension(true)')
                self.wait_enabled()
            self.wait_locked()
            wait_for(lambda: 'assessment' in [str(c) for c in dict(self.prop('Enforcers')).get('gnome-shell', [])], 5,
                     what='the extension to register assessment again')
            reason = interrupted()[-1].split(' ', 2)[2]
        finally:
            self.end_assessment()
        return f'app-a heard AssessmentInterrupted ("{reason}"), the assessment kept; re-enabled, locked again ' \
               '(control: no signal before the disable)'

    def assessment_notifications(self):
        """A notification sent during an assessment shows no banner (it is
        queued); control: with allows-notifications it shows."""
        self.ensure_apps('app-a', 'app-b')
        wait_for(lambda: self.bus.name_has_owner('org.freedesktop.Notifications'), 10,
                 what='org.freedesktop.Notifications to have an owner')
        self.begin(allows_notifications=True)
        try:
            allowed = self.notify('allowed during the assessment')
            wait_for(self.banner_shown, 5, what='a banner with allows-notifications (control)')
            self.close_notification(allowed)
        finally:
            self.end_assessment()
        self.begin()
        try:
            during = self.notify_unseen('during the assessment', 'during an assessment that does not allow notifications')
        finally:
            self.end_assessment()
        self.close_notification(during)
        return 'no banner during it (the notification queued); control: a banner with allows-notifications'

    def enforced_by_shell(self):
        return [str(c) for c in dict(self.prop('Enforcers')).get('gnome-shell', [])]

    def capture_unstoppable(self):
        """A screencast that does not stop when the extension stops it (a
        session's handle, as mutter reports one, that ignores stop())
        interrupts the assessment: the extension registers again without
        screen-capture, app-a hears AssessmentInterrupted naming the screen
        capture, the lock stays; after the end the extension claims
        screen-capture again. Control: a handle that stops interrupts
        nothing and the claim stays."""
        self.ensure_apps('app-a', 'app-b')
        exam = self.exam()
        self.begin()
        interrupted = lambda: [line for line in exam.lines() if line.startswith('signal AssessmentInterrupted')]  # noqa: E731
        capability = CONTRACT['CAPABILITY']['screenCapture']
        try:
            heard = len(interrupted())
            self.js('global._ga.capture(true)')
            time.sleep(1.5)  # past the extension's second of grace
            if len(interrupted()) != heard or capability not in self.enforced_by_shell():
                raise AssertionError(f'control: a capture that stopped interrupted the assessment {interrupted()[heard:]} '
                                     f'or changed the claim {self.enforced_by_shell()}')
            started = time.monotonic()
            self.js('global._ga.capture(false)')
            wait_for(lambda: len(interrupted()) > heard, 3, 0.02, what='AssessmentInterrupted')
            after = time.monotonic() - started
            reason = interrupted()[-1].split(' ', 2)[2]
            if 'screen capture' not in reason:
                raise AssertionError(f'AssessmentInterrupted gives the reason "{reason}"')
            if capability in self.enforced_by_shell():
                raise AssertionError(f'the extension still claims {capability}: {self.enforced_by_shell()}')
            if not self.prop('Enabled') or str(self.prop('Mode')) != CONTRACT['SESSION_MODE']['assessment']:
                raise AssertionError('the assessment ended with the unstoppable capture')
            self.wait_locked()
        finally:
            self.end_assessment()
        wait_for(lambda: capability in self.enforced_by_shell(), 5, what=f'the extension to claim {capability} again')
        return f'app-a heard AssessmentInterrupted ("{reason}") {after * 1000:.0f} ms after the capture started, ' \
               f'the lock kept, {capability} claimed again after the end (control: a capture that stopped: no signal)'

    def assessment_figure(self):
        """FIGURE begin → lock: from app-a's BeginAssessment call to app-b
        minimized on screen (not asserted)."""
        self.ensure_apps('app-a', 'app-b')
        exam = self.exam()
        measured = []
        for _ in range(BEGINS_MEASURED):
            self.js("global._ga.watch(() => global._ga.win('app-b').minimized)")
            self.begin(wait=False)
            called = int([line for line in exam.lines() if line.startswith('called ')][-1].split()[1])
            done = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01, 'the lock')
            measured.append((done - called) / 1000)
            self.end_assessment()
            self.activate('app-a')
        self.log(f'FIGURE begin → lock (BeginAssessment called → other apps minimized, {BEGINS_MEASURED} begins): '
                 f'{percentiles(measured)}')

    def red_team_assessment(self):
        """The red team's keyboard and other-process ways during an
        assessment whose participant is app-d (a session with AlsoAllowed:
        one run covers both)."""
        self.ensure_apps('app-a', 'app-d')
        self.exam()
        try:
            return self.redteam.run(kinds=('keyboard', 'other processes'), participants=['app-d'])
        finally:
            self.stop_app('app-d')
