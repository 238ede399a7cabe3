# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's shell adapter (mixed into run's Cases): Cinnamon on
an Xvfb display of its own, as nobody, driven through org.Cinnamon.Eval
(with helpers defined in it once: HELPERS) and stopped; input through the
X server's XTEST extension (xdotool), as the person's own keyboard and
mouse reach it; the GTK test apps as X11 clients."""

import json
import os
import subprocess
import time

from harness import PASSCODE, stop_group
from suite import UUID
from waiting import wait_for

# Xorg with the dummy driver: outputs without a screen (DUMMY0, DUMMY1...),
# which xrandr switches on and places; no input device but XTEST's.
XORG_CONF = """Section "ServerFlags"
    Option "AutoAddDevices" "false"
    Option "AutoEnableDevices" "false"
    Option "DontVTSwitch" "true"
EndSection
Section "Device"
    Identifier "dummy"
    Driver "dummy"
    VideoRam 256000
EndSection
Section "Monitor"
    Identifier "monitor"
    HorizSync 5.0-1000.0
    VertRefresh 5.0-200.0
    Modeline "1280x800" 83.50 1280 1352 1480 1680 800 803 809 831
EndSection
Section "Screen"
    Identifier "screen"
    Device "dummy"
    Monitor "monitor"
    DefaultDepth 24
    SubSection "Display"
        Depth 24
        Virtual 2560 800
    EndSubSection
EndSection
"""

HELPERS = r"""
(function () {
    const Main = imports.ui.main;
    const ga = {
        win(title) {
            return global.get_window_actors().map(a => a.meta_window).find(w => w.get_title() === title) ?? null;
        },
        windowState(title) {
            const w = ga.win(title);
            if (w === null)
                return null;
            const r = w.get_frame_rect();
            return {minimized: w.minimized, focused: global.display.focus_window === w, pid: w.get_pid(),
                    x: r.x, y: r.y, width: r.width, height: r.height};
        },
        activate(title) {
            Main.activateWindow(ga.win(title), global.get_current_time());
        },
        // The end dialog while it is on screen: its texts, and whether the
        // passcode field has the keyboard.
        endDialog() {
            const dialog = Main.uiGroup.get_children().find(a => a.accessible_name === 'End Guided Access' && a.visible);
            if (!dialog)
                return null;
            const texts = [];
            // What a person reads: each label's and button's text once.
            const walk = actor => {
                if (!actor.visible)
                    return;
                if (actor instanceof imports.gi.St.Label && actor.text)
                    texts.push(actor.text);
                else if (actor instanceof imports.gi.St.Button && actor.label)
                    texts.push(actor.label);
                else
                    actor.get_children().forEach(walk);
            };
            walk(dialog);
            const focus = global.stage.key_focus;
            const entry = ga.find(dialog, 'guided-access-passcode');
            const message = ga.find(dialog, 'guided-access-message');
            // The controls a person works, with the name a screen reader
            // says; the check boxes among them with their state and focus.
            const {Atk} = imports.gi;
            const controls = [], switches = [];
            const collect = actor => {
                if (actor instanceof imports.gi.St.Button || actor instanceof imports.gi.St.Entry)
                    controls.push(actor.accessible_name || actor.label || '');
                const accessible = actor.get_accessible();
                if (actor instanceof imports.gi.St.Button && accessible.get_role() === Atk.Role.CHECK_BOX) {
                    switches.push({name: actor.accessible_name, focused: focus === actor,
                                   checked: accessible.ref_state_set().contains_state(Atk.StateType.CHECKED)});
                }
                actor.get_children().forEach(collect);
            };
            collect(dialog);
            return {texts, controls, switches, passcodeFocused: entry !== null && focus === entry.clutter_text,
                    focused: focus instanceof imports.gi.St.Button ? (focus.accessible_name || focus.label) : null,
                    message: message ? message.text : null,
                    role: imports.gi.Atk.role_get_name(dialog.get_accessible().get_role())};
        },
        // Stamps `watched` with the monotonic time at which check() first
        // holds, checking every millisecond, for the latency figures.
        watch(check) {
            const GLib = imports.gi.GLib;
            ga.watched = null;
            GLib.timeout_add(GLib.PRIORITY_HIGH, 1, () => {
                if (!check())
                    return GLib.SOURCE_CONTINUE;
                ga.watched = GLib.get_monotonic_time();
                return GLib.SOURCE_REMOVE;
            });
        },
        // What disable() and End must put back exactly.
        snapshot() {
            const own = (object, name) => Object.prototype.hasOwnProperty.call(object, name);
            const corners = Object.values(Main.layoutManager.hotCornerManager.corners).filter(Boolean);
            return {
                panels: Main.panelManager.getPanels().filter(Boolean).map(p => [p.actor.visible, Boolean(p._disabled)]),
                // Cinnamon's own (the gesture is the extension's, there while it is on).
                hotKeys: [...Main.keybindingManager.bindings.values()].map(entry => entry.name)
                    .filter(name => name !== 'guided-access-gesture').sort(),
                overrides: [own(Main.wm, '_startAppSwitcher'), own(Main.wm, '_showWorkspaceSwitcher'),
                            own(Main.expo, 'show'), own(Main.expo, 'toggle'), own(Main.overview, 'show'),
                            own(Main.overview, 'toggle'), own(Main.layoutManager.hotCornerManager, 'update'),
                            corners.some(corner => own(corner, 'shouldRunAction')),
                            imports.ui.runDialog.RunDialog.prototype.open.toString().length],
                windows: global.get_window_actors().map(a => [a.meta_window.get_title(), a.meta_window.minimized]).sort(),
            };
        },
        // What a person (or a screen reader) gets of the actor called
        // `name` while it is on screen: its accessible name or its text;
        // null while it is not shown.
        shown(name) {
            const actor = ga.find(Main.uiGroup, name);
            if (actor === null || !actor.mapped)
                return null;
            return actor.accessible_name || actor.text || '';
        },
        // Another program's override-redirect window (app-x's overlay):
        // whether it is drawn; null while there is none.
        overlay() {
            const actor = global.get_window_actors().find(a => a.meta_window.is_override_redirect() &&
                a.meta_window.get_title() === 'app-x');
            if (!actor)
                return null;
            const covers = [];
            const collect = a => {
                if (a.name === 'guided-access-overlay-cover')
                    covers.push([a.x, a.y, a.width, a.height, a.mapped]);
                a.get_children().forEach(collect);
            };
            collect(Main.uiGroup);
            const r = actor.meta_window.get_frame_rect();
            return {visible: actor.visible, rect: [r.x, r.y, r.width, r.height], covers};
        },
        find(actor, name) {
            if (actor.name === name)
                return actor;
            for (const child of actor.get_children()) {
                const found = ga.find(child, name);
                if (found !== null)
                    return found;
            }
            return null;
        },
    };
    global._ga = ga;
    return true;
})()
"""


class Cinnamon:
    """The shell under test, for a SuiteCases (harness.py) whose __init__
    sets work and env."""

    def start(self, set_passcode=True, monitors=1):
        """Starts the X server (Xvfb; with two MONITORS, Xorg's dummy
        driver with two outputs side by side) and Cinnamon with the extension
        enabled (as a person enables it: its uuid in org.cinnamon
        enabled-extensions, before Cinnamon starts), and returns once Eval
        works; with `set_passcode`, sets the passcode as the person who hands
        the device over does."""
        import dbus
        self.dbus = dbus
        self.bus = dbus.bus.BusConnection(self.env['DBUS_SESSION_BUS_ADDRESS'])
        for schema, key, value in (('org.cinnamon', 'enabled-extensions', f"['{UUID}']"),
                                   ('org.cinnamon', 'startup-animation', 'false'),
                                   ('org.cinnamon', 'desktop-effects', 'false'),
                                   ('org.cinnamon.desktop.interface', 'enable-animations', 'false')):
            subprocess.run(['gsettings', 'set', schema, key, value], env=self.env, check=True, timeout=20)
        self.start_x_server(monitors)
        self.shell = subprocess.Popen(['cinnamon'], env=self.env, stdout=open(f'{self.work}/logs/cinnamon.log', 'w'),
                                      stderr=subprocess.STDOUT, start_new_session=True)
        self.remember_group(self.shell.pid)

        def ready():
            if self.shell.poll() is not None:
                raise RuntimeError(f'cinnamon exited with {self.shell.returncode}; see {self.work}/logs/cinnamon.log')
            try:
                self.shell_iface = dbus.Interface(self.bus.get_object('org.Cinnamon', '/org/Cinnamon', introspect=False),
                                                  'org.Cinnamon')
                ok, _ = self.shell_iface.Eval('1', timeout=5)
                return ok
            except dbus.DBusException:
                return False
        wait_for(ready, 60, 0.2, 'Cinnamon to start and allow Eval')
        self.js(HELPERS)
        if set_passcode:
            self.service().SetPasscode(PASSCODE, timeout=30)
        self.version = self.js('imports.misc.config.PACKAGE_VERSION')

    def start_x_server(self, monitors):
        """Xvfb (one monitor of 1280x800), or Xorg with the dummy driver and
        MONITORS outputs switched on side by side, the first primary (muffin
        then gives each the mode it prefers, as to a new screen); sets
        DISPLAY to the display number the server found free."""
        if monitors == 1:
            command, log_name = ['Xvfb', '-screen', '0', '1280x800x24'], 'xvfb.log'
        else:
            with open(f'{self.work}/xorg.conf', 'w') as f:
                f.write(XORG_CONF)
            command = ['/usr/lib/xorg/Xorg', '-config', f'{self.work}/xorg.conf', '-logfile',
                       f'{self.work}/logs/xorg.log', '-noreset', '-novtswitch', '-keeptty']
            log_name = 'xorg.out'
        # The display number it finds free, written to a pipe.
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(command + ['-displayfd', str(write), '-nolisten', 'tcp'], pass_fds=(write,),
                                     stdout=open(f'{self.work}/logs/{log_name}', 'w'), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        os.close(write)
        self.remember_group(self.xvfb.pid)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise RuntimeError(f'{command[0]} did not start; see {self.work}/logs/{log_name}')
        self.env['DISPLAY'] = f':{number}'
        if monitors > 1:
            self.xrandr('--output', 'DUMMY0', '--mode', '1280x800', '--pos', '0x0', '--primary')
            for index in range(1, monitors):
                self.xrandr('--addmode', f'DUMMY{index}', '1280x800')
                self.xrandr('--output', f'DUMMY{index}', '--mode', '1280x800', '--right-of', f'DUMMY{index - 1}')

    def xrandr(self, *arguments):
        subprocess.run(['xrandr', *arguments], env=self.env, check=True, timeout=20, capture_output=True)

    def js(self, code, timeout=10):
        """The value of the expression `code` in Cinnamon. Its own exceptions
        are caught there: Cinnamon's Eval gives back an exception as JSON,
        which for an Error is `{}`."""
        wrapped = f'(() => {{ try {{ return {{value: ({code})}}; }} catch (e) {{ return {{error: `${{e}}\n${{e.stack}}`}}; }} }})()'
        ok, answer = self.shell_iface.Eval(wrapped, timeout=timeout)
        result = json.loads(answer) if ok and answer not in ('', 'undefined') else {'error': answer}
        if 'error' in result:
            raise RuntimeError(f'Eval failed: {result["error"]}\n  code: {code[:200]}')
        return result.get('value')

    def screenshot(self, name):
        """With SCREENSHOTS=DIR set, saves the screen as NAME.png (README's
        pictures; runner.main copies them to DIR), through Cinnamon's own
        screenshot service, which answers before it has written the file."""
        if not os.environ.get('SCREENSHOTS'):
            return
        shot = f'{self.work}/shots/{name}.png'  # written by Cinnamon, as nobody
        self.dbus.Interface(self.bus.get_object('org.Cinnamon', '/org/Cinnamon', introspect=False),
                            'org.Cinnamon').Screenshot(False, False, shot, timeout=10)
        sizes = []

        def written():
            sizes.append(os.path.getsize(shot) if os.path.exists(shot) else 0)
            return sizes[-1] > 0 and sizes[-3:] == [sizes[-1]] * 3
        wait_for(written, 10, 0.1, f'Cinnamon to write {shot}')

    def xdotool(self, *arguments):
        subprocess.run(['xdotool', *arguments], env=self.env, check=True, timeout=20)

    def gesture(self):
        """Super+Alt+Escape three times, as fast as a person presses it."""
        self.xdotool('key', '--delay', '80', *['super+alt+Escape'] * 3)

    def end_with_gesture(self, over=''):
        """The gesture, then the passcode typed into the end dialog it
        opens (OVER: what the dialog opens over, for the messages); returns
        once the session has ended."""
        self.gesture()
        wait_for(lambda: self.js('global._ga.endDialog()'), 5, 0.05, f'the end dialog{over}')
        self.type_passcode()

    def type_passcode(self):
        """The passcode typed into the open end dialog and Return; returns
        once the session has ended."""
        self.type_text(PASSCODE)
        self.key('Return')
        wait_for(lambda: not self.prop('Enabled'), 10, 0.1, 'the passcode to end the session')

    def type_text(self, text):
        self.xdotool('type', '--delay', '30', text)

    def key(self, name):
        self.xdotool('key', name)

    # -- the test apps --------------------------------------------------------

    def launch_app(self, name, overlay=None, windows=1):
        """Starts test app NAME with WINDOWS windows; with OVERLAY
        ('overlay', 'overlay-grab'), as an override-redirect window over the
        whole screen (app.py)."""
        log_path = self.app_log(name)
        process = subprocess.Popen([f'{self.work}/bin/{name}', f'{self.work}/bin/app.py', name, log_path]
                                   + ([overlay] if overlay else []) + ([str(windows)] if windows > 1 else []),
                                   env={**self.env, 'GDK_BACKEND': 'x11'},
                                   stdout=open(f'{self.work}/logs/{name}.out', 'w'), stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.remember_group(process.pid)
        self.apps[name] = (process, log_path)
        return process

    def app_log(self, name):
        """Where test app NAME logs what it receives: the same path when
        Cinnamon launched it again (its desktop file names it)."""
        return f'{self.work}/logs/{name}.log'

    def stop_app(self, name):
        if name in self.apps:
            stop_group(self.apps.pop(name)[0].pid, 2)

    def start_app(self, name):
        self.launch_app(name)
        wait_for(lambda: self.window(name), 20, what=f'the window of {name}')
        self.activate(name)

    def window(self, name):
        return self.js(f'global._ga.windowState("{name}")')

    def activate(self, name):
        """Brings `name`'s window forward, asking again each second."""
        asked = [0.0]

        def focused():
            if self.window(name)['focused']:
                return True
            if time.monotonic() - asked[0] >= 1:
                self.js(f'global._ga.activate("{name}")')
                asked[0] = time.monotonic()
            return False
        wait_for(focused, 5, what=f'{name} to have the focus')

    def set_extension(self, enabled):
        """The extension on or off, as a person switches it in Cinnamon's
        Extensions settings (org.cinnamon enabled-extensions)."""
        subprocess.run(['gsettings', 'set', 'org.cinnamon', 'enabled-extensions', f"['{UUID}']" if enabled else '[]'],
                       env=self.env, check=True, timeout=20)

    def enabled_extensions(self):
        return subprocess.run(['gsettings', 'get', 'org.cinnamon', 'enabled-extensions'], env=self.env,
                              capture_output=True, text=True, timeout=20).stdout

    def clicks(self, name):
        """Distinct clicks the app logged (GTK reports each twice)."""
        with open(self.app_log(name)) as f:
            return len({tuple(line.split()[1:4]) for line in f if line.startswith('click ')})

    def click_reaches(self, name, x, y, seconds=1.0):
        """Clicks at (x, y); True once `name` logged the click."""
        before = self.clicks(name)
        self.xdotool('mousemove', str(x), str(y), 'click', '1')
        try:
            wait_for(lambda: self.clicks(name) > before, seconds, 0.05, f'the click to reach {name}')
            return True
        except TimeoutError:
            return False

    def keys(self, name):
        """The keys the app received: (timestamp, key name) of each press."""
        with open(self.app_log(name)) as f:
            return sorted({tuple(line.split()[1:3]) for line in f if line.startswith('key ')})

    def enforcers(self):
        return {str(name): [str(claim) for claim in claims] for name, claims in self.prop('Enforcers').items()}

    def seen(self):
        try:
            windows = {name: self.window(name) for name in self.apps}
            return f'; on screen: windows {windows}, end dialog {self.js("global._ga.endDialog()")}'
        except Exception as error:
            return f'; on screen: unknown ({error})'

    def stop(self):
        for process, _ in self.apps.values():
            stop_group(process.pid, 2)
        for process in (getattr(self, 'shell', None), getattr(self, 'xvfb', None)):
            if process is not None:
                stop_group(process.pid, 5)
        self.shell = self.xvfb = None
