# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's root side, for shell/tests/runner.py: the extension
and its test helper installed into the work directory, the polkit rules the
cases want, and the administrator's dconf lock (AdminLock), which the cases
ask root for."""

import os
import shutil
import subprocess

from harness import CROWD, session_environment
from runner import Desktop, hand_to_nobody, install_test_apps, remove_installed, serve_requests, update_dconf
from shellinfo import HELPER_UUID, SHELL_MAJOR, UUID

HERE = os.path.dirname(os.path.abspath(__file__))
GNOME_DIR = os.path.dirname(HERE)
SHARED_TESTS = os.path.join(os.path.dirname(GNOME_DIR), 'tests')
APPS = ('app-a', 'app-b', 'app-c', 'app-d')  # the test apps (shell/tests/app.py)

# nobody may do every Guided Access admin action except ending a session
# without the passcode, so that a wrong passcode cannot end one.
# Setting a passcode is refused while WORK/deny-set-passcode exists (the
# start sheet's case for a person who may not set one). The shell says
# which and exits 0, so that a spawn that fails (polkit's spawn throws
# alike for a non-zero exit and for a timeout) is neither: the rule throws,
# polkitd logs why (polkitd.log) and falls back to the action's default.
POLKIT_RULES = """polkit.addRule(function(action, subject) {
    if (subject.user != "nobody" || action.id.indexOf("org.guidedaccess.") != 0)
        return polkit.Result.NOT_HANDLED;
    if (action.id == "org.guidedaccess.set-passcode") {
        var said = polkit.spawn(["/bin/sh", "-c",
            "if [ -e WORK/deny-set-passcode ]; then echo deny; else echo allow; fi"]);
        return said.trim() == "deny" ? polkit.Result.NO : polkit.Result.YES;
    }
    return action.id == "org.guidedaccess.end-session" ? polkit.Result.NO : polkit.Result.YES;
});
"""



class GnomeSuite(Desktop):
    """The root side of the GNOME adapter; `cases_class` makes the cases."""

    name = 'gnome'
    tools = ('gnome-shell', 'Xwayland', 'dbus-daemon', 'dbus-send', 'glib-compile-schemas')
    polkit_rules = POLKIT_RULES

    def __init__(self, cases_class):
        self.cases_class = cases_class
        # The run's own dconf profile (a dconf name is part of an object path).
        self.profile = f'guided_access_shelltest_{os.getpid()}'
        self.admin = None

    def session_environment(self, work):
        return session_environment(work, DCONF_PROFILE=self.profile)

    def daemon_environment_file(self, work):
        return daemon_environment_file(work)

    def prepare(self, work):
        prepare_work(work)

    def root_helper(self, work, session):
        self.admin = AdminLock(self.profile, session.addresses['DBUS_SYSTEM_BUS_ADDRESS'])
        self.admin.prepare()
        return self.admin

    def finish(self):
        if self.admin is not None:
            self.admin.finish()

    def cases(self, work, session, root_requests, arguments):
        return self.cases_class(work, session.addresses, self.profile, root_requests,
                                layouts='--layouts' in arguments)


class AdminLock:
    """docs/administrators.md's lock on the extension, made the way an
    administrator makes it: a dconf system database in /etc/dconf/db
    (a profile and a database of this run's own, removed afterwards),
    compiled by `dconf update`. It starts empty; lock() writes the keys and
    their locks and updates the database while the shell runs."""

    KEYS = {'enabled-extensions': f"['{UUID}', '{HELPER_UUID}']", 'disabled-extensions': '@as []',
            'disable-user-extensions': 'false'}

    def __init__(self, tag, system_address):
        self.profile = tag
        self.profile_path = f'/etc/dconf/profile/{tag}'
        self.source = f'/etc/dconf/db/{tag}.d'
        self.files = [self.profile_path, f'/etc/dconf/db/{tag}', self.source, f'{self.source}/locks',
                      f'{self.source}/00-guided-access', f'{self.source}/locks/guided-access']
        self.env = {**os.environ, 'DBUS_SYSTEM_BUS_ADDRESS': system_address}

    def prepare(self):
        os.makedirs(f'{self.source}/locks', exist_ok=True)
        os.makedirs(os.path.dirname(self.profile_path), exist_ok=True)
        with open(self.profile_path, 'w') as f:
            f.write(f'user-db:user\nsystem-db:{self.profile}\n')
        self.update()

    def lock(self):
        with open(f'{self.source}/00-guided-access', 'w') as f:
            f.write('[org/gnome/shell]\n' + ''.join(f'{key}={value}\n' for key, value in self.KEYS.items()))
        with open(f'{self.source}/locks/guided-access', 'w') as f:
            f.write(''.join(f'/org/gnome/shell/{key}\n' for key in self.KEYS))
        self.update()

    def update(self):
        subprocess.run(['dconf', 'update'], check=True, env=self.env, timeout=30)
        for path in self.files:
            if os.path.exists(path):
                os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)

    def serve(self, requests, replies):
        """Carries out the cases' requests (they run as nobody)."""
        serve_requests(requests, replies, {'lock': self.lock})

    def finish(self):
        remove_installed(self.files)
        update_dconf()


def daemon_environment_file(work):
    """Sourced over the daemon's environment at each activation while it
    exists (absent: the daemon keeps desktop settings in its memory); the
    accessibility case writes GSETTINGS_BACKEND=dconf there."""
    return os.path.join(work, 'daemon.env')


def prepare_work(work):
    """The work directory tree, owned by nobody, with the extension installed."""
    for name in ('runtime', 'home', 'data', 'config', 'cache', 'state', 'bin', 'services', 'logs', 'shots'):
        os.mkdir(os.path.join(work, name))
    os.chmod(os.path.join(work, 'runtime'), 0o700)
    extensions = os.path.join(work, 'data/gnome-shell/extensions')
    os.makedirs(extensions)
    # Shown once, the shell's "Screen Lock disabled" banner (no GDM here)
    # would otherwise cover the top of the README's pictures.
    open(os.path.join(work, 'data/gnome-shell/lock-warning-shown'), 'w').close()
    subprocess.run([os.path.join(GNOME_DIR, 'install'), extensions], check=True)
    helper = os.path.join(extensions, HELPER_UUID)
    shutil.copytree(os.path.join(HERE, HELPER_UUID), helper)
    # GNOME 45+ loads extensions as ES modules (as ../install does for ours).
    if SHELL_MAJOR >= 45:
        os.replace(os.path.join(helper, 'extension.esm.js'), os.path.join(helper, 'extension.js'))
    else:
        os.unlink(os.path.join(helper, 'extension.esm.js'))
    # Everything the cases read as nobody is copied here, never read from the
    # checkout, which nobody may not be able to read (a clone in root's home,
    # mode 700): the extension's sources (for the ES module check), the
    # daemon (TestSession copies it), and app.py below.
    shutil.copytree(os.path.join(GNOME_DIR, UUID), os.path.join(work, 'source', UUID))
    shutil.copy(os.path.join(SHARED_TESTS, 'exam.py'), os.path.join(work, 'bin'))
    install_test_apps(work, APPS + CROWD, APPS)
    # The administrator's policy, empty; nobody's, so that the managed Single
    # App Mode case (modecases.py) can write it as an administrator would.
    with open(os.path.join(work, 'managed.json'), 'w') as f:
        f.write('{}\n')
    # The shell's own notification service, which the shell starts: it owns
    # org.freedesktop.Notifications and passes what apps send to the shell.
    notifications = '/usr/share/dbus-1/services/org.gnome.Shell.Notifications.service'
    if os.path.exists(notifications):
        shutil.copy(notifications, os.path.join(work, 'services'))
    hand_to_nobody(work)
