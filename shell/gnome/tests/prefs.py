# SPDX-License-Identifier: GPL-2.0-or-later
"""The settings window's cases of shell/gnome/tests/run: the extension's
preferences opened on the headless shell's Wayland display, the way a
person opens them (`gnome-extensions prefs`), and worked through at-spi as
assistive technology works them (atspi.py): every control is found by its
accessible name and role, and each check stands beside its control.

run calls prepare_session() once the private session bus is up (before the
shell starts) and runs the cases of SettingsWindowCases(cases).cases().

What prepare_session sets up, as a desktop session would:
  - the accessibility bus: at-spi-bus-launcher is made bus-activatable on
    the private session bus (org.a11y.Bus), org.gnome.desktop.interface
    toolkit-accessibility is true and NO_AT_BRIDGE is dropped from the
    environment, so gnome-shell (and GTK 3 apps) load the at-spi bridge;
    GTK 4 apps always register;
  - the preferences service: org.gnome.Shell.Extensions (gjs, GTK 4) made
    bus-activatable, with WAYLAND_DISPLAY in the bus's activation
    environment (org.freedesktop.DBus.UpdateActivationEnvironment, as
    gnome-session does), so the window opens on the shell's display.
"""

import os
import shutil
import subprocess
import time

import dbus

from atspi import Accessibility
from harness import BUS_NAME, CONTRACT, OBJECT_PATH
from waiting import wait_for

RESTRICTIONS = CONTRACT['INTERFACES']['restrictions']
PREFS_APP = 'org.gnome.Shell.Extensions'  # the preferences service's name on the accessibility bus
WINDOW_TITLE = 'Guided Access'
SERVICES = ('org.a11y.Bus.service', 'org.gnome.Shell.Extensions.service')
NEW_PASSCODE = '97531'
KEY_TAB, KEY_SPACE = 0xff09, 0x20


def set_button(name):
    return name in ('Set Passcode', 'Change Passcode')  # as PasscodeSet is
PURCHASE = 'org.guidedaccess.tests.drawing.purchase'
SHARE = 'org.guidedaccess.tests.drawing.share'

# A small app that registers two custom restrictions and logs each
# RestrictionChanged it hears ("changed IDENTIFIER STATE"); it runs with
# its own copy of the interpreter (bin/drawing-app), so its own app id.
RESTRICTIONS_APP = f"""
import sys
import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

log = open(sys.argv[1], 'a', buffering=1)
bus = dbus.SessionBus(mainloop=DBusGMainLoop())
restrictions = dbus.Interface(bus.get_object('{BUS_NAME}', '{OBJECT_PATH}'), '{RESTRICTIONS}')
bus.add_signal_receiver(lambda identifier, state: log.write(f'changed {{identifier}} {{state}}\\n'),
                        'RestrictionChanged', '{RESTRICTIONS}', '{BUS_NAME}', '{OBJECT_PATH}')
restrictions.Register(dbus.Array([
    ('{PURCHASE}', 'Purchases', 'Buying brushes and paper in the app'),
    ('{SHARE}', 'Sharing', 'Sending drawings to other people'),
], signature='(sss)'))
log.write('ready\\n')
GLib.MainLoop().run()
"""


def prepare_session(cases):
    """The accessibility bus and the preferences service on the private
    session bus (see the module's docstring); `cases.bus` is up, the shell
    not started yet."""
    cases.env.pop('NO_AT_BRIDGE', None)
    for name in SERVICES:
        shutil.copy(os.path.join('/usr/share/dbus-1/services', name), os.path.join(cases.work, 'services'))
    bus = dbus.Interface(cases.bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus', introspect=False),
                         'org.freedesktop.DBus')
    bus.ReloadConfig(timeout=10)  # the copied service files
    bus.UpdateActivationEnvironment(dbus.Dictionary(
        {'WAYLAND_DISPLAY': 'wayland-0', 'GDK_BACKEND': 'wayland'}, signature='ss'), timeout=10)
    subprocess.run(['gsettings', 'set', 'org.gnome.desktop.interface', 'toolkit-accessibility', 'true'],
                   env=cases.env, check=True, timeout=20)


class SettingsWindowCases:
    """`cases` is run's Cases (its bus, env, js(), screenshot(), ...), and
    `passcode` the one its other cases end sessions with (put back after)."""

    def __init__(self, cases, passcode):
        self.cases = cases
        self.harness_passcode = passcode
        self.a11y = None
        self.window = None

    def cases_to_run(self):
        return [
            ('settings window opens; its controls and gnome-shell\'s own are found by name and role '
             'through at-spi', self.controls_found),
            ('settings window sets the passcode through the daemon: End takes the new one, not the old '
             '(control: different entries set nothing)', self.passcode),
            ('settings window switches off an app\'s restriction: the app hears deny, GetState and List say '
             'deny; Reset and outside changes shown (control: the other one stays allowed)', self.restriction),
            ('time-limit warning plays the sound and speaks the time left as switched in the window '
             '(control: both off, neither)', self.time_alerts),
            ('settings window: every control of both pages and the search has a name a screen reader '
             'says (at-spi walk; control: the walk finds the controls found by name)', self.walk),
            ('settings window without the daemon: a message and Try Again, not a crash (control: '
             'Try Again once it can start)', self.unreachable),
        ]

    # -- the window ----------------------------------------------------------

    def connect(self):
        if self.a11y is None:
            self.a11y = Accessibility(self.cases.env['DBUS_SESSION_BUS_ADDRESS'])
        return self.a11y

    def open(self):
        """The settings window's frame, opened if it is not open."""
        a11y = self.connect()
        app = a11y.apps().get(PREFS_APP)
        frame = a11y.find(app, 'frame', WINDOW_TITLE) if app is not None else None
        if frame is None:
            subprocess.run(['gnome-extensions', 'prefs', self.cases.uuid], env=self.cases.env, check=True,
                           capture_output=True, timeout=20)
            app = a11y.wait_app(PREFS_APP, 20)
            frame = a11y.wait_find(app, 'frame', WINDOW_TITLE, 20)
        # The pages are built once lib/settingsWindow.js has loaded and the
        # daemon answered (the passcode group turns sensitive).
        a11y.wait(lambda: a11y.usable(self.find('text', 'New passcode')), 15,
                  'the settings window to be filled and to reach the daemon')
        self.window = frame
        return frame

    def find(self, role, name, timeout=5):
        a11y = self.connect()
        if self.window is None:
            app = a11y.wait_app(PREFS_APP, timeout)
            self.window = a11y.wait_find(app, 'frame', WINDOW_TITLE, timeout)
        try:
            return a11y.wait_find(self.window, role, name, timeout)
        except TimeoutError as error:
            # What is there instead, for whoever reads the failure.
            raise TimeoutError(f'{error}; the window holds:\n{a11y.describe(self.window, limit=80)}') from None

    def close(self):
        """Closes the window (its Close button) and waits for it to go."""
        a11y = self.connect()

        def frame():
            app = a11y.apps().get(PREFS_APP)
            return a11y.find(app, 'frame', WINDOW_TITLE) if app is not None else None
        if frame() is not None:
            a11y.press(a11y.find(frame(), 'push button', 'Close'))
            a11y.wait(lambda: frame() is None, 10, 'the settings window to close')
        self.window = None

    def show_page(self, title):
        self.a11y.press(self.find('page tab', title))

    def message(self, text, timeout=10):
        """The row that says what happened (its title, matched by `text`)."""
        return self.a11y.wait_find(self.window, 'list item', text, timeout).get_name()

    def prefs_app_id(self):
        """The preferences process's app id (the daemon's GetAppIds): a
        session locked to it keeps the window reachable."""
        pid = self.a11y.apps()[PREFS_APP].get_process_id()
        return str(self.cases.service().GetAppIds(dbus.UInt32(pid), timeout=10)[0])

    def start_session(self, app, time_limit=0):
        options = dbus.Dictionary({}, signature='sv')
        if time_limit:
            options['time-limit'] = dbus.UInt64(time_limit)
        self.cases.service().Start(app, options, timeout=30)

    def end(self, passcode):
        """True when End took `passcode`."""
        try:
            self.cases.end_session(passcode)
            return True
        except dbus.DBusException as error:
            if error.get_dbus_name() != 'org.guidedaccess.Error.PermissionDenied':
                raise
            return False

    def shot(self, name):
        if os.environ.get('SCREENSHOTS'):
            time.sleep(0.5)  # the last change painted
            self.cases.screenshot(name)

    def type_keys(self, text):
        """Types with the shell's virtual keyboard (no Return)."""
        for character in text:
            self.cases.js(f'global._ga.tap([], {ord(character)})')

    def press_key(self, keyval):
        self.cases.js(f'global._ga.tap([], {keyval})')

    def ensure_extension(self):
        """The extension enabled (its first case enables it; CASES may skip that)."""
        if (self.cases.js('global._ga.extensionState()') or {}).get('state') != 1:
            self.cases.js('global._ga.extension(true)')
            self.cases.wait_enabled()
            wait_for(lambda: 'gnome-shell' in dict(self.cases.prop('Enforcers')), 10, what='RegisterEnforcer')

    # -- cases ---------------------------------------------------------------

    def controls_found(self):
        a11y = self.connect()
        self.cases.close_overview()
        shell = a11y.wait_app('gnome-shell', 10)
        system = a11y.wait_find(shell, 'menu', 'System', 10)
        activities = a11y.find_labelled(shell, 'toggle button', 'Activities')
        if activities is None:
            raise AssertionError("gnome-shell's Activities button is not on the accessibility bus")
        self.open()
        found = []
        for role, name in [('text', 'New passcode'), ('text', 'New passcode again'), ('push button', set_button),
                           ('check box', 'Play a sound'), ('check box', 'Speak the time left'),
                           ('combo box', 'Display auto-lock'), ('text', 'End and start shortcut, pressed three times'),
                           ('check box', 'Outline disabled regions'),
                           ('check box', 'Keep the calendar and system menu'), ('page tab', 'Apps')]:
            self.find(role, name)
            found.append(name)
        nameless = [f'{accessible.get_role_name()}' for accessible in
                    a11y.find_all(self.window, 'check box') + a11y.find_all(self.window, 'combo box')
                    if not accessible.get_name()]
        if nameless:
            raise AssertionError(f'controls without an accessible name: {nameless}')
        self.shot('settings-window')
        return (f'{len(found)} controls of the window; gnome-shell\'s {system.get_role_name()} '
                f'"{system.get_name()}" and the Activities {activities.get_role_name()}')

    def passcode(self):
        a11y = self.connect()
        self.open()
        app = self.prefs_app_id()
        keyboard = self.type_keys
        self.ensure_extension()
        try:
            # Control: two different entries: nothing is set, End still refuses the new one.
            a11y.type_text(self.find('text', 'New passcode'), NEW_PASSCODE, keyboard)
            a11y.type_text(self.find('text', 'New passcode again'), NEW_PASSCODE + '0', keyboard)
            a11y.press(self.find('push button', set_button))
            differ = self.message(lambda text: text.startswith('The two passcodes differ'))
            self.start_session(app)
            if self.end(NEW_PASSCODE):
                raise AssertionError('control: End took the new passcode before the window set it')

            a11y.type_text(self.find('text', 'New passcode'), NEW_PASSCODE, keyboard)
            a11y.type_text(self.find('text', 'New passcode again'), NEW_PASSCODE, keyboard)
            before = bool(self.cases.prop('PasscodeSet'))
            a11y.press(self.find('push button', set_button))
            done = self.message(lambda text: text == 'The passcode is set.' or text.startswith('The passcode was not'))
            if done != 'The passcode is set.':
                raise AssertionError(f'the window says: {done}')
            if not self.cases.prop('PasscodeSet'):
                raise AssertionError('PasscodeSet is false after the window set a passcode')
            status = self.find('list item', 'Passcode')  # its subtitle follows PasscodeSet
            a11y.wait(lambda: a11y.find(status, 'label', 'Set'), 5, 'the window to say a passcode is set')
            # gnome-shell's own indicator of the session, as at-spi sees it.
            indicator = a11y.wait_find(a11y.wait_app('gnome-shell', 5), 'menu',
                                       lambda name: name.startswith('Guided Access'), 10)
            indicator = f'{indicator.get_role_name()} "{indicator.get_name()}"'  # gone after End
            if self.end(self.harness_passcode):
                raise AssertionError('End still took the old passcode')
            if not self.end(NEW_PASSCODE):
                raise AssertionError('End did not take the passcode set in the window')
            return (f'"{differ}"; then set (PasscodeSet {str(before).lower()} → true), End took it and not the old one; '
                    f'the shell\'s indicator found as {indicator}')
        finally:
            if self.cases.prop('Enabled'):
                self.end(NEW_PASSCODE) or self.end(self.harness_passcode)
            self.cases.service().SetPasscode(self.harness_passcode, timeout=30)

    def launch_restrictions_app(self):
        work = self.cases.work
        with open(f'{work}/bin/drawing-app.py', 'w') as f:
            f.write(RESTRICTIONS_APP)
        shutil.copy(os.path.realpath('/usr/bin/python3'), f'{work}/bin/drawing-app')
        log = f'{work}/logs/drawing-app.log'
        process = subprocess.Popen([f'{work}/bin/drawing-app', f'{work}/bin/drawing-app.py', log], env=self.cases.env,
                                   stdout=open(f'{work}/logs/drawing-app.out', 'w'), stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.cases.remember_group(process.pid)
        wait_for(lambda: os.path.exists(log) and 'ready' in open(log).read(), 15, what='drawing-app to register')
        return process, log

    def restrictions(self):
        return dbus.Interface(self.cases.bus.get_object(BUS_NAME, OBJECT_PATH, introspect=False), RESTRICTIONS)

    def listed(self, identifier):
        return next((str(row[3]) for row in self.restrictions().List(timeout=10) if row[0] == identifier), None)

    def restriction(self):
        a11y = self.connect()
        self.open()
        process, log = self.launch_restrictions_app()
        state = self.restrictions().GetState
        try:
            self.show_page('Apps')
            # Registered while the window was open: it follows the daemon's signals.
            purchase = self.find('check box', 'Purchases', 10)
            share = self.find('check box', 'Sharing')
            if not (a11y.checked(purchase) and a11y.checked(share)) or state(PURCHASE) != 'allow':
                raise AssertionError('control: the restrictions are not allowed (switched on) to begin with')

            a11y.press(purchase)  # as a screen reader's "activate" does
            wait_for(lambda: state(PURCHASE) == 'deny', 10, what='GetState deny')
            a11y.wait(lambda: not a11y.checked(purchase), 5, 'the switch to show deny')
            wait_for(lambda: f'changed {PURCHASE} deny' in open(log).read(), 5, what='the app to hear deny')
            if self.listed(PURCHASE) != 'deny' or state(SHARE) != 'allow' or not a11y.checked(share):
                raise AssertionError(f'List says {self.listed(PURCHASE)}, Sharing {state(SHARE)}')
            self.shot('settings-window-apps')

            # An outside change (the CLI, another window) shows in the window.
            self.restrictions().SetState(SHARE, 'deny', timeout=30)
            a11y.wait(lambda: not a11y.checked(share), 5, 'the window to show an outside deny')
            # The keyboard alone: Tab to the switch, Space.
            self.cases.activate(WINDOW_TITLE)
            # The test apps' own restrictions (one each) come before it.
            a11y.tab_to(self.window, 'check box', 'Sharing', lambda: self.press_key(KEY_TAB), limit=150)
            self.press_key(KEY_SPACE)
            wait_for(lambda: state(SHARE) == 'allow', 10, what='Space to allow Sharing')
            a11y.wait(lambda: a11y.checked(share), 5, 'the switch to show allow')

            a11y.press(self.find('push button', 'Reset the restrictions of drawing-app'))
            wait_for(lambda: state(PURCHASE) == 'allow', 10, what='Reset')
            a11y.wait(lambda: a11y.checked(purchase), 5, 'the switch to show Reset')
            return ('switched off through at-spi → GetState and List deny, the app heard deny, Sharing stayed '
                    'allowed; an outside deny shown; Tab and Space allowed it again; Reset allowed Purchases')
        finally:
            self.restrictions().Reset(dbus.Array([PURCHASE, SHARE], signature='s'), timeout=30)
            process.terminate()
            process.wait(5)
            self.show_page('General')

    def walk(self):
        """Walks the window's at-spi tree as a screen reader reads it: the
        General page, the Apps page (with an app's restrictions listed, so
        that its expander, switches and Reset are there) and the search, and
        fails on a control without a name (none, or a type name such as
        "GtkImage"). Prints `A11Y settings window: N controls, unnamed: M`."""
        a11y = self.connect()
        self.open()
        process, _log = self.launch_restrictions_app()
        controls, unnamed = {}, {}

        def take(page):
            found, nameless = a11y.audit(self.window)
            if os.environ.get('A11Y_DUMP'):  # the whole tree, for writing a fix
                print(a11y.describe(self.window, limit=2000), flush=True)
            controls.update(found)
            unnamed.update((line, page) for line in nameless)
        try:
            take('General')
            self.show_page('Apps')
            self.find('check box', 'Purchases', 10)
            take('Apps')
            # The search: its entry is in the tree while hidden on GNOME 43;
            # where it is not, its button in the header bar opens it.
            search = next((button for button in a11y.find_all(self.window, 'toggle button')
                           if 'search' in ' '.join([button.get_name() or '', button.get_description() or '']).lower()),
                          None)
            if search is not None:
                a11y.press(search)
                time.sleep(0.5)
                take('search')
                a11y.press(search)
        finally:
            process.terminate()
            process.wait(5)
            self.show_page('General')
        line = a11y.a11y_line('settings window', controls, list(unnamed))
        print(line, flush=True)
        # The control: the walk counts what the other cases find by name.
        named = {name for _role, name in controls.values()}
        missed = [name for name in ('New passcode', 'Show the passcode', 'Play a sound', 'Display auto-lock',
                                    'Purchases', 'Apps')
                  if name not in named]
        if missed:
            raise AssertionError(f'the walk missed {missed}:\n{line}')
        if unnamed:
            raise AssertionError(f'controls a screen reader cannot name:\n{line}')
        return line[len('A11Y '):]

    def time_alerts(self):
        a11y = self.connect()
        self.open()
        cases = self.cases
        self.ensure_extension()
        spoken = f'{cases.work}/logs/spoken'
        speaker = f'{cases.work}/bin/speech'
        os.makedirs(speaker, exist_ok=True)
        with open(f'{speaker}/spd-say', 'w') as f:
            f.write(f'#!/bin/sh\n[ "$1" = -- ] && shift\nprintf "%s\\n" "$*" >> {spoken}\n')
        os.chmod(f'{speaker}/spd-say', 0o755)
        # What the shell plays and runs: its sound player recorded, the
        # stand-in spd-say first on its PATH.
        cases.js(f"""(function () {{
            const player = global.display.get_sound_player();
            global._gaPlayed = [];
            player.play_from_theme = name => global._gaPlayed.push(name);
            global._gaPath = imports.gi.GLib.getenv('PATH');
            imports.gi.GLib.setenv('PATH', '{speaker}:' + global._gaPath, true);
        }})()""")
        app = self.prefs_app_id()
        sound, speech = self.find('check box', 'Play a sound'), self.find('check box', 'Speak the time left')

        def switch(toggle, on):
            if a11y.checked(toggle) != on:
                a11y.press(toggle)
                a11y.wait(lambda: a11y.checked(toggle) == on, 5, 'the switch')

        def warning():
            """A session whose 10 s warning is due at once; what was played and said."""
            before = len(open(spoken).read().splitlines()) if os.path.exists(spoken) else 0
            self.start_session(app, time_limit=11)
            try:
                wait_for(lambda: cases.js('global._gaShell.Main.osdWindowManager._osdWindows'
                                          '.some(w => w.visible)'), 10, what='the warning OSD')
                time.sleep(0.5)  # spd-say is run at the same time
                said = open(spoken).read().splitlines()[before:] if os.path.exists(spoken) else []
                return cases.js('global._gaPlayed.splice(0)'), said
            finally:
                self.end(self.harness_passcode)

        try:
            switch(sound, False)
            switch(speech, False)
            quiet = warning()
            if quiet != ([], []):
                raise AssertionError(f'control: with both off, played and said {quiet}')
            wait_for(lambda: not cases.js('global._gaShell.Main.osdWindowManager._osdWindows.some(w => w.visible)'),
                     10, what='the OSD to go')
            switch(sound, True)
            switch(speech, True)
            played, said = warning()
            if played != ['alarm-clock-elapsed'] or len(said) != 1 or 'seconds' not in said[0]:
                raise AssertionError(f'played {played}, said {said}')
            return f'played {played[0]}, spd-say said "{said[0]}"'
        finally:
            cases.js("""(function () {
                delete global.display.get_sound_player().play_from_theme;
                imports.gi.GLib.setenv('PATH', global._gaPath, true);
            })()""")
            switch(speech, False)
            switch(sound, True)

    def unreachable(self):
        a11y = self.connect()
        cases = self.cases
        self.close()
        hold = f'{cases.work}/hold-daemon'  # the daemon's activation fails while it exists
        open(hold, 'w').close()
        try:
            os.kill(cases.daemon_pid(), 15)
            wait_for(lambda: not cases.bus.name_has_owner(BUS_NAME), 5, what='the daemon to go')
            subprocess.run(['gnome-extensions', 'prefs', cases.uuid], env=cases.env, check=True,
                           capture_output=True, timeout=20)
            retry = self.find('push button', 'Try Again', 20)
            row = self.find('list item', 'The Guided Access service cannot be reached')
            why = a11y.find(row, 'label', lambda text: text.startswith('guided-accessd'))
            said = f'{row.get_name()}: {why.get_name() if why is not None else "?"}'
            if a11y.usable(self.find('text', 'New passcode')):
                raise AssertionError('the passcode can be typed with no daemon; the window holds:\n'
                                     + a11y.describe(self.window, limit=60))
            if not a11y.usable(self.find('check box', 'Play a sound')):
                raise AssertionError("the extension's own settings are greyed out with the daemon")
            self.shot('settings-window-unreachable')
        finally:
            os.unlink(hold)
        a11y.press(retry)
        a11y.wait(lambda: a11y.usable(self.find('text', 'New passcode')), 15,
                  'Try Again to reach the daemon')
        if a11y.find(self.window, 'push button', 'Try Again') is not None:
            raise AssertionError('the message stayed after Try Again reached the daemon')
        if (self.cases.js('global._ga.extensionState()') or {}).get('state') == 1:
            wait_for(lambda: 'gnome-shell' in dict(cases.prop('Enforcers')), 10,
                     what='the extension to register again')
        self.close()
        return f'"{said}"; Try Again started it'
