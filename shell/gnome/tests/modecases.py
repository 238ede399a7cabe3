# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's cases of the single-app modes (mixed into run's Cases),
each beside its control: other apps allowed (AlsoAllowed: the person
switches among exactly those apps' windows with the shell's own Alt+Tab),
the accessibility shortcut reached with the keyboard alone from the
triple-press end dialog (ToggleAccessibilityFeature, shown as Features1
reports it; for that case the daemon is restarted on the desktop's dconf,
and the shell's magnifier and screen reader key must follow), and managed
Single App Mode after a "reboot" (the shell and the daemon started afresh
with managed.json's SingleAppMode: locked at once, the app launched by the
extension, End refused)."""

import json
import os
import shutil
import signal
import time

from atspi import Accessibility
from harness import BUS_NAME, CONTRACT, PASSCODE, log, stop_group
from shellinfo import END_SHORTCUT, HELPER_UUID, KEY, UUID
from waiting import wait_for

MODE_HELPERS = r"""
(function () {
    const Main = global._gaShell.Main;
    const SwitcherPopup = global._gaShell.SwitcherPopup;
    const ga = global._ga;
    // What the open switcher lists (apps' names, or windows' titles), or null.
    ga.switcherItems = () => {
        const popup = Main.uiGroup.get_children().find(a => a instanceof SwitcherPopup);
        return popup ? popup._items.map(item => item.app?.get_name() ?? item.window?.get_title() ?? '?') : null;
    };
    // The session indicator's switches: [label, on].
    ga.indicatorSwitches = () => {
        const indicator = Main.panel.statusArea['guided-access'];
        if (!indicator)
            return null;
        const items = [];
        const visit = menu => menu._getMenuItems().forEach(item => {
            if (item._getMenuItems)
                visit(item);
            else if (item.setToggleState)
                items.push([item.label.text, item.state]);
        });
        visit(indicator.menu);
        return items;
    };
    return true;
})()
"""


class ModeCases:
    def mode_helpers(self):
        if not getattr(self, '_mode_helpers', False):
            self.js(MODE_HELPERS)
            self._mode_helpers = True

    def ensure_app(self, name):
        if self.window(name) is None:
            self.apps.pop(name, None)
            self.start_app(name)

    def alt_tab(self, release=True):
        """Alt held, Tab: what the switcher lists (None: no switcher);
        Alt released (the selected app comes forward) or Escape."""
        self.js(f'global._ga.keys([{KEY["Alt_L"]}, {KEY["Tab"]}], true); global._ga.keys([{KEY["Tab"]}], false)')
        try:
            items = wait_for(lambda: self.js('global._ga.switcherItems()'), 1.0, 0.05, what='the switcher')
        except TimeoutError:
            items = None
        if items is not None and not release:
            self.js(f'global._ga.tap([], {KEY["Escape"]})')
        self.js(f'global._ga.keys([{KEY["Alt_L"]}], false)')
        wait_for(lambda: self.js('global._ga.switcherItems()') is None, 3, what='the switcher to close')
        return sorted(items) if items is not None else None

    # -- other apps allowed ----------------------------------------------------

    def also_allowed(self):
        """A session locked to app-a with app-d allowed: Alt+Tab lists app-a
        and app-d only and switches between them (released, each comes
        forward in turn); app-b stays minimized and cannot be raised.
        Control: without a session Alt+Tab lists app-b too. With
        app-switching denied, Alt+Tab shows nothing (as without AlsoAllowed)."""
        self.mode_helpers()
        for name in ('app-a', 'app-b', 'app-d'):
            self.ensure_app(name)
        try:
            self.activate('app-a')
            control = self.alt_tab(release=False)
            if control is None or 'app-b' not in control:
                raise AssertionError(f'control: Alt+Tab without a session listed {control}')
            self.activate('app-a')
            self.start_session('app-a', also_allowed=['app-d'])
            try:
                self.wait_locked()
                if self.window('app-d')['minimized']:
                    raise AssertionError('the allowed app-d was minimized')
                listed = self.alt_tab()
                if listed != ['app-a', 'app-d']:
                    raise AssertionError(f'Alt+Tab listed {listed} during the session, expected app-a and app-d')
                wait_for(lambda: self.window('app-d')['focused'], 3, what='Alt+Tab to bring app-d forward')
                self.alt_tab()
                wait_for(lambda: self.window('app-a')['focused'], 3, what='Alt+Tab to bring app-a back')
                self.wait_unreachable('app-b')
                if self.window('app-d')['minimized']:
                    raise AssertionError('app-d was minimized after app-b tried to come forward')
            finally:
                self.end_session()
            self.wait_released()
            self.activate('app-a')
            self.start_session('app-a', also_allowed=['app-d'], restrictions={'app-switching': 'deny'})
            try:
                self.wait_locked()
                denied = self.alt_tab()
            finally:
                self.end_session()
            self.wait_released()
            if denied is not None:
                raise AssertionError(f'Alt+Tab listed {denied} with app-switching denied')
        finally:
            self.stop_app('app-d')
        return f'control: Alt+Tab listed {", ".join(control)}; during: {", ".join(listed)}, switched to app-d and ' \
               'back; app-b kept minimized; with app-switching denied no switcher'

    # -- the accessibility shortcut -----------------------------------------------

    def restart_daemon(self, environment):
        """The daemon stopped (no session runs) and activated again with
        `environment` (NAME=value lines; None: none) sourced over its own
        (run's daemon_environment_file); returns once the new one runs with
        it and the extension has registered with it again."""
        path = self.daemon_environment_file
        if environment is None:
            if os.path.exists(path):
                os.unlink(path)
        else:
            with open(path, 'w') as f:
                f.write(''.join(f'{name}={value}\n' for name, value in environment.items()))
        if self.prop('Enabled'):
            raise AssertionError('a session runs: the daemon would bring it back')
        os.kill(self.daemon_pid(), signal.SIGTERM)
        wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), 10, 0.05, what='the daemon to stop')
        self.prop('Enabled')  # bus activation: the extension only asks one back during a session
        pid = self.daemon_pid()
        with open(f'/proc/{pid}/environ', 'rb') as f:
            seen = dict(entry.decode(errors='replace').partition('=')[::2] for entry in f.read().split(b'\0') if entry)
        for name, value in (environment or {'GSETTINGS_BACKEND': 'memory'}).items():
            if seen.get(name) != value:
                raise AssertionError(f'the restarted daemon runs with {name}={seen.get(name)!r}, not {value!r}')
        wait_for(lambda: 'gnome-shell' in dict(self.prop('Enforcers')), 10, 0.05,
                 what='the extension to register with the restarted daemon')

    def shell_accessibility(self):
        """What the shell itself shows: its magnifier zooming, and the screen
        reader's key as the shell reads it from dconf."""
        return self.js("""(function () {
            const settings = new imports.gi.Gio.Settings({schema_id: 'org.gnome.desktop.a11y.applications'});
            return {magnifier: global._gaShell.Main.magnifier.isActive(),
                    screenReader: settings.get_boolean('screen-reader-enabled')};
        })()""")

    def accessibility_shortcut(self):
        """The case below with the daemon on the desktop's own settings
        (dconf, which the shell reads), then back on its memory for the
        cases after it (the red team's rely on it)."""
        self.restart_daemon({'GSETTINGS_BACKEND': 'dconf'})
        try:
            return self.accessibility_shortcut_on_desktop()
        finally:
            if self.prop('Enabled'):
                self.end_session()
            self.restart_daemon(None)

    def accessibility_shortcut_on_desktop(self):
        """Zoom and the screen reader switched on with the keyboard alone in
        the triple-press end dialog (Tab to each switch, Space) of a session
        whose shortcut is Screen Reader, Zoom and Large Text; each switch
        shows what Features1 reports, and the shell does it: its magnifier
        zooms, the screen reader's key (org.gnome.desktop.a11y.applications
        screen-reader-enabled) reads true in dconf; Invert Colors (not in
        the shortcut) is in neither the dialog nor the indicator's menu; the
        session goes on; after End both are as before, in Features1 and in
        the shell. Where Orca is installed, its autostart entry must start it
        on that key (no gnome-session here runs it). Control: the
        daemon refuses the toggle without a session, and the switches, the
        magnifier and the key show off before."""
        self.mode_helpers()
        names = ('Zoom', 'ScreenReader')
        for name in ('app-a', 'app-b'):
            self.ensure_app(name)
        before = {name: self.feature(name) for name in names}
        shell_before = self.shell_accessibility()
        if any(shell_before.values()):
            raise AssertionError(f'control: the shell shows them on before the session: {shell_before}')
        try:
            self.service().ToggleAccessibilityFeature('Zoom', True, timeout=10)
            raise AssertionError('control: ToggleAccessibilityFeature was allowed without a session')
        except self.dbus.DBusException as error:
            refused = error.get_dbus_name().rsplit('.', 1)[-1]
        if any(before.values()):
            raise AssertionError(f'control: already on before the session: {before}')
        self.activate('app-a')
        self.start_session('app-a', shortcut=['ScreenReader', 'Zoom', 'LargeText'])
        try:
            self.wait_locked()
            menu = wait_for(lambda: self.js('global._ga.indicatorSwitches()'), 3, what='the indicator\'s switches')
            if [label for label, _ in menu] != ['Screen Reader', 'Zoom', 'Large Text']:
                raise AssertionError(f'the indicator menu has switches {menu}')
            self.js('; '.join([END_SHORTCUT] * 3))
            wait_for(lambda: self.stage_has('guided-access-passcode'), 5, what='the end dialog')
            a11y = Accessibility(self.env['DBUS_SESSION_BUS_ADDRESS'])
            shell = a11y.wait_app('gnome-shell', 10)

            def end_dialog():
                return next((dialog for dialog in a11y.find_all(shell, 'dialog', showing=True)
                             if a11y.find_labelled(dialog, 'push button', 'End') is not None), None)
            dialog = a11y.wait(end_dialog, 10, 'the end dialog on the accessibility bus')
            if a11y.find(dialog, 'check box', 'Invert Colors') is not None:
                raise AssertionError('Invert Colors (not in the shortcut) is in the end dialog')

            def tab():
                self.js(f'global._ga.tap([], {KEY["Tab"]})')
            switched = []
            for name, title in (('ScreenReader', 'Screen Reader'), ('Zoom', 'Zoom')):
                switch = a11y.tab_to(dialog, 'check box', title, tab)
                if a11y.checked(switch):
                    raise AssertionError(f'control: "{title}" shows on before Space')
                self.js('global._ga.tap([], 0x20)')  # Space
                wait_for(lambda: self.feature(name), 5, what=f'Features1.{name} on')
                try:
                    a11y.wait(lambda: a11y.checked(switch), 5, f'"{title}" to show on')
                except TimeoutError as error:
                    raise AssertionError(f'{error}; the indicator menu shows '
                                         f'{self.js("global._ga.indicatorSwitches()")}') from None
                shown = {'ScreenReader': 'screenReader', 'Zoom': 'magnifier'}[name]
                try:
                    wait_for(lambda: self.shell_accessibility()[shown], 5, 0.05, what=f'the shell to show {title} on')
                except TimeoutError as error:
                    raise AssertionError(f'{error}; the shell shows {self.shell_accessibility()}') from None
                switched.append(title)
            during = self.shell_accessibility()
            if during != {'magnifier': True, 'screenReader': True}:
                raise AssertionError(f'the shell shows {during} once both are on')
            orca = self.orca_condition()
            if not self.prop('Enabled') or not self.locked_on_screen('app-b'):
                raise AssertionError('switching features ended the lock')
            menu = self.js('global._ga.indicatorSwitches()')
            if dict(menu) != {'Screen Reader': True, 'Zoom': True, 'Large Text': False}:
                raise AssertionError(f'the indicator menu shows {menu}')
            self.js(f'global._ga.tap([], {KEY["Escape"]})')
            wait_for(lambda: not self.stage_has('guided-access-passcode'), 5, what='the end dialog to close')
        finally:
            if self.stage_has('guided-access-passcode'):
                self.js(f'global._ga.tap([], {KEY["Escape"]})')
            if self.prop('Enabled'):
                self.end_session()
        self.wait_released()
        after = wait_for(lambda: (lambda values: values if values == before else None)(
            {name: self.feature(name) for name in names}), 5, what='the features put back after End')
        try:
            shell_after = wait_for(lambda: (lambda shown: shown if shown == shell_before else None)(
                self.shell_accessibility()), 5, 0.05, what='the shell to show them off after End')
        except TimeoutError as error:
            raise AssertionError(f'{error}; the shell shows {self.shell_accessibility()}') from None
        orca_text = orca or 'Orca not installed here, not checked'
        return f'control: refused without a session ({refused}), the shell showing them off; ' \
               f'{" and ".join(switched)} switched on with Tab and Space in the end dialog (Features1 and the ' \
               f'switch on; the shell\'s magnifier active and screen-reader-enabled true in dconf; {orca_text}), ' \
               f'Invert Colors absent, the menu showing them; after End {after}, the shell {shell_after}'

    def orca_condition(self):
        """Where Orca is installed: what starts it on a desktop is
        gnome-session's autostart entry, conditioned on the key the daemon
        wrote (this shell has no gnome-session, so no Orca runs here).
        None where Orca is not installed."""
        if not os.path.exists('/usr/bin/orca'):
            return None
        entry = '/etc/xdg/autostart/orca-autostart.desktop'
        try:
            with open(entry) as f:
                condition = next((line.split('=', 1)[1].split() for line in f
                                  if line.startswith('AutostartCondition=')), None)
        except OSError:
            condition = None
        if condition != ['GSettings', 'org.gnome.desktop.a11y.applications', 'screen-reader-enabled']:
            raise AssertionError(f'Orca is installed but {entry} does not start it on screen-reader-enabled '
                                 f'(AutostartCondition {condition})')
        return f'Orca installed, started on that key by {entry} (no gnome-session here, so not run)'

    # -- managed Single App Mode after a reboot -------------------------------------

    def log_tail(self, name, lines=25):
        """The last lines of logs/`name` that are not mutter's key noise."""
        with open(f'{self.work}/logs/{name}', errors='replace') as f:
            kept = [line.rstrip() for line in f if line.strip() and 'virtual' not in line]
        return '\n'.join(kept[-lines:])

    def single_app_reboot(self):
        """managed.json's SingleAppMode, then the shell and the daemon started
        afresh (their runtime files wiped, as at boot; the daemon's state
        kept): the lock is on at once with the app's window (the extension
        launches it: none is open), Mode single-app, and End with the right
        passcode refused. Prints FIGURE reboot → locked. The key removed,
        the session ends."""
        for name in list(self.apps):
            self.stop_app(name)
        stop_group(self.shell.pid, 5)
        # Nothing activates the daemon again until the "boot" (activation is
        # refused while hold-daemon exists).
        hold = f'{self.work}/hold-daemon'
        open(hold, 'w').close()
        os.kill(self.daemon_pid(), signal.SIGTERM)
        wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), 10, what='the daemon to stop')
        runtime = self.env['XDG_RUNTIME_DIR']
        for entry in os.listdir(runtime):
            if entry.startswith(('wayland-', '.mutter-', 'gnome-shell')):
                path = os.path.join(runtime, entry)
                shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        with open(f'{self.work}/managed.json', 'w') as f:
            json.dump({'SingleAppMode': {'App': self.app_id('app-a'), 'Options': {}}}, f)
        os.unlink(hold)
        started = time.monotonic()
        try:
            try:
                self.start(extensions=[UUID, HELPER_UUID], log_name='shell-reboot.log', settle=False)
            except Exception as error:
                raise AssertionError(f'{error}; the shell\'s log ends:\n{self.log_tail("shell-reboot.log")}') from None
            ready = time.monotonic()
            self._mode_helpers = False

            def locked():
                state = self.window('app-a')
                return state is not None and not state['minimized'] and state['focused'] and \
                    self.prop('Enabled') and 'gnome-shell' in dict(self.prop('Enforcers'))
            try:
                wait_for(locked, 30, 0.05, what='the lock with app-a\'s window after the reboot')
            except TimeoutError as error:
                seen = {'app-a': self.window('app-a'), 'Enabled': bool(self.prop('Enabled')),
                        'Enforcers': {str(k): [str(c) for c in v] for k, v in dict(self.prop('Enforcers')).items()},
                        'extension': self.js('global._ga.extensionState()'),
                        'overview': self.js('global._gaShell.Main.overview.visible'),
                        'focus': self.js('global.display.focus_window?.get_title() ?? null')}
                raise AssertionError(f'{error}; seen: {seen}; the shell\'s log ends:\n'
                                     f'{self.log_tail("shell-reboot.log")}') from None
            seconds = time.monotonic() - started
            log(f'FIGURE reboot → locked (shell and daemon started, app launched and focused): {seconds:.1f} s; '
                f'from the shell ready (its startup complete) {time.monotonic() - ready:.2f} s')
            mode = str(self.prop('Mode'))
            if mode != CONTRACT['SESSION_MODE']['singleApp']:
                raise AssertionError(f'Mode is {mode!r}')
            try:
                self.end_session(PASSCODE)
                raise AssertionError('End with the right passcode ended managed Single App Mode')
            except self.dbus.DBusException as error:
                refused = error.get_dbus_name().rsplit('.', 1)[-1]
            if not self.prop('Enabled'):
                raise AssertionError('the session ended')
            moved = self.managed_app_moved()
        finally:
            with open(f'{self.work}/managed.json', 'w') as f:
                f.write('{}\n')
        wait_for(lambda: not self.prop('Enabled'), 5, what='the session to end when SingleAppMode goes')
        # The screen released too (before the suite stops this shell).
        wait_for(lambda: self.js('!global._gaShell.Main.panel.statusArea["guided-access"]'), 5,
                 what='the session\'s indicator to go')
        return f'locked {seconds:.1f} s after the shell started, app-a launched by the extension; ' \
               f'End with the passcode refused ({refused}); moved to app-b {moved:.0f} ms after managed.json ' \
               'was edited; ended when the key went'

    def managed_app_moved(self):
        """The administrator moves SingleAppMode to app-b, which runs
        (minimized by the lock): app-b is shown and focused and app-a
        minimized. Prints FIGURE and returns the ms from the edit to the
        shell seeing it so (a check it runs every millisecond)."""
        self.launch_app('app-b')
        self.wait_for_window('app-b')
        self.wait_locked()
        self.js('global._ga.watch(() => { const a = global._ga.windowState("app-a"), b = global._ga.windowState("app-b"); '
                'return a.minimized && !b.minimized && b.focused; })')
        written = time.monotonic()
        with open(f'{self.work}/managed.json.new', 'w') as f:
            json.dump({'SingleAppMode': {'App': self.app_id('app-b'), 'Options': {}}}, f)
        os.replace(f'{self.work}/managed.json.new', f'{self.work}/managed.json')
        seen = wait_for(lambda: self.js('global._ga.watched'), 10, 0.01,
                        'app-b shown and focused, app-a minimized, once SingleAppMode moved to app-b')
        moved = (seen / 1e6 - written) * 1000
        log(f'FIGURE managed.json edited → the lock moved to the new app (shown and focused, the old one '
            f'minimized): {moved:.0f} ms')
        return moved
