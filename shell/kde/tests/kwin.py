# SPDX-License-Identifier: GPL-2.0-or-later
"""The KWin suite's shell adapter (mixed into run's Cases): KWin started
and stopped on the private session bus, the probe (a test-only KWin script
that reports KWin's windows) and the stand-ins of services.py, fake input,
the windows listed and activated, what the screen shows (ScreenShot2, or
KWin's own windows where it cannot capture), plain KWin scripts run once,
the test apps, and the lock as the cases wait for it.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import time

import fakeinput
from harness import BUS_NAME, PASSCODE, log, stop_group
from waiting import wait_for

SCRIPT_ID = 'guidedaccess'
PROBE_ID = 'guidedaccess-test-probe'
PROBE = 'org.guidedaccess.tests.KWinProbe'
PROBE_PATH = '/org/guidedaccess/tests/KWinProbe'
WIDTH, HEIGHT = 1280, 800
SOCKET = 'wayland-0'  # in the run's own XDG_RUNTIME_DIR
END_GESTURE = 'meta+alt+escape'


def brightest_change(before, after):
    """The brightest colour channel (0-255) among the pixels of AFTER that
    differ from BEFORE (both BGRA, one area): how bright what appeared is."""
    brightest = 0
    for i in range(0, min(len(before), len(after)) - 3, 4):
        if before[i:i + 3] != after[i:i + 3]:
            brightest = max(brightest, after[i], after[i + 1], after[i + 2])
    return brightest


def middle(r):
    """The middle of a rectangle (a window as the probe reports it): where
    the cases click."""
    return r['x'] + r['width'] // 2, r['y'] + r['height'] // 2


class KWin:
    # -- KWin, the probe and the stand-ins ------------------------------------

    def start(self):
        import dbus
        self.dbus = dbus
        self.bus = dbus.bus.BusConnection(self.env['DBUS_SESSION_BUS_ADDRESS'])
        self.fake_input = fakeinput.build(f'{self.work}/source/fake-input.c', f'{self.work}/bin')
        ready = f'{self.work}/services.ready'
        self.services = subprocess.Popen(
            [f'{self.work}/bin/services', f'{self.work}/source/services.py', self.env['DBUS_SESSION_BUS_ADDRESS'], ready],
            env={**self.env, 'WAYLAND_DISPLAY': SOCKET}, stdout=open(f'{self.work}/logs/services.log', 'w'), stderr=subprocess.STDOUT,
            start_new_session=True)
        self.remember_group(self.services.pid)
        wait_for(lambda: os.path.exists(ready) or self.services.poll() is not None, 10, what='services.py')
        if self.services.poll() is not None:
            raise RuntimeError(f'services.py exited; see {self.work}/logs/services.log')
        self.start_kwin()
        self.service().SetPasscode(PASSCODE, timeout=30)
        self.start_app('app-a')
        self.start_app('app-b')

        self.capturing = self.can_capture()
        if not self.capturing:
            log(f'NOTE KWin {self.kwin_version} takes no screenshots here (ScreenShot2 needs OpenGL compositing, and '
                'its virtual backend has no GPU render node): the cases see KWin\'s own windows in its window list')

    def can_capture(self):
        """Whether KWin takes screenshots (ScreenShot2): 6.3 lacks the
        interface without OpenGL, 6.7 cancels every capture."""
        try:
            self.kwin_call('/org/kde/KWin/ScreenShot2', 'org.freedesktop.DBus.Introspectable', 'Introspect')
        except self.dbus.DBusException:
            return False

        def answer():
            # KWin finds the desktop file that authorizes ScreenShot2 in its
            # service cache (KSycoca), which it brings up to date when an
            # app's window appears (not at its start, in this setup).
            try:
                return self.screen_area(0, 0, 1, 1) and 'taken'
            except self.dbus.DBusException as error:
                if 'NoAuthorized' in error.get_dbus_name():
                    return None
                if error.get_dbus_name().endswith('.Cancelled'):
                    return 'cancelled'
                raise
        return wait_for(answer, 30, 0.5, 'KWin to allow screenshots (ScreenShot2)') == 'taken'

    def start_kwin(self):
        """Starts KWin (loading the enforcer, installed and enabled by
        default), loads the probe, registers the KRunner stand-in, and
        connects fake input."""
        number = getattr(self, 'kwin_starts', 0) + 1
        self.kwin_starts = number
        # xdg/ stands for /etc/xdg: the system's configuration, where an
        # administrator's kiosk lock lives (writable here by the test user,
        # who plays the administrator in kwinrc_disabled).
        env = {**self.env, 'KWIN_WAYLAND_NO_PERMISSION_CHECKS': '1', 'XDG_CURRENT_DESKTOP': 'KDE',
               'XDG_CONFIG_DIRS': f'{self.work}/xdg:/etc/xdg'}
        self.kwin = subprocess.Popen(
            [f'{self.work}/bin/kwin_wayland', '--virtual', '--xwayland', '--socket', SOCKET,
             '--width', str(WIDTH), '--height', str(HEIGHT), '--no-lockscreen'] + self.kwin_layout_arguments(),
            env=env, stdout=open(f'{self.work}/logs/kwin-{number}.log', 'w'), stderr=subprocess.STDOUT,
            start_new_session=True)
        self.remember_group(self.kwin.pid)

        def ready():
            if self.kwin.poll() is not None:
                raise RuntimeError(f'kwin_wayland exited with {self.kwin.returncode}; see logs/kwin-{number}.log')
            try:
                # /KWin answers before /Scripting is there: ask the latter.
                self.scripting('isScriptLoaded', PROBE_ID, timeout=2)
                return True
            except self.dbus.DBusException:
                return False
        wait_for(ready, 30, 0.1, 'KWin to answer on the session bus')
        self.kwin_bus_pid = self.kwin_pid()
        loaded = time.monotonic()
        self.scripting('loadScript', f'{self.work}/source/probe/contents/code/main.js', PROBE_ID)
        self.scripting('start')
        wait_for(lambda: self.probe('Latest')[0] > loaded, 15, 0.1, 'the probe\'s first report')
        self.probe('RegisterKRunner')
        self.display, self.xauthority = wait_for(self.xwayland, 15, 0.1, 'KWin\'s Xwayland')
        self.probe('SetDisplay', self.display, self.xauthority)

        if self.input is not None:
            self.input.close()
        self.input = fakeinput.FakeInput(self.fake_input, {**self.env, 'WAYLAND_DISPLAY': SOCKET})
        self.remember_group(self.input.process.pid)

    def kwin_layout_arguments(self):
        """KWin's outputs: one WIDTH x HEIGHT at scale 1 (LayoutRun: others)."""
        return []

    def xwayland(self):
        """(DISPLAY, XAUTHORITY) of KWin's Xwayland: the one it started (its
        child, KWin 5), or else the display KWin listens on for the Xwayland
        it starts when the first X client comes (KWin 6: its X lock file
        holds KWin's pid; no xauth file, local clients may connect)."""
        return self.xwayland_child() or self.xwayland_listening()

    def xwayland_listening(self):
        for name in os.listdir('/tmp'):
            match = re.fullmatch(r'\.X(\d+)-lock', name)
            try:
                with open(f'/tmp/{name}') as f:
                    owner = int(f.read().strip() or 0)
            except (OSError, ValueError):
                continue
            if match and owner == self.kwin.pid:
                return f':{match.group(1)}', ''
        return None

    def xwayland_child(self):
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            try:
                with open(f'/proc/{entry}/stat') as f:
                    fields = f.read().rsplit(')', 1)[1].split()
                if int(fields[1]) != self.kwin.pid:
                    continue
                with open(f'/proc/{entry}/cmdline') as f:
                    argv = f.read().split('\0')
            except (OSError, IndexError, ValueError):
                continue
            if os.path.basename(argv[0]) != 'Xwayland':
                continue
            display = next((arg for arg in argv[1:] if re.fullmatch(r':\d+', arg)), None)
            auth = argv[argv.index('-auth') + 1] if '-auth' in argv else ''
            if display:
                return display, auth
        return None

    def stop_kwin(self):
        for name in list(self.apps):
            self.stop_app(name)
        if self.input is not None:
            self.input.close()
            self.input = None
        if self.kwin is not None:
            stop_group(self.kwin.pid, 5)
            self.kwin = None

    def stop(self):
        self.stop_kwin()
        if getattr(self, 'services', None) is not None:
            stop_group(self.services.pid, 2)

    def after_failure(self):
        # A dialog left open, or KWin gone.
        self.input.key('escape')
        if self.kwin is None or self.kwin.poll() is not None:
            self.start_kwin()

    def seen(self):
        return f' [windows: {self.on_screen()}]'

    def kwin_call(self, path, interface, method, *args, timeout=10):
        """A method of KWin's object `path`; where the object is gone while
        KWin restarts its compositing, asked again once it is back."""
        def call():
            proxy = self.bus.get_object('org.kde.KWin', path, introspect=False)
            return proxy.get_dbus_method(method, interface)(*args, timeout=timeout)
        return self.through_compositing_restart(call)

    def through_compositing_restart(self, call):
        """CALL's result; if it met one of KWin's objects gone (UnknownObject)
        on a KWin that restarts its compositing, CALL again after the
        restart (a case that did not wait for it with compositing_back)."""
        try:
            return call()
        except self.dbus.DBusException as error:
            if error.get_dbus_name() != 'org.freedesktop.DBus.Error.UnknownObject' or not self.restarts_compositing():
                raise
        self.compositing_back(time.monotonic() - 2)
        return call()

    def restarts_compositing(self):
        """Whether this KWin restarts its compositing on a reconfigure: 5.27
        does, about 0.3 s after the call (its reconfigure waits 200 ms),
        for 5 to 10 ms, and then loads its effects again one by one;
        meanwhile /Effects and the screenshot effect's ScreenShot2 are gone."""
        return self.kwin_version.startswith('5.')

    def compositing_back(self, since):
        """On a KWin that restarts its compositing on a reconfigure (the
        daemon's at a session's Start and End, which apply the screen
        edges; a case's own), waits for a restart after SINCE (monotonic
        time, as services.py records compositingToggled) to end and for
        /Effects and ScreenShot2 (where it captures) to answer again.
        Returns at once on another KWin, or after 2 s if none came."""
        if not self.restarts_compositing():
            return
        with contextlib.suppress(TimeoutError):
            wait_for(lambda: any(at > since and active for at, active in self.events()['compositing']), 2, 0.02,
                     'KWin to restart its compositing')
        wanted = {'/Effects': 'org.kde.kwin.Effects'}
        # Whether KWin captures is known once it is up (can_capture).
        if getattr(self, 'capturing', False):
            wanted['/org/kde/KWin/ScreenShot2'] = 'org.kde.KWin.ScreenShot2'

        def answering():
            for path, interface in wanted.items():
                try:
                    proxy = self.bus.get_object('org.kde.KWin', path, introspect=False)
                    if interface not in str(proxy.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable')):
                        return False
                except self.dbus.DBusException:
                    return False
            return True
        wait_for(answering, 5, 0.02, f'{" and ".join(wanted)} back after KWin restarted its compositing')

    def scripting(self, method, *args, timeout=10):
        """KWin's scripting (org.kde.KWin /Scripting): loadScript, start..."""
        return self.kwin_call('/Scripting', 'org.kde.kwin.Scripting', method, *args, timeout=timeout)

    def reconfigure(self):
        """KWin reads its configuration again (what System Settings has it
        do), and is back from the compositing restart that may bring."""
        called = time.monotonic()
        self.kwin_call('/KWin', 'org.kde.KWin', 'reconfigure')
        self.compositing_back(called)

    def kwinrc(self):
        """The person's kwinrc, as text."""
        with open(f'{self.work}/config/kwinrc') as f:
            return f.read()

    def write_kwinrc(self, text):
        with open(f'{self.work}/config/kwinrc', 'w') as f:
            f.write(text)

    def add_to_kwinrc(self, text):
        """TEXT appended to the person's kwinrc, and KWin reconfigured."""
        self.write_kwinrc(self.kwinrc() + text)
        self.reconfigure()

    def probe(self, method, *args):
        proxy = self.bus.get_object(PROBE, PROBE_PATH, introspect=False)
        return proxy.get_dbus_method(method, PROBE)(*args, timeout=10)

    def report(self):
        """The probe's latest report, KWin's own windows (KWin 6 lists them,
        with no process: pid -1) moved from `windows` to `internal`."""
        report = json.loads(str(self.probe('Latest')[1])) or {'windows': [], 'active': None, 'desktop': 0}
        everything = report['windows'] + report.get('internal', [])
        kwin = self.kwin_bus_pid
        report['windows'] = [w for w in everything if not (w['pid'] == kwin or w['pid'] <= 0)]
        report['internal'] = [w for w in everything if w['pid'] == kwin or w['pid'] <= 0]
        return report

    def reports_since(self, since):
        return json.loads(str(self.probe('Since', self.dbus.Double(since))))

    def events(self):
        return json.loads(str(self.probe('Events')))

    def window(self, name, report=None):
        report = report or self.report()
        return next((w for w in report['windows'] if w['caption'] == name), None)

    def active(self):
        return self.report()['active']

    def on_screen(self):
        """The windows as the probe saw them last, for failure messages."""
        report = self.report()
        return ', '.join(f'{w["caption"]}{" (minimized)" if w["minimized"] else ""}{" (active)" if w["active"] else ""}'
                         for w in report['windows']) + f'; active: {report["active"]}; KWin\'s own: ' + \
            (', '.join(f'{w["caption"]} at {w["x"]},{w["y"]} {w["width"]}x{w["height"]}' for w in report['internal'])
             or 'none')

    def effects(self, which='activeEffects'):
        """KWin's effects that are showing now (org.kde.KWin /Effects
        activeEffects), or with 'loadedEffects' those it has loaded."""
        value = self.kwin_call('/Effects', 'org.freedesktop.DBus.Properties', 'Get', 'org.kde.kwin.Effects', which)
        return sorted(str(name) for name in value)

    def loaded_effects(self):
        return self.effects('loadedEffects')

    def kwin_log_size(self):
        return os.path.getsize(f'{self.work}/logs/kwin-{self.kwin_starts}.log')

    def kwin_log(self, offset):
        """KWin's output since OFFSET. An effect whose QML cannot load (its
        Plasma QML modules are not installed) says so there each time it is
        asked to show: the shortcut reached it."""
        with open(f'{self.work}/logs/kwin-{self.kwin_starts}.log', errors='replace') as f:
            f.seek(offset)
            return f.read()

    def kwin_logged(self, offset, text, timeout=5, what=None):
        """Waits for TEXT in KWin's output since OFFSET (the scripts'
        console.log lines): the enforcer says it has put a part in place."""
        wait_for(lambda: text in self.kwin_log(offset), timeout, 0.05, what or f'"{text}" in KWin\'s log')

    def desktop(self):
        return int(self.kwin_call('/KWin', 'org.kde.KWin', 'currentDesktop'))

    def kwin_pid(self):
        """KWin's process as the bus knows it (the owner of its windows)."""
        bus = self.bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus', introspect=False)
        return int(bus.GetConnectionUnixProcessID('org.kde.KWin', dbus_interface='org.freedesktop.DBus'))

    def enforcers(self):
        return {str(name): [str(claim) for claim in claims] for name, claims in self.prop('Enforcers').items()}

    def wait_registered(self, what):
        """Waits for the script's RegisterEnforcer("kwin", ...); Enforcers then."""
        return wait_for(lambda: self.enforcers().get('kwin') is not None and self.enforcers(), 10, 0.1, what)

    # -- the stand-ins (services.py) ------------------------------------------

    def plasmashell(self, method):
        proxy = self.bus.get_object('org.kde.plasmashell', '/PlasmaShell', introspect=False)
        return proxy.get_dbus_method(method, PROBE)(timeout=10)

    def launcher_log(self):
        try:
            with open(f'{self.work}/logs/launcher.log') as f:
                return f.read().splitlines()
        except OSError:
            return []

    def close_notification(self, notification, summary):
        self.notifications().CloseNotification(self.dbus.UInt32(notification), timeout=10)
        wait_for(lambda: not self.window(summary), 5, 0.1, f'the banner "{summary}" to go')

    def banner_seen(self, summary):
        """The banner as a person sees it: there, not minimized, not transparent."""
        banner = self.window(summary)
        return bool(banner) and not banner['minimized'] and banner['opacity'] > 0

    def banner_stays_hidden(self, summary, where, seconds, visible):
        """Waits for the window of the banner SUMMARY (sent WHERE), then
        watches it for SECONDS: fails with VISIBLE if a person sees it."""
        wait_for(lambda: self.window(summary), 20, 0.1, f'the banner\'s window ({where})')
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.banner_seen(summary):
                raise AssertionError(f'{visible}: {self.window(summary)}')
            time.sleep(0.1)

    # -- the screen -----------------------------------------------------------

    def screen_area(self, x, y, width, height):
        """What the screen shows in an area (the whole screen when WIDTH is
        0): (width, height, stride, BGRA bytes), through ScreenShot2, called
        by services.py (KWin authorizes it by the caller's executable: see
        prepare_work). KWin's own windows (the scripts' dialogs and
        shields) are not in the scripting API's window list: this is how the
        cases see them, as a person does."""
        proxy = self.bus.get_object(PROBE, PROBE_PATH, introspect=False)
        width, height, stride, pixels = self.through_compositing_restart(lambda: proxy.Capture(
            self.dbus.Int32(x), self.dbus.Int32(y), self.dbus.Int32(width), self.dbus.Int32(height),
            dbus_interface=PROBE, timeout=30, byte_arrays=True))
        return int(width), int(height), int(stride), bytes(pixels)

    def centre(self):
        """The middle of the screen, where KWin places a dialog."""
        return self.view(WIDTH // 2 - 120, HEIGHT // 2 - 60, 240, 120)

    def view(self, x, y, width, height):
        """What a person sees in an area: its pixels through ScreenShot2;
        where KWin cannot capture (no OpenGL), KWin's own windows shown over
        it (title, place, opacity) as its window list has them."""
        if self.capturing:
            return self.screen_area(x, y, width, height)[3]
        shown = [(w['caption'], w['x'], w['y'], w['width'], w['height'], w['opacity'])
                 for w in self.report().get('internal', [])
                 if w['opacity'] > 0 and not w['hidden'] and w['x'] < x + width and x < w['x'] + w['width']
                 and w['y'] < y + height and y < w['y'] + w['height']]
        return json.dumps(sorted(shown)).encode()

    def appeared(self, before, after):
        """Whether something readable appeared between two views of an
        area: bright pixels (text), or a window of KWin's own that is not
        there before and is not the shield's (which dims, it says nothing)."""
        if self.capturing:
            return brightest_change(before, after) >= 200
        earlier = [tuple(w) for w in json.loads(before)]
        return any(tuple(w) not in earlier and w[0] != 'Guided Access shield' for w in json.loads(after))

    def screenshot(self, name):
        """With SCREENSHOTS=DIR set, saves the screen as NAME.png (main()
        copies it to DIR), through KWin's ScreenShot2."""
        if not os.environ.get('SCREENSHOTS') or not self.capturing:
            return
        import gi
        gi.require_version('GdkPixbuf', '2.0')
        from gi.repository import GdkPixbuf, GLib
        try:
            width, height, stride, data = self.screen_area(0, 0, 0, 0)
        except self.dbus.DBusException as error:
            if not error.get_dbus_name().endswith('UnknownObject'):
                raise
            # A KWin started again by a case may come up without OpenGL
            # compositing, and so without ScreenShot2: no more screenshots.
            log(f'NOTE KWin {self.kwin_version} (start {self.kwin_starts}) has no ScreenShot2: {name}.png and later '
                'screenshots not taken')
            self.capturing = False
            return
        pixels = bytearray(data)
        # QImage::Format_ARGB32 (6) as bytes is B, G, R, A.
        pixels[0::4], pixels[2::4] = pixels[2::4], pixels[0::4]
        image = GdkPixbuf.Pixbuf.new_from_bytes(GLib.Bytes.new(bytes(pixels)), GdkPixbuf.Colorspace.RGB, True, 8,
                                                width, height, stride)
        image.savev(f'{self.work}/shots/{name}.png', 'png', [], [])

    # -- scripts --------------------------------------------------------------

    def script_loaded(self, name=SCRIPT_ID):
        return bool(self.scripting('isScriptLoaded', name))

    def run_script(self, code):
        """Runs a plain KWin script once (as a taskbar or a script would
        act); the caller unloads it. Note that Scripting.start also loads
        the enabled scripts that are not loaded."""
        name = self.load_script(code)
        self.scripting('start')
        return name

    def load_script(self, code):
        """Loads a plain KWin script, to run at the next Scripting.start."""
        self.scripts_run += 1
        name = f'guidedaccess-test-{self.scripts_run}'
        path = f'{self.work}/scripts/{name}.js'
        with open(path, 'w') as f:
            f.write(code)
        self.scripting('loadScript', path, name)
        return name

    def unload_script(self, name):
        """KWin's unloadScript: True when it unloaded a script of that name."""
        return bool(self.scripting('unloadScript', name))

    def activate_once(self, name):
        """Activates NAME's window as a taskbar would (the workspace's active
        window, KWin 5's activeClient or 6's activeWindow; a minimized window
        is unminimized)."""
        self.on_window_once(name, 'if (kwin6) workspace.activeWindow = w; else workspace.activeClient = w;')

    def set_minimized_once(self, name, minimized):
        """Minimizes NAME's window, or shows it again, as another KWin script
        can (its `minimized` set; no activation)."""
        self.on_window_once(name, f'w.minimized = {json.dumps(minimized)};')

    def on_window_once(self, name, statement):
        """Runs STATEMENT once on NAME's window `w` from a plain KWin script
        (`kwin6` says which API), then unloads the script."""
        script = self.run_script(
            'const kwin6 = typeof workspace.windowList === "function";\n'
            'for (const w of kwin6 ? workspace.windowList() : workspace.clientList())\n'
            f'    if (w.caption === {json.dumps(name)}) {{\n'
            f'        {statement}\n'
            '    }\n')
        time.sleep(0.3)
        self.unload_script(script)

    def activate(self, name):
        """Brings `name`'s window forward, asking again each second."""
        asked = [0.0]

        def active():
            window = self.window(name)
            if window and window['active'] and not window['minimized']:
                return True
            if time.monotonic() - asked[0] >= 1:
                asked[0] = time.monotonic()
                self.activate_once(name)
            return False
        wait_for(active, 6, 0.05, f'{name} to be active')

    # -- apps -----------------------------------------------------------------

    def launch_app(self, name, x11=False, overlay=False, windows=1):
        """Starts test app `name` (app.py with its own interpreter copy, so
        its own app id) with `windows` windows, as a Wayland client or
        through KWin's Xwayland; with `overlay`, as an X11 override-redirect
        window over the whole screen."""
        log_path = f'{self.work}/logs/{name}.log'
        env = {**self.env, 'WAYLAND_DISPLAY': SOCKET, 'GDK_BACKEND': 'wayland'}
        if x11:
            env.update(GDK_BACKEND='x11', DISPLAY=self.display, XAUTHORITY=self.xauthority)
            del env['WAYLAND_DISPLAY']
        if overlay:
            env.update(GDK_BACKEND='x11', DISPLAY=self.display, XAUTHORITY=self.xauthority)
            env.pop('WAYLAND_DISPLAY', None)
        process = subprocess.Popen([f'{self.work}/bin/{name}', f'{self.work}/bin/app.py', name, log_path]
                                   + (['overlay'] if overlay else []) + ([str(windows)] if windows > 1 else []),
                                   env=env, stdout=open(f'{self.work}/logs/{name}.out', 'a'),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.remember_group(process.pid)
        self.apps[name] = (process, log_path)
        return process

    def stop_app(self, name):
        stop_group(self.apps.pop(name)[0].pid, 2)

    def start_app(self, name, x11=False):
        # Running, whether the test or the daemon (LaunchApp) started it.
        if self.window(name):
            return
        self.launch_app(name, x11)
        wait_for(lambda: self.window(name), 20, what=f'the window of {name}')

    def lines(self, name, kind):
        """NAME's log lines of KIND: a test app's, or the launcher's (services.py)."""
        path = self.apps[name][1] if name in self.apps else f'{self.work}/logs/{name}.log'
        try:
            with open(path) as f:
                return [line.split() for line in f if line.startswith(kind + ' ')]
        except (KeyError, OSError):
            return []

    def keys(self, name):
        """The keys NAME received: (timestamp, key name) of each press, in order."""
        return list(dict.fromkeys(tuple(fields[1:3]) for fields in self.lines(name, 'key')))

    def clicks(self, name):
        # GTK may report a click twice, with one timestamp and place: count
        # distinct ones. Not by the timestamp alone: a loaded KWin gives two
        # clicks at different places one timestamp (the disabled-region
        # case's control then saw its second click "not arrive").
        return len({tuple(fields[1:4]) for fields in self.lines(name, 'click')})

    def key_reaches(self, name, combo, expected, timeout=1.0):
        """Presses COMBO; True once NAME logged the key EXPECTED (a GDK key name)."""
        before = len(self.keys(name))
        self.input.key(combo)
        try:
            wait_for(lambda: any(key == expected for _, key in self.keys(name)[before:]), timeout, 0.05,
                     f'{expected} in {name}')
            return True
        except TimeoutError:
            return False

    def click_reaches(self, name, point, timeout=1.5):
        before = self.clicks(name)
        self.input.click(*point)
        try:
            wait_for(lambda: self.clicks(name) > before, timeout, 0.05, 'the click')
            return True
        except TimeoutError:
            return False

    def keys_typed_reach(self, name, text='asdf', settle=1.0):
        """Types TEXT; the keys of it NAME received within SETTLE s."""
        before = len(self.keys(name))
        self.input.type(text)
        time.sleep(settle)
        return [key for _, key in self.keys(name)[before:]]

    # -- sessions -------------------------------------------------------------

    def locked(self, others=('app-b',)):
        report = self.report()
        return all((self.window(other, report) or {}).get('minimized') for other in others)

    def released(self, others=('app-b',)):
        report = self.report()
        return all(not (self.window(other, report) or {'minimized': True})['minimized'] for other in others)

    def start_session(self, *args, **options):
        self.session_changed = time.monotonic()
        super().start_session(*args, **options)

    def end_session(self, *args, **options):
        self.session_changed = time.monotonic()
        super().end_session(*args, **options)

    def wait_locked(self, others=None):
        """Waits for OTHERS (by default every other test app with a window)
        to be minimized (until then the shield may still keep a hole's part
        where another window lay over the app), and for KWin to be back from
        the compositing restart of the daemon's reconfigure."""
        if others is None:
            report = self.report()
            others = tuple(name for name in ('app-b', 'app-c', 'app-x') if self.window(name, report)) or ('app-b',)
        wait_for(lambda: self.locked(others), 5, what=f'{", ".join(others)} to be minimized (the lock)')
        self.compositing_back(getattr(self, 'session_changed', 0))

    def wait_released(self, others=('app-b',)):
        """Waits for OTHERS to come back, and for KWin to be back from the
        compositing restart of the daemon's reconfigure."""
        wait_for(lambda: self.released(others), 5, what=f'{", ".join(others)} to come back (the release)')
        self.compositing_back(getattr(self, 'session_changed', 0))

    def bring_up_apps(self):
        """app-a and app-b running, app-a active: where most cases begin."""
        self.start_app('app-a')
        self.start_app('app-b')
        self.activate('app-a')

    def bounces_back(self, what):
        """Activates app-b as a taskbar would; waits (WHAT) for the focus
        back on app-a, app-b minimized."""
        self.activate_once('app-b')
        wait_for(lambda: self.window('app-a')['active'] and self.locked(), 5, 0.05, what)

    def locked_session(self, **options):
        self.bring_up_apps()
        self.start_session('app-a', **options)
        self.wait_locked()

    # -- the daemon -----------------------------------------------------------

    def write_managed(self, policy):
        path = f'{self.work}/managed.json'
        with open(path + '.new', 'w') as f:
            json.dump(policy, f)
        os.replace(path + '.new', path)

    def kill_daemon(self, what='the daemon to go'):
        """kill -9 of the daemon, if it runs; waits (WHAT) for its name to
        lose its owner."""
        if self.bus.name_has_owner(BUS_NAME):
            os.kill(self.daemon_pid(), signal.SIGKILL)
            wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), 5, what=what)

    @contextlib.contextmanager
    def daemon_held(self):
        """In the block the bus starts no daemon (the test session's
        activation refuses while hold-daemon exists)."""
        hold = f'{self.work}/hold-daemon'
        open(hold, 'w').close()
        try:
            yield
        finally:
            os.unlink(hold)
