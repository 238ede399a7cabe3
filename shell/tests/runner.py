# SPDX-License-Identifier: GPL-2.0-or-later
"""The root part of every on-screen suite (shell/*/tests/run): what needs
root, then the cases as nobody in a child process, then the cleanup and
the unit's result.

A desktop's suite hands `main()` a `Desktop`: the root side of its adapter
(what it needs installed, how its work directory is made, the polkit rules
its cases want, the cases themselves). Everything else is done here once:
/tmp/.X11-unix, the work directory, the private buses, polkitd and the
daemon from guided-access-test-session (harness.TestSession), the switch to
uid 65534, the README's screenshots, every process group the cases left
(harness.stop_remembered_groups) and the result: with
GUIDED_ACCESS_RESULT=FILE, one JSON object for the unit (see `Result`),
which shell/tests/units merges into scripts/test's tables, and beside it
the logs of a failed run (keep_logs).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from harness import USER_ID, TestSession, log, stop_remembered_groups, test_session_beside

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMON = os.environ.get('GUIDED_ACCESSD', os.path.join(REPO, '.build/debug/guided-accessd'))

# The lines a suite prints for scripts/test's tables and notes, by their first word.
TAGS = ('LAYOUT', 'REDTEAM', 'FIGURE', 'A11Y', 'ASSESSMENT', 'NOTE', 'REPEAT')
CLOSING = re.compile(r'^(\d+ passed, \d+ failed.*|SKIP .*|FAIL setup.*)$')


class Desktop:
    """The root side of a desktop's adapter; a suite subclasses it."""

    #: The directory of the desktop in shell/ (gnome, kde, ...).
    name = ''
    #: Programs the suite needs on PATH (scripts/install-deps installs them).
    tools = ()
    #: polkit rules for the run, WORK replaced by the work directory.
    polkit_rules = ''

    def skip_reason(self):
        """Why the suite cannot run here at all (SKIP), or None."""
        return None

    def missing_files(self):
        """Files the suite needs that are not there (FAIL setup)."""
        return []

    def session_environment(self, work):
        """What the private session bus runs with (harness.session_environment)."""
        raise NotImplementedError

    def daemon_environment_file(self, work):
        """TestSession's --daemon-environment-file, or None."""
        return None

    def prepare(self, work):
        """The work directory's tree, owned by nobody (as root)."""
        raise NotImplementedError

    def root_helper(self, work, session):
        """What serves the cases' requests for root, in a thread of the
        root part: an object with `serve(requests, replies)` (see
        serve_requests), or None."""
        return None

    def finish(self):
        """Undoes what the root side installed outside the work directory
        (called after every run, also one that failed to start)."""

    def cases(self, work, session, root_requests, arguments):
        """The suite's cases (a harness.SuiteCases), made in the child as
        nobody; `run()` is called on it and returns the exit status."""
        raise NotImplementedError


class Result:
    """One unit's result, as GUIDED_ACCESS_RESULT receives it:
    {"status", "seconds", "summary" (the closing line), "cases" (each case's
    name, passed and seconds, from harness.SuiteCases), "lines" (every
    LAYOUT, REDTEAM, FIGURE, A11Y, ASSESSMENT and NOTE line, by tag)}."""

    def __init__(self):
        self.started = time.monotonic()
        self.summary = ''
        self.lines = {tag: [] for tag in TAGS}

    def read(self, line):
        """Takes one line the suite printed."""
        tag = line.split(' ', 1)[0]
        if tag in self.lines:
            self.lines[tag].append(line)
        elif CLOSING.match(line):
            self.summary = line

    def write(self, path, status, cases):
        with open(path, 'w') as f:
            json.dump({'status': status, 'seconds': round(time.monotonic() - self.started, 1),
                       'summary': self.summary or 'FAIL setup: the suite printed no closing line',
                       'cases': cases, 'lines': self.lines}, f, indent=1)


def main(desktop, arguments):
    """Runs `desktop`'s suite; returns the exit status."""
    result = Result()
    status, cases = run(desktop, arguments, result)
    if os.environ.get('GUIDED_ACCESS_RESULT'):
        result.write(os.environ['GUIDED_ACCESS_RESULT'], status, cases)
    return status


def say(result, line):
    log(line)
    result.read(line)


def run(desktop, arguments, result):
    suite = f'shell/{desktop.name}/tests/run'
    if os.geteuid() != 0:
        say(result, f'SKIP {suite}: needs root (it installs polkit test files, creates /tmp/.X11-unix '
                    'and runs the shell as uid 65534)')
        return 0, []
    reason = desktop.skip_reason()
    if reason:
        say(result, f'SKIP {suite}: {reason}')
        return 0, []
    missing = [tool for tool in desktop.tools if shutil.which(tool) is None] + desktop.missing_files() \
        + [path for path in (DAEMON, test_session_beside(DAEMON)) if not os.access(path, os.X_OK)]
    if missing:
        say(result, f'FAIL setup: missing {", ".join(missing)} (scripts/install-deps installs the packages; '
                    'build the daemon and the test session (swift build) or set GUIDED_ACCESSD)')
        return 1, []

    work = tempfile.mkdtemp(prefix=f'ga-{desktop.name}-', dir='/tmp')
    session = None
    status, cases = 1, []
    try:
        os.chmod(work, 0o755)
        if not os.path.isdir('/tmp/.X11-unix'):
            os.mkdir('/tmp/.X11-unix')
        os.chmod('/tmp/.X11-unix', 0o1777)
        desktop.prepare(work)
        session = TestSession(DAEMON, work, desktop.session_environment(work),
                              desktop.polkit_rules.replace('WORK', work),
                              daemon_environment_file=desktop.daemon_environment_file(work))
        helper = desktop.root_helper(work, session)
        status = as_nobody(desktop, work, session, helper, arguments, result)
        cases = read_cases(work)
        # The cases run as nobody, who may not write into the repo: copy here.
        if os.environ.get('SCREENSHOTS'):
            os.makedirs(os.environ['SCREENSHOTS'], exist_ok=True)
            for name in os.listdir(os.path.join(work, 'shots')):
                shutil.copy(os.path.join(work, 'shots', name), os.environ['SCREENSHOTS'])
    except Exception as error:
        say(result, f'FAIL setup: {error}')
        status = 1
    finally:
        stop_remembered_groups(work)
        if session is not None:
            session.stop()
        desktop.finish()
        keep_logs(work, status)
    return status, cases


def keep_logs(work, status):
    """Removes the work directory; with KEEP_WORK set, keeps it. A unit
    (GUIDED_ACCESS_RESULT set) runs in a /tmp of its own that goes with it:
    there the logs of a failed run, or of any with KEEP_WORK, are copied
    beside the result (RESULT.logs/) first."""
    result = os.environ.get('GUIDED_ACCESS_RESULT')
    if result and (status != 0 or os.environ.get('KEEP_WORK')):
        kept = os.path.splitext(result)[0] + '.logs'
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(os.path.join(work, 'logs'), kept, symlinks=True, ignore_dangling_symlinks=True)
        log(f'(logs kept in {kept})')
    if os.environ.get('KEEP_WORK') is None:
        shutil.rmtree(work, ignore_errors=True)
    elif not result:
        log(f'(logs kept in {work}/logs because KEEP_WORK is set)')


def as_nobody(desktop, work, session, helper, arguments, result):
    """Forks the child that runs the cases as uid 65534; its output (and
    that of everything it starts) passes through here, line by line, into
    this process's and into `result`. Returns its exit status."""
    output = os.pipe()
    requests, replies = os.pipe(), os.pipe()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.close(output[0])
            os.dup2(output[1], 1)
            os.dup2(output[1], 2)
            os.close(requests[0])
            os.close(replies[1])
            session.forget()
            # Whatever the cases start inherits the working directory: one
            # nobody can read, not the checkout.
            os.chdir(work)
            os.setgroups([])
            os.setgid(USER_ID)
            os.setuid(USER_ID)
            root_requests = RootRequests(requests[1], replies[0]) if helper is not None else None
            code = desktop.cases(work, session, root_requests, arguments).run()
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    for fd in (output[1], requests[1], replies[0]):
        os.close(fd)
    if helper is not None:
        threading.Thread(target=helper.serve, args=(requests[0], replies[1]), daemon=True).start()
    else:
        os.close(requests[0])
        os.close(replies[1])
    with os.fdopen(output[0], errors='replace') as lines:
        for line in lines:
            sys.stdout.write(line)
            sys.stdout.flush()
            result.read(line.rstrip('\n'))
    _, wait_status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(wait_status)


def read_cases(work):
    """What harness.SuiteCases wrote of its cases, or [] without it."""
    try:
        with open(os.path.join(work, 'logs', 'cases.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


class RootRequests:
    """The cases' side of a root helper's serve(): one request a line, one
    answer ("ok" or "error WHY") a line."""

    def __init__(self, requests, replies):
        self._out = os.fdopen(requests, 'w')
        self._in = os.fdopen(replies)

    def ask(self, request):
        self._out.write(request + '\n')
        self._out.flush()
        answer = self._in.readline().strip()
        if answer != 'ok':
            raise RuntimeError(f'root could not {request}: {answer or "no answer"}')


def serve_requests(requests, replies, handlers):
    """A root helper's serve(): carries out each request the cases send
    (they run as nobody) with `handlers[request]()`."""
    with os.fdopen(requests) as incoming, os.fdopen(replies, 'w') as outgoing:
        for line in incoming:
            try:
                handlers[line.strip()]()
                outgoing.write('ok\n')
            except Exception as error:
                outgoing.write(f'error {error}\n')
            outgoing.flush()


def install_test_apps(work, programs, apps):
    """Copies shell/tests/app.py into WORK/bin with an interpreter file of
    its own for each of `programs` (so each has its own app id, as each
    installed app has), and a desktop file for each of `apps`, so that the
    shell tracks it as a real app (its menu, launching it again)."""
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'app.py'), os.path.join(work, 'bin'))
    interpreter = os.path.realpath('/usr/bin/python3')
    for program in programs:
        shutil.copy(interpreter, os.path.join(work, 'bin', program))
    os.makedirs(os.path.join(work, 'data/applications'), exist_ok=True)
    for app in apps:
        with open(os.path.join(work, f'data/applications/{app}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={app}\nStartupWMClass={app}\n'
                    f'Exec="{work}/bin/{app}" "{work}/bin/app.py" {app} "{work}/logs/{app}.log"\n')


def hand_to_nobody(work):
    """The end of a suite's prepare(): dconf-service where the private
    session bus activates it from, and the whole work directory owned by
    nobody, who runs the cases."""
    with open(os.path.join(work, 'services/ca.desrt.dconf.service'), 'w') as f:
        f.write('[D-BUS Service]\nName=ca.desrt.dconf\nExec=/usr/libexec/dconf-service\n')
    for root, dirs, files in os.walk(work):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), USER_ID, USER_ID)
    os.lchown(work, USER_ID, USER_ID)


def remove_installed(paths):
    """Removes what a root helper installed, the deepest first."""
    for path in reversed(paths):
        try:
            if os.path.isdir(path):
                os.rmdir(path)
            else:
                os.unlink(path)
        except OSError:
            pass


def update_dconf():
    subprocess.run(['dconf', 'update'], capture_output=True)
