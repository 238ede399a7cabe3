# SPDX-License-Identifier: GPL-2.0-or-later
"""What every desktop's on-screen suite (shell/*/tests/run) shares as
nobody, and what runner.py uses of it as root: the daemon's private buses
from guided-access-test-session, the environment of a session run as
nobody, process groups, figures, and the cases' loop with the daemon's side
of a session. Each suite adds its shell: how it starts, how it is driven,
what a person sees in it (docs/adding-a-desktop.md). All run in any Debian
root of scripts/desktop-root.
"""

import json
import os
import re
import signal
import statistics
import subprocess
import time
import traceback

from waiting import wait_for


def load_contract():
    """The daemon's names as shell/common/contract.js holds them (generated
    from its Swift declarations): {'BUS_NAME': ..., 'INTERFACES': {...}, ...}."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'common', 'contract.js')
    with open(path) as f:
        return {match[1]: json.loads(match[2]) for match in re.finditer(r'^export var (\w+) = (.*);$', f.read(), re.M)}


CONTRACT = load_contract()
USER_ID = 65534  # nobody: the shells, the apps and the cases run as this user
BUS_NAME = CONTRACT['BUS_NAME']
OBJECT_PATH = CONTRACT['OBJECT_PATH']
# What shell/tests/exam.py is run with after its log: the daemon's names.
EXAM_ARGUMENTS = [BUS_NAME, OBJECT_PATH, CONTRACT['INTERFACES']['session']]
PASSCODE = '2468'
# The latency figures' other windows, besides the locked app's: app-b's and
# those of nine more apps (CROWD), a few windows each (app.py opens N given N).
# The short form (scripts/test, CI) measures at 2; FIGURES=full at all three.
WINDOW_COUNTS = (2, 10, 50) if os.environ.get('FIGURES') == 'full' else (2,)
CROWD = tuple(f'crowd-{n}' for n in range(1, 10))
# The titles of those windows ("crowd-3 2" is crowd-3's second): a pattern
# Python's re and JavaScript's RegExp read alike.
OTHER_WINDOWS = '^(app-b|crowd-)'


def crowd(windows):
    """How `windows` windows spread over the crowd apps: (app, its
    windows), as many apps as windows, up to all nine."""
    apps = CROWD[:windows]
    return [(app, windows // len(apps) + (index < windows % len(apps))) for index, app in enumerate(apps)]


# The assessment's keys the daemon enforces alone, the same on every
# desktop, and the swift tests of scripts/test's run that prove them.
DAEMON_ASSESSMENT_PROOFS = {
    'allows-accessibility-speech': 'enforced by the daemon on every desktop (swift test "speech features: off unless allowed…")',
    'keep-accessibility': 'enforced by the daemon on every desktop (swift test "speech features: off unless allowed…")',
    'allows-spell-check': 'enforced by the daemon where IBus is installed, on every desktop (swift test '
                          '"an assessment that does not allow spell check empties IBus\'s emoji and Unicode hotkeys…")',
    'time-limit': 'enforced by the daemon on every desktop (swift test "time-limit: the assessment expires…")',
}


def log(message):
    print(message, flush=True)


def quantile(values, q):
    """The value below which a fraction `q` of `values` lies (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def percentiles(values):
    return f'p50 {statistics.median(values):.1f} ms, p99 {quantile(values, 0.99):.1f} ms'


def beside_reference(values, reference):
    """A FIGURE line's figures: ours, the reference's from the same run, and
    the ratio of their p99s."""
    return (f'{percentiles(values)}; reference {percentiles(reference)}; p99 '
            f'{quantile(values, 0.99) / max(quantile(reference, 0.99), 0.1):.2f}x the reference')


def process_start(pid):
    """When process `pid` started (clock ticks since boot), or None once it
    is gone: with its id, what tells a process from a later one given the
    same id."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return int(f.read().rsplit(')', 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


# The start of each group leader this process remembered (remember_group).
_group_starts = {}


def stop_group(pid, grace=3.0):
    """SIGTERM to the process group `pid`, SIGKILL after `grace` s. A
    remembered group whose leader's id now belongs to a process started
    later is not ours: it is left alone."""
    started = _group_starts.get(pid)
    now = process_start(pid)
    if started is not None and now is not None and now != started:
        return
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def remember_group(work, pid):
    """Notes the process group `pid` (its leader's start with it) in
    WORK/pids, whose groups the runner stops after the cases."""
    _group_starts[pid] = process_start(pid)
    with open(os.path.join(work, 'pids'), 'a') as f:
        f.write(f'{pid} {_group_starts[pid]}\n')


def stop_remembered_groups(work):
    """Stops every group in WORK/pids that is still the one remembered
    there, the last remembered first."""
    try:
        with open(os.path.join(work, 'pids')) as f:
            groups = [line.split() for line in f if line.strip()]
    except OSError:
        return
    for pid, started in reversed(groups):
        if started != 'None':
            _group_starts[int(pid)] = int(started)
        stop_group(int(pid))


def test_session_beside(daemon):
    """guided-access-test-session, which `swift build` puts beside the daemon."""
    return os.path.join(os.path.dirname(daemon), 'guided-access-test-session')


def session_environment(work, **extra):
    """What the session bus, and so what it activates, runs with; the cases,
    the shell and the apps get it too, with the buses' addresses."""
    return {
        'PATH': '/usr/local/bin:/usr/bin:/bin',
        'HOME': f'{work}/home', 'USER': 'nobody', 'LANG': 'C.UTF-8',
        'XDG_RUNTIME_DIR': f'{work}/runtime', 'XDG_DATA_HOME': f'{work}/data',
        'XDG_CONFIG_HOME': f'{work}/config', 'XDG_CACHE_HOME': f'{work}/cache',
        'XDG_STATE_HOME': f'{work}/state', 'NO_AT_BRIDGE': '1', 'XDG_SESSION_TYPE': 'wayland',
        **extra,
    }


class TestSession:
    """The private buses, polkitd and the bus-activated daemon, from
    guided-access-test-session: the Swift tests' way of starting the daemon,
    so a change to how it starts is made there once. It prints the buses'
    addresses, then READY, and stops everything when its stdin closes (or
    this process dies)."""

    def __init__(self, daemon, work, environment, polkit_rules, daemon_environment_file=None):
        argv = [test_session_beside(daemon), '--unprivileged', '--polkit-rules', f'{work}/polkit.rules',
                '--services', f'{work}/services', '--daemon-copy', f'{work}/bin/guided-accessd',
                '--state-dir', f'{work}/state/guided-access', '--managed-config', f'{work}/managed.json',
                '--passcode-cost', '1', '--polkit-timeout', '10', '--daemon-log', f'{work}/logs/daemon.log',
                # Activation refuses to start the daemon while `hold-daemon`
                # exists (the fail-closed cases keep the name ownerless that way).
                '--hold-file', f'{work}/hold-daemon', '--logs', f'{work}/logs']
        for name, value in environment.items():
            argv += ['--setenv', f'{name}={value}']
        # NAME=value lines sourced over the daemon's environment at each
        # activation while the file exists (a case that needs the desktop's
        # own settings writes GSETTINGS_BACKEND=dconf there, then restarts it).
        if daemon_environment_file is not None:
            argv += ['--daemon-environment-file', daemon_environment_file]
        with open(f'{work}/polkit.rules', 'w') as f:
            f.write(polkit_rules)
        # The daemon refuses to start when the managed config it is named is
        # missing: an empty policy (no administrator's settings) unless a
        # suite wrote its own.
        if not os.path.exists(f'{work}/managed.json'):
            with open(f'{work}/managed.json', 'w') as f:
                f.write('{}\n')
        # Its own session: Ctrl+C reaches the suite, which then closes its
        # stdin. What the bus activates inherits the working directory: one
        # nobody can read, not the checkout.
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=work,
                                        env={**os.environ, 'GUIDED_ACCESSD': daemon}, start_new_session=True)
        self.addresses = {}
        for line in self.process.stdout:
            if line.strip() == 'READY':
                return
            name, _, value = line.strip().partition('=')
            self.addresses[name] = value
        raise RuntimeError(f'guided-access-test-session exited with {self.process.wait()} before it was ready')

    def forget(self):
        """In a forked child: lets go of the pipes, so that only the parent's
        stop() ends the session."""
        self.process.stdin.close()
        self.process.stdout.close()

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class SuiteCases:
    """The cases' loop and the daemon's side of a session, as nobody. A
    suite's Cases sets `self.bus` (dbus-python, on the private session bus)
    and `self.dbus` (the module) in its start(), and may override
    after_failure() (put the shell back for the next case) and seen() (what
    is on screen, for a failure's message)."""

    def __init__(self, work):
        self.work = work
        self.results = []
        self.times = {}  # each case's seconds, by name
        self.apps = {}

    def remember_group(self, pid):
        """The runner stops this process group after the cases (unless its
        id was given to another process since)."""
        remember_group(self.work, pid)

    # -- the daemon ------------------------------------------------------------

    def service(self, interface=BUS_NAME):
        """The daemon's object, through whichever process owns the name now
        (dbus-python binds a proxy to the owner it found; cases kill the
        daemon and it is activated again)."""
        return self.dbus.Interface(self.bus.get_object(BUS_NAME, OBJECT_PATH, introspect=False), interface)

    def prop(self, name):
        return self.service('org.freedesktop.DBus.Properties').Get(BUS_NAME, name, timeout=10)

    def feature(self, name):
        """Whether the accessibility feature NAME is on, as Features1 says."""
        return bool(self.service('org.freedesktop.DBus.Properties').Get(CONTRACT['INTERFACES']['features'], name,
                                                                         timeout=10))

    def daemon_pid(self):
        return int(self.bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus', introspect=False)
                   .GetConnectionUnixProcessID(BUS_NAME, dbus_interface='org.freedesktop.DBus', timeout=5))

    def app_id(self, name):
        """The id the daemon gives test app `name`: its own interpreter copy."""
        return os.path.realpath(f'{self.work}/bin/{name}')

    def start_session(self, app, regions=(), restrictions=None, time_limit=0, presentation=None, also_allowed=(),
                      shortcut=None):
        """Start for test app `app`, with the options given (their names
        from the contract): disabled regions, system restrictions, a time
        limit, a presentation, other apps allowed and the accessibility
        shortcut's features."""
        dbus = self.dbus
        names = CONTRACT['START_OPTIONS']
        options = dbus.Dictionary({}, signature='sv')
        if regions:
            options[names['disabledRegions']] = dbus.Array(
                [dbus.Struct(region, signature='iiii') for region in regions], signature='(iiii)')
        if restrictions:
            options[names['systemRestrictions']] = dbus.Dictionary(restrictions, signature='ss')
        if time_limit:
            options[names['timeLimit']] = dbus.UInt64(time_limit)
        if presentation:
            options[names['presentation']] = dbus.String(presentation)
        if also_allowed:
            options[names['alsoAllowed']] = dbus.Array([self.app_id(name) for name in also_allowed], signature='s')
        if shortcut is not None:
            options[names['accessibilityShortcut']] = dbus.Array(shortcut, signature='s')
        self.service().Start(self.app_id(app), options, timeout=30)

    def end_session(self, passcode=PASSCODE):
        self.service().End(self.dbus.Dictionary({'passcode': self.dbus.String(passcode)}, signature='sv'), timeout=30)

    # -- the latency figures' crowd ----------------------------------------------

    def open_crowd(self, windows, shown):
        """Opens `windows` windows of the crowd apps (crowd()) in place of
        those open; waits until `shown(n)`: the shell shows the n other
        windows (app-b's and theirs), none minimized."""
        self.close_crowd()
        for name, count in crowd(windows):
            self.launch_app(name, windows=count)
        wait_for(lambda: shown(windows + 1), 30, 0.1, f'{windows + 1} other windows open')

    def close_crowd(self):
        for name in CROWD:
            if name in self.apps:
                self.stop_app(name)

    def figures_failed(self, error):
        """A latency figure could not be measured: says why, and ends the
        session it may have left."""
        log(f'FIGURE latency: not measured ({error})')
        try:
            if self.prop('Enabled'):
                self.end_session()
        except Exception:
            pass

    def notifications(self):
        return self.dbus.Interface(
            self.bus.get_object('org.freedesktop.Notifications', '/org/freedesktop/Notifications', introspect=False),
            'org.freedesktop.Notifications')

    def notify(self, summary):
        """Sends a notification as an app would (org.freedesktop.Notifications,
        the shell's own server or a suite's stand-in); returns its id."""
        dbus = self.dbus
        return int(self.notifications().Notify(
            'guided-access-test', dbus.UInt32(0), '', summary, 'a test notification',
            dbus.Array([], signature='s'), dbus.Dictionary({}, signature='sv'), dbus.Int32(-1), timeout=10))

    # -- running ---------------------------------------------------------------

    def case(self, name, function):
        """Runs one case (unless CASES=REGEX leaves it out) and prints PASS or
        FAIL with its detail; a failed case's leftovers are cleared. With
        REPEAT=N, a case whose name REPEAT_CASES=REGEX matches (every case
        without it) runs N times in a row, each run a result of its own,
        then `REPEAT name: K of N passed`."""
        if os.environ.get('CASES') and not re.search(os.environ['CASES'], name):
            return
        repeat = int(os.environ.get('REPEAT') or 1)
        if repeat == 1 or not re.search(os.environ.get('REPEAT_CASES', ''), name):
            self.run_case(name, function)
            return
        passed = sum(self.run_case(f'{name} (run {run} of {repeat})', function) for run in range(1, repeat + 1))
        log(f'REPEAT {name[:60]}: {passed} of {repeat} passed')

    def run_case(self, name, function):
        """Runs the case `name` once; True when it passed."""
        started = time.monotonic()
        try:
            detail = function()
            self.results.append((name, True))
            log(f'PASS {name}' + (f': {detail}' if detail else ''))
            return True
        except Exception as error:
            self.results.append((name, False))
            try:
                seen = self.seen() if isinstance(error, (TimeoutError, AssertionError)) else ''
            except Exception:
                seen = ''
            log(f'FAIL {name}: {error}{seen}')
            if os.environ.get('VERBOSE'):
                traceback.print_exc()
            try:
                if self.prop('Enabled'):
                    self.end_session()
                self.after_failure()
            except Exception:
                pass
            return False
        finally:
            self.times[name] = time.monotonic() - started
            # What each case costs, so the suite's time can be kept in check.
            log(f'TIME {time.monotonic() - started:6.1f} s  {name[:60]}')

    def after_failure(self):
        """What the shell needs after a failed case, beyond ending its session."""

    def seen(self):
        """What is on screen, appended to a failure's message."""
        return ''

    def print_assessment_keys(self, proofs):
        """One `ASSESSMENT KEY: STATUS` line per configuration key of
        BeginAssessment (the contract's), saying how this run proved it on
        this shell. `proofs` maps a key to the names (or name beginnings) of
        the cases that prove it, to (those names, what they prove when it is
        less than the whole key), or to a text: what the daemon's tests prove,
        or why it is not possible here. A key is proven only when each of
        its cases ran and passed (scripts/test gathers the lines in a table)."""
        results = dict(self.results)
        for key in CONTRACT['ASSESSMENT_OPTIONS'].values():
            proof = {**DAEMON_ASSESSMENT_PROOFS, **proofs}.get(key, 'NOT PROVEN: no case is named for it')
            if isinstance(proof, str):
                log(f'ASSESSMENT {key}: {proof}')
                continue
            proof, proven = proof if isinstance(proof, tuple) else (proof, 'enforced')
            found = [[name for name in results if name.startswith(start)] for start in proof]
            missing = [start for start, names in zip(proof, found) if not names]
            failed = [name for names in found for name in names if not results[name]]
            if missing or failed:
                status = 'NOT PROVEN: ' + '; '.join([f'"{name}" failed' for name in failed]
                                                    + [f'"{start}…" not run' for start in missing])
            else:
                status = f'{proven} ({len(proof)} case{"s" if len(proof) > 1 else ""} passed: ' + \
                    '; '.join(f'"{start}…"' for start in proof) + ')'
            log(f'ASSESSMENT {key}: {status}')

    def summary(self):
        """The closing line, and the exit status; the cases, for the
        unit's result, into logs/cases.json (runner.read_cases)."""
        failed = [name for name, ok in self.results if not ok]
        with open(os.path.join(self.work, 'logs', 'cases.json'), 'w') as f:
            json.dump([{'name': name, 'passed': ok, 'seconds': round(self.times.get(name, 0), 1)}
                       for name, ok in self.results], f, indent=1)
        log(f'{len(self.results) - len(failed)} passed, {len(failed)} failed')
        return 1 if failed else 0
