# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's figures (mixed into run's Cases; FIGURE lines, no
case): how fast a session reaches the screen beside a plain KWin script's,
and what an idle enforcer costs in calls and CPU.
"""

import json
import os
import random
import re
import subprocess
import threading
import time

from harness import BUS_NAME, OTHER_WINDOWS, WINDOW_COUNTS, beside_reference, log
from waiting import wait_for

SESSIONS_MEASURED = 20


class Figures:
    def figures(self):
        """How fast a session reaches the screen and what an idle enforcer
        costs, each beside a reference from the same run: a plain KWin
        script loaded over D-Bus that minimizes or restores the same windows
        itself (what any script can do at best when told over the bus)."""
        if os.environ.get('CASES') and not re.search(os.environ['CASES'], 'figures'):
            return
        try:
            self.bring_up_apps()
            for count in WINDOW_COUNTS:
                self.open_crowd(count - 1, lambda n: len(self.other_windows(self.report())) == n)
                self.activate('app-a')
                reference = self.latencies(count, self.minimize_by_script)
                ours = self.latencies(count, lambda start: self.start_session('app-a') if start else self.end_session())
                rows = [('Start returned → other windows minimized', ours[True], reference[True]),
                        ('End returned → other windows restored', ours[False], reference[False])]
                log(f'FIGURE KWin {self.kwin_version}, {count} other windows, {SESSIONS_MEASURED} sessions, seen by '
                    'the probe; reference: a script loaded over D-Bus minimizes or restores the same windows')
                for name, values, floor in rows:
                    log(f'FIGURE   {name}: {beside_reference(values, floor)}')
            self.close_crowd()
            self.idle_cost()
        except Exception as error:
            self.figures_failed(error)
            self.close_crowd()

    def close_crowd(self):
        super().close_crowd()
        wait_for(lambda: len(self.other_windows(self.report())) == 1, 10, 0.1, 'the crowd\'s windows to go')

    @staticmethod
    def other_windows(report):
        """The windows of app-b and the crowd apps in a probe's report."""
        return [w for w in report['windows'] if re.match(OTHER_WINDOWS, w['caption'])]

    def latencies(self, count, act):
        """ms from act(True) and act(False) returning (or from the time
        act returns, when it does) to the probe seeing the `count` other
        windows minimized and restored, SESSIONS_MEASURED times each."""
        measured = {True: [], False: []}
        for _ in range(SESSIONS_MEASURED):
            for start in (True, False):
                sent = time.monotonic()
                returned = act(start) or time.monotonic()

                def seen():
                    return next((arrived for arrived, report in self.reports_since(sent)
                                 if len(others := self.other_windows(report)) == count
                                 and all(w['minimized'] == start for w in others)), None)
                done = wait_for(seen, 5, 0.01, f'the {count} other windows ' + ('minimized' if start else 'restored'))
                measured[start].append((done - returned) * 1000)
                # A pause of random length, so that no cycle falls into step.
                time.sleep(random.uniform(0.2, 0.45))
        return measured

    def minimize_by_script(self, minimized):
        """The reference: a plain script, loaded over D-Bus, sets the other
        windows minimized when Scripting.start runs it (the reply comes
        after), measured from that call; it is unloaded afterwards.
        Returns when the call was made."""
        name = self.load_script(
            'const kwin6 = typeof workspace.windowList === "function";\n'
            'for (const w of kwin6 ? workspace.windowList() : workspace.clientList())\n'
            f'    if (/{OTHER_WINDOWS}/.test(w.caption)) w.minimized = {json.dumps(minimized)};\n')
        called = time.monotonic()
        self.scripting('start')
        threading.Timer(0.1, self.unload_script, (name,)).start()
        return called

    def idle_cost(self, seconds=5.0):
        """What the enforcer costs while nothing happens, with no session and
        in one: the calls KWin makes to the daemon (a bus monitor counts
        them, scaled to a minute) and the CPU time the daemon and KWin use
        against the wall time (the probe, which also runs in KWin, is
        counted in KWin's)."""
        def cpu_seconds(pid):
            with open(f'/proc/{pid}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
        for session in (False, True):
            if session:
                self.start_session('app-a')
                self.wait_locked()
            time.sleep(1)  # what the change itself set off is over
            pids = {'guided-accessd': self.daemon_pid(), 'kwin_wayland': self.kwin_pid()}
            before = {name: cpu_seconds(pid) for name, pid in pids.items()}
            calls = self.calls_to_daemon(seconds)
            used = {name: (cpu_seconds(pid) - before[name]) * 100 / seconds for name, pid in pids.items()}
            log(f'FIGURE idle, {"in a session" if session else "no session"}, {seconds:.0f} s: KWin made {calls} '
                f'calls to the daemon ({calls * 60 / seconds:.0f} per minute); CPU guided-accessd '
                f'{used["guided-accessd"]:.2f} %, kwin_wayland {used["kwin_wayland"]:.2f} %')
            if session:
                self.end_session()
                self.wait_released()

    def calls_to_daemon(self, seconds):
        """Method calls from KWin's connection to the daemon's name during
        `seconds`, as a monitor on the bus sees them."""
        kwin = str(self.bus.get_name_owner('org.kde.KWin'))
        monitor = subprocess.Popen(
            ['dbus-monitor', '--address', self.env['DBUS_SESSION_BUS_ADDRESS'], '--profile',
             f"type='method_call',sender='{kwin}',destination='{BUS_NAME}'"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=self.env)
        time.sleep(seconds)
        monitor.terminate()
        output, _ = monitor.communicate(timeout=5)
        return sum(1 for line in output.splitlines() if line.startswith('mc'))
