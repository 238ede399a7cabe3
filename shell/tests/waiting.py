# SPDX-License-Identifier: GPL-2.0-or-later
"""Bounded waiting for the on-screen suites (shell/gnome/tests, shell/kde/tests)."""

import time


def wait_for(predicate, timeout, interval=0.05, what='condition'):
    """Returns predicate()'s first truthy value; raises TimeoutError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f'timed out after {timeout} s waiting for {what}')
        time.sleep(interval)
