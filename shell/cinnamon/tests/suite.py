# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's root side, for shell/tests/runner.py: the extension
installed with shell/cinnamon/install into the work directory (where
Cinnamon looks for a person's extensions), the test apps, and the polkit
rules the cases want."""

import os
import shutil
import subprocess

from harness import CROWD, session_environment
from runner import DAEMON, Desktop, hand_to_nobody, install_test_apps

HERE = os.path.dirname(os.path.abspath(__file__))
CINNAMON_DIR = os.path.dirname(HERE)
SHARED_TESTS = os.path.join(os.path.dirname(CINNAMON_DIR), 'tests')
UUID = 'guided-access@guidedaccess.org'
CLI = os.path.join(os.path.dirname(DAEMON), 'guided-access')
APPS = ('app-a', 'app-b', 'app-c', 'app-x')  # app-x: the override-redirect overlay

# nobody may do every Guided Access admin action except ending a session
# without the passcode, so that a wrong passcode cannot end one.
POLKIT_RULES = """polkit.addRule(function(action, subject) {
    if (subject.user != "nobody" || action.id.indexOf("org.guidedaccess.") != 0)
        return polkit.Result.NOT_HANDLED;
    return action.id == "org.guidedaccess.end-session" ? polkit.Result.NO : polkit.Result.YES;
});
"""


class CinnamonSuite(Desktop):
    """The root side of the Cinnamon adapter; `cases_class` makes the cases."""

    name = 'cinnamon'
    tools = ('cinnamon', 'Xvfb', 'xdotool', 'dbus-daemon', 'gsettings')
    polkit_rules = POLKIT_RULES

    def __init__(self, cases_class):
        self.cases_class = cases_class

    def skip_reason(self):
        if shutil.which('cinnamon') is None:
            return 'no cinnamon (package cinnamon; scripts/install-deps installs it)'
        return None

    def missing_files(self):
        return [path for path in (CLI,) if not os.access(path, os.X_OK)]

    def session_environment(self, work):
        # As Cinnamon's session sets it: the daemon started by the bus knows
        # it is in Cinnamon (so it keeps the features in Cinnamon's schemas),
        # and the apps it launches reach its X display.
        return session_environment(work, XDG_SESSION_TYPE='x11', XDG_CURRENT_DESKTOP='X-Cinnamon',
                                   GSETTINGS_BACKEND='dconf')

    def daemon_environment_file(self, work):
        # Sourced over the daemon's environment at each activation: the
        # desktop's own settings (guided-access-test-session would give it
        # GSettings in memory), so that it writes Cinnamon's as in a session.
        return os.path.join(work, 'daemon.env')

    def prepare(self, work):
        prepare_work(work)

    def cases(self, work, session, root_requests, arguments):
        return self.cases_class(work, session.addresses, layouts='--layouts' in arguments)


def prepare_work(work):
    """The work directory tree, owned by nobody, with the extension installed
    as a person installs it and everything the cases read as nobody copied
    in (the checkout may be unreadable to nobody)."""
    for name in ('runtime', 'home', 'data', 'config', 'cache', 'state', 'bin', 'services', 'logs', 'shots'):
        os.mkdir(os.path.join(work, name))
    os.chmod(os.path.join(work, 'runtime'), 0o700)
    extensions = os.path.join(work, 'data/cinnamon/extensions')
    os.makedirs(extensions)
    result = subprocess.run([os.path.join(CINNAMON_DIR, 'install'), extensions], capture_output=True, text=True,
                            timeout=60)
    if result.returncode != 0 or not os.path.isdir(os.path.join(extensions, UUID)):
        raise RuntimeError(f'shell/cinnamon/install failed: {(result.stderr or result.stdout).strip()}')
    shutil.copy(CLI, os.path.join(work, 'bin/guided-access'))
    shutil.copy(os.path.join(SHARED_TESTS, 'exam.py'), os.path.join(work, 'bin'))
    install_test_apps(work, APPS + CROWD, APPS)
    with open(os.path.join(work, 'managed.json'), 'w') as f:
        f.write('{}\n')
    with open(os.path.join(work, 'daemon.env'), 'w') as f:
        f.write('GSETTINGS_BACKEND=dconf\n')
    hand_to_nobody(work)
