# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's root side, for shell/tests/runner.py: the enforcer
installed with shell/kde/install into the work directory, a copy of KWin,
the stand-ins and the probe copied in, and the polkit rules the cases
want."""

import os
import shutil
import subprocess

import fakeinput
from harness import CROWD, session_environment
from kwin import SCRIPT_ID, SOCKET
from runner import DAEMON, Desktop, hand_to_nobody, install_test_apps

HERE = os.path.dirname(os.path.abspath(__file__))
KDE_DIR = os.path.dirname(HERE)
SHARED_TESTS = os.path.join(os.path.dirname(KDE_DIR), 'tests')
ENFORCER_DIR = os.environ.get('GUIDED_ACCESS_KDE', KDE_DIR)
CLI = os.path.join(os.path.dirname(DAEMON), 'guided-access')

# nobody may do every Guided Access admin action except ending a session
# without the passcode, so that a wrong passcode cannot end one.
POLKIT_RULES = """polkit.addRule(function(action, subject) {
    if (subject.user != "nobody" || action.id.indexOf("org.guidedaccess.") != 0)
        return polkit.Result.NOT_HANDLED;
    return action.id == "org.guidedaccess.end-session" ? polkit.Result.NO : polkit.Result.YES;
});
"""

# Two virtual desktops (Ctrl+F2 switches to the second one); no animations.
KWINRC = """[Desktops]
Number=2
Rows=1

[Effect-overview]
BorderActivate=9

[Windows]
Placement=Smart
"""
KDEGLOBALS = """[KDE]
AnimationDurationFactor=0
"""



def plasma_version(work):
    """KWin's major version, as Plasma's start-up sets KDE_SESSION_VERSION;
    asked of WORK's copy (prepare_work), which runs where /usr/bin's, with
    its file capabilities, may not."""
    printed = subprocess.run([f'{work}/bin/kwin_wayland', '--version'], capture_output=True, text=True).stdout.split()
    return printed[-1].split('.')[0] if printed else '5'


class KWinSuite(Desktop):
    """The root side of the KWin adapter; `cases_class` makes the cases of
    one monitor, `layouts_class` those of --layouts."""

    name = 'kde'
    tools = ('Xwayland', 'dbus-daemon', 'wayland-scanner', 'gcc', 'wl-copy', 'wl-paste')
    polkit_rules = POLKIT_RULES

    def __init__(self, cases_class, layouts_class):
        self.cases_class, self.layouts_class = cases_class, layouts_class
        self.install = os.path.join(ENFORCER_DIR, 'install')

    def skip_reason(self):
        if shutil.which('kwin_wayland') is None:
            return 'no kwin_wayland (package kwin-wayland; scripts/install-deps installs it)'
        if not os.access(self.install, os.X_OK):
            return f'no enforcer to test ({self.install} is missing)'
        return None

    def missing_files(self):
        return [path for path in (CLI,) if not os.access(path, os.X_OK)] \
            + [path for path in (fakeinput.PROTOCOL,) if not os.path.exists(path)]

    def session_environment(self, work):
        # As Plasma's start-up does (UpdateActivationEnvironment): what the
        # bus starts, the daemon and the apps it launches again, finds KWin,
        # knows it is in Plasma (so the daemon keeps the features in
        # Plasma's files) and reads the administrator's files where KWin does.
        return session_environment(work, WAYLAND_DISPLAY=SOCKET, XDG_CURRENT_DESKTOP='KDE',
                                   KDE_SESSION_VERSION=plasma_version(work), XDG_CONFIG_DIRS=f'{work}/xdg:/etc/xdg')

    def prepare(self, work):
        prepare_work(work, self.install)

    def cases(self, work, session, root_requests, arguments):
        suite = self.layouts_class if '--layouts' in arguments else self.cases_class
        return suite(work, session.addresses)


def prepare_work(work, install):
    """The work directory tree, owned by nobody, with the enforcer installed
    and everything the cases read as nobody copied in (the checkout may be
    unreadable to nobody: a clone in root's home, mode 700)."""
    for name in ('runtime', 'home', 'data', 'config', 'cache', 'state', 'bin', 'services', 'logs', 'shots',
                 'scripts', 'source', 'xdg'):
        os.mkdir(os.path.join(work, name))
    os.chmod(os.path.join(work, 'runtime'), 0o700)
    result = subprocess.run([install, os.path.join(work, 'data')], capture_output=True, text=True, timeout=60)
    with open(os.path.join(work, 'logs/install.log'), 'w') as f:
        f.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f'{install} failed: {(result.stderr or result.stdout).strip()}')
    if not os.path.isdir(os.path.join(work, 'data/kwin/scripts', SCRIPT_ID)):
        raise RuntimeError(f'{install} installed no kwin/scripts/{SCRIPT_ID}')
    # KWin as a copy: without Debian's CAP_SYS_RESOURCE (setcap), which stops
    # it from starting in a container.
    shutil.copy('/usr/bin/kwin_wayland', os.path.join(work, 'bin/kwin_wayland'))
    shutil.copy(CLI, os.path.join(work, 'bin/guided-access'))
    for name in ('fake-input.c', 'services.py', 'banner.py', 'launcher.py', 'dock.py'):
        shutil.copy(os.path.join(HERE, name), os.path.join(work, 'source'))
    shutil.copy(os.path.join(SHARED_TESTS, 'exam.py'), os.path.join(work, 'source'))
    shutil.copytree(os.path.join(HERE, 'probe'), os.path.join(work, 'source/probe'))
    # The test apps, and the dock stand-in on an interpreter file of its own.
    install_test_apps(work, ('app-a', 'app-b', 'app-c', 'app-x', 'dock') + CROWD, ('app-a', 'app-b', 'app-c', 'app-x'))
    # KWin lets a program take screenshots (ScreenShot2) only if the first
    # desktop file it finds whose Exec is the program's executable names the
    # restricted interface. services.py, which takes them for the cases, runs
    # on an interpreter file of its own: /usr/bin/python3.11 has its own
    # desktop file, which KWin may find first (then it refuses, at random).
    shutil.copy(os.path.realpath('/usr/bin/python3'), os.path.join(work, 'bin/services'))
    with open(os.path.join(work, 'data/applications/guided-access-tests.desktop'), 'w') as f:
        f.write(f'[Desktop Entry]\nType=Application\nName=Guided Access tests\nExec={work}/bin/services\n'
                'NoDisplay=true\nX-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n')
    # The KRunner stand-in's desktop file (see services.py): kglobalaccel
    # activates it over D-Bus when its shortcut is pressed.
    with open(os.path.join(work, 'data/applications/org.kde.krunner.desktop'), 'w') as f:
        f.write('[Desktop Entry]\nType=Application\nName=KRunner (test stand-in)\nExec=/bin/false\n'
                'DBusActivatable=true\nNoDisplay=true\nX-KDE-Shortcuts=Alt+Space\n')
    with open(os.path.join(work, 'config/kwinrc'), 'w') as f:
        f.write(KWINRC)
    # The administrator's policy, empty; made here so that nobody (who plays
    # the administrator in single_app_reboot) may write it.
    with open(os.path.join(work, 'managed.json'), 'w') as f:
        f.write('{}\n')
    with open(os.path.join(work, 'config/kdeglobals'), 'w') as f:
        f.write(KDEGLOBALS)
    hand_to_nobody(work)
