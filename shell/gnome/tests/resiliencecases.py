# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's cases of an enforcer that holds (mixed into run's
Cases): the extension's entry points and registration, a killed daemon,
disable and enable, the app relaunched, the administrator's lock, and a
shell log without the extension's errors."""

import os
import re
import shutil
import signal
import time

from harness import BUS_NAME, PASSCODE, log, percentiles
from shellinfo import SHELL_MAJOR, UUID
from waiting import wait_for


class ResilienceCases:
    def esm_entry(self):
        """Imports extension.esm.js inside this shell with GNOME 45's shell
        modules replaced by stubs: it parses, links to lib/ and exports a
        class with enable() and disable()."""
        check = f'{self.work}/esm-check'
        shutil.copytree(f'{self.work}/source/{UUID}', check)
        os.makedirs(f'{check}/stubs')
        stubs = {
            'extensions/extension.js': 'export class Extension { getSettings() { return null; } }\n'
                                       'export const gettext = text => text;\n'
                                       'export const ngettext = (one, many, n) => (n === 1 ? one : many);',
            'ui/main.js': 'export const panel = null;',
            'ui/modalDialog.js': 'export class ModalDialog {}',
            'ui/panelMenu.js': 'export class Button {}',
            'ui/popupMenu.js': 'export class PopupMenuItem {}',
        }
        with open(f'{check}/extension.esm.js') as f:
            text = f.read()
        for path, body in stubs.items():
            stub = f'{check}/stubs/{path.replace("/", "-")}'
            with open(stub, 'w') as f:
                f.write(body + '\n')
            text = text.replace(f'resource:///org/gnome/shell/{path}', f'./stubs/{path.replace("/", "-")}')
        if 'resource:///' in text:
            raise AssertionError('extension.esm.js imports a shell module the check has no stub for')
        with open(f'{check}/extension.esm.js', 'w') as f:
            f.write(text)
        self.js(f"""(function () {{ global._esm = null;
            import('file://{check}/extension.esm.js').then(
                m => (global._esm = {{ok: typeof m.default === 'function' &&
                    typeof m.default.prototype.enable === 'function' &&
                    typeof m.default.prototype.disable === 'function'}}),
                e => (global._esm = {{ok: false, error: String(e)}})); }})()""")
        answer = wait_for(lambda: self.js('global._esm'), 10, what='the ES module import')
        if not answer['ok']:
            raise AssertionError(answer.get('error', 'no default class with enable()/disable()'))
        return 'parses, links lib/ and exports the extension class'

    def enable_extension(self):
        self.rss_without = self.shell_rss()
        self.js('global._ga.extension(true)')
        self.wait_enabled()
        enforcers = wait_for(lambda: dict(self.prop('Enforcers')), 10, what='RegisterEnforcer')
        if 'gnome-shell' not in enforcers or 'app-lock' not in enforcers['gnome-shell']:
            raise AssertionError(f'Enforcers is {enforcers}')
        time.sleep(2)
        self.rss_with = self.shell_rss()
        self.service().SetPasscode(PASSCODE, timeout=30)
        return f'Enforcers gnome-shell → {", ".join(enforcers["gnome-shell"])}'

    def daemon_killed(self):
        region = (0, 400, 200, 200)
        self.activate('app-a')
        self.start_session('app-a', regions=[region])
        wait_for(lambda: self.locked_on_screen('app-b', regions=1), 5, what='the lock')
        hold = f'{self.work}/hold-daemon'
        open(hold, 'w').close()
        os.kill(self.daemon_pid(), signal.SIGKILL)
        try:
            wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), 5, what='the name to lose its owner')
            time.sleep(1.5)  # the extension tries to reactivate the daemon meanwhile
            if self.bus.name_has_owner(BUS_NAME):
                raise AssertionError('the daemon came back although activation was held')
            if not self.locked_on_screen('app-b', regions=1):
                raise AssertionError('the lock went away with the daemon')
            self.js('global._ga.activate("app-b")')
            wait_for(lambda: self.window('app-a')['focused'] and self.window('app-b')['minimized'], 5,
                     what='the focus to bounce back while the daemon is gone')
        finally:
            os.unlink(hold)
        # The extension's retries activate the daemon again; it loads the
        # session from its state directory and the extension applies it.
        wait_for(lambda: self.bus.name_has_owner(BUS_NAME), 15, 0.1, what='the reactivated daemon')
        enforcers = wait_for(lambda: dict(self.prop('Enforcers')), 10, what='RegisterEnforcer again')
        if not self.prop('Enabled'):
            raise AssertionError('the reactivated daemon has no session')
        if not self.locked_on_screen('app-b', regions=1):
            raise AssertionError('the lock is not in place after reactivation')
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release after End')
        return f'lock held with no owner; re-registered as {", ".join(map(str, enforcers))}'

    def disable_enable(self):
        self.activate('app-a')
        self.start_session('app-a', regions=[(0, 400, 200, 200)])
        wait_for(lambda: self.locked_on_screen('app-b', regions=1), 5, what='the lock')
        self.js('global._ga.extension(false)')
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='disable() to release the lock')
        self.js('global._ga.extension(true)')
        wait_for(lambda: self.locked_on_screen('app-b', regions=1), 10, what='enable() to re-apply the lock')
        self.end_session()
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release after End')
        return 'released on disable, re-applied from the bus on enable'

    def relaunch(self):
        times = self.redteam.relaunch()
        log(f'FIGURE locked app closed → back and focused (10 closes): {percentiles(times[:10])}')
        return f'{len(times)} closes, each back within 15 s; the 4th in a minute raised the shield'

    def admin_lock(self):
        return self.redteam.admin_lock()

    def shell_log_clean(self):
        """Every JS ERROR, Gjs-WARNING or Gjs-CRITICAL in the shell's log whose
        message or stack names the extension is a failure."""
        entries = []  # each GLib log message with the lines that follow it (a stack)
        # The shell's log, and the restarted shell's (single_app_reboot).
        logs = [f'{self.work}/logs/{name}' for name in ('shell.log', 'shell-reboot.log')]
        for path in [path for path in logs if os.path.exists(path)]:
            with open(path, errors='replace') as f:
                entries.append('')
                for line in f:
                    if re.match(r'(\(\S+:\d+\): )?[\w -]+-(Message|WARNING|CRITICAL|ERROR|INFO|DEBUG)', line):
                        entries.append('')
                    entries[-1] += line
        flagged = [entry.strip() for entry in entries
                   if re.search(r'JS ERROR|Gjs-WARNING|Gjs-CRITICAL', entry) and UUID in entry]
        if flagged:
            raise AssertionError(f'{len(flagged)} naming {UUID}, the first: {flagged[0][:1500]}; then: '
                                 + '; '.join(entry.splitlines()[0] for entry in flagged[1:3]))
        return f'0 naming {UUID} (GNOME Shell {SHELL_MAJOR})'
