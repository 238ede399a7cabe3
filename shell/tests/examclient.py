# SPDX-License-Identifier: GPL-2.0-or-later
"""The exam app the on-screen suites' assessment cases drive: exam.py
(beside this file) run with a test app's own interpreter copy, so that the
daemon gives its calls that app's id."""

import subprocess

from harness import EXAM_ARGUMENTS
from waiting import wait_for


class Client:
    """A running exam.py (shell/tests) as app `name`; ask() sends a command and
    returns what came of it."""

    def __init__(self, cases, name):
        self.name = name
        self.log_path = f'{cases.work}/logs/assessment-{name}.log'
        self.process = subprocess.Popen(
            [f'{cases.work}/bin/{name}', f'{cases.work}/bin/exam.py', self.log_path, *EXAM_ARGUMENTS],
            stdin=subprocess.PIPE, text=True, env=cases.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        cases.remember_group(self.process.pid)
        wait_for(lambda: 'ready' in self.lines(), 10, what=f'the assessment client of {name}')

    def lines(self):
        try:
            with open(self.log_path) as f:
                return [line.rstrip('\n') for line in f]
        except OSError:
            return []

    def ask(self, text, timeout=10):
        """The command's outcome: 'ok', or 'error NAME MESSAGE' (a screencast: 'started PATH')."""
        word = text.split()[0]
        seen = len(self.lines())
        self.process.stdin.write(text + '\n')
        self.process.stdin.flush()
        return wait_for(lambda: next((line[len(word) + 1:] for line in self.lines()[seen:]
                                      if line.startswith(word + ' ')), None), timeout, 0.02, what=f'{word} to answer')

    def has(self, line):
        return line in self.lines()

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def refused_name(outcome):
    """'error org.freedesktop.DBus.Error.AccessDenied text' → 'AccessDenied'."""
    return outcome.split()[1].rsplit('.', 1)[-1] if outcome.startswith('error ') else None
