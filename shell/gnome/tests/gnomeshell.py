# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's shell adapter (mixed into run's Cases): the headless
gnome-shell started, driven through org.gnome.Shell.Eval (with helpers
defined in it once: SHELL_HELPERS) and stopped; the GTK test apps launched,
focused and read; and what the lock shows on screen."""

import json
import os
import subprocess
import time

import prefs
from harness import log, stop_group
from layoutcases import LAYOUT_MONITORS
from shellinfo import HELPER_UUID, UUID
from waiting import wait_for

# Helpers defined in the shell once, used by the Eval snippets of the cases.
SHELL_HELPERS = r"""
(function () {
    const {Clutter, GLib, Meta} = imports.gi;
    const Main = global._gaShell.Main;
    const seat = Clutter.get_default_backend().get_default_seat();
    const pointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
    const keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
    const now = () => GLib.get_monotonic_time();
    const ga = {
        pointer,
        win(title) {
            return global.display.list_all_windows().find(w => w.get_title() === title) ?? null;
        },
        windowState(title) {
            const w = ga.win(title);
            if (w === null)
                return null;
            const r = w.get_frame_rect();
            return {minimized: w.minimized, focused: global.display.focus_window === w,
                    x: r.x, y: r.y, width: r.width, height: r.height};
        },
        activate(title) {
            Main.activateWindow(ga.win(title));
        },
        // Disabled-region blockers in place for input, not only added: the
        // stage's own pick finds one of the extension's blockers (this one,
        // or the touch blocker above it) at the region's centre.
        regions() {
            return Main.layoutManager.uiGroup.get_children()
                .filter(a => a.name === 'guided-access-disabled-region')
                .filter(a => global.stage.get_actor_at_pos(Clutter.PickMode.REACTIVE,
                    a.x + a.width / 2, a.y + a.height / 2)?.name?.startsWith('guided-access-')).length;
        },
        // Moves there, then clicks 50 ms later, as a hand does: GNOME 50
        // finds the surface under the pointer only when it moves, at the
        // next frame, and gives a press before that to the surface it had
        // (a window raised or restored under a still pointer included).
        click(x, y) {
            // A non-finite position leaves mutter's pointer on no monitor
            // (GNOME 48 then aborts when it places a window): never send one.
            if (!Number.isFinite(x) || !Number.isFinite(y))
                throw new Error(`click at ${x}, ${y}`);
            const [px, py] = global.get_pointer();
            if (px === Math.round(x) && py === Math.round(y))
                pointer.notify_absolute_motion(now(), x + 1, y);
            pointer.notify_absolute_motion(now(), x, y);
            GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
                ga.pressedAt = now(); // for figures that start at the press
                pointer.notify_button(now(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
                pointer.notify_button(now(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
                return GLib.SOURCE_REMOVE;
            });
        },
        move(x, y) {
            if (!Number.isFinite(x) || !Number.isFinite(y))
                throw new Error(`move to ${x}, ${y}`);
            pointer.notify_absolute_motion(now(), x, y);
        },
        keys(keyvals, state) {
            for (const keyval of keyvals)
                keyboard.notify_keyval(now(), keyval, state ? Clutter.KeyState.PRESSED : Clutter.KeyState.RELEASED);
        },
        tap(modifiers, keyval) {
            ga.keys(modifiers, true);
            ga.keys([keyval], true);
            ga.keys([keyval], false);
            ga.keys([...modifiers].reverse(), false);
        },
        switcherShown() {
            const SwitcherPopup = global._gaShell.SwitcherPopup;
            return Main.uiGroup.get_children().some(a => a instanceof SwitcherPopup);
        },
        // What disable()/End must put back exactly.
        snapshot() {
            const overview = Main.overview;
            const panel = Main.panel.statusArea;
            return {
                showOwn: Object.prototype.hasOwnProperty.call(overview, 'show'),
                swipe: overview._swipeTracker.enabled,
                banner: Main.messageTray._bannerBlocked, // no getter on GNOME 43
                activities: panel.activities.container.visible,
                dateMenu: panel.dateMenu.container.visible,
                keyboardBox: Main.layoutManager.keyboardBox.visible,
                quickSettings: panel.quickSettings.container.visible,
                appMenu: panel.appMenu?.container.visible ?? null, // no app menu from GNOME 45 on
                a11yMenu: panel.a11y.container.visible,
                panelReactive: Main.panel.reactive,
                windowMenuOwn: Object.prototype.hasOwnProperty.call(Main.wm._windowMenuManager, 'showWindowMenuForWindow'),
                screenshotOwn: Object.prototype.hasOwnProperty.call(Main.screenshotUI, 'open'),
                workspaceScrollOwn: Object.prototype.hasOwnProperty.call(Main.wm, 'handleWorkspaceScroll'),
                workspaceSwipe: Main.wm._workspaceAnimation._swipeTracker.enabled,
                appSwitchGesture: global.stage.get_action('app-switch')?.enabled ?? null, // none on GNOME 50
                backgroundGroup: Main.layoutManager._backgroundGroup.get_n_children(),
                statusArea: Object.keys(panel).sort(),
                uiGroup: Main.layoutManager.uiGroup.get_n_children(),
                windows: global.display.list_all_windows().map(w => [w.get_title(), w.minimized]).sort(),
            };
        },
        // Records the monotonic time at which check() first holds, checking
        // every millisecond, for the latency figures.
        watch(check) {
            ga.watched = null;
            GLib.timeout_add(GLib.PRIORITY_HIGH, 1, () => {
                if (!check())
                    return GLib.SOURCE_CONTINUE;
                ga.watched = now();
                return GLib.SOURCE_REMOVE;
            });
        },
        // The first actor named `name` under `actor`, or null.
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
        extension(enabled) {
            if (enabled)
                Main.extensionManager.enableExtension('guided-access@guidedaccess.org');
            else
                Main.extensionManager.disableExtension('guided-access@guidedaccess.org');
        },
        extensionState() {
            const e = Main.extensionManager.lookup('guided-access@guidedaccess.org');
            return e ? {state: e.state, error: e.error ? String(e.error) : ''} : null;
        },
    };
    global._ga = ga;
    return true;
})()
"""


class GnomeShell:
    """The shell under test, for a SuiteCases (harness.py) whose __init__
    sets work, env, session_address and layouts."""

    # -- the shell ------------------------------------------------------------

    def start(self, extensions=(HELPER_UUID,), log_name='shell.log', settle=True):
        """Starts the shell with `extensions` enabled (the cases enable the
        extension itself), its output in logs/`log_name`; returns once Eval
        works (with `settle`, once the overview it opens at start is closed
        and the pointer is in the middle)."""
        import dbus
        self.dbus = dbus
        self.env['DBUS_SESSION_BUS_ADDRESS'] = self.session_address
        self.bus = dbus.bus.BusConnection(self.session_address)
        prefs.prepare_session(self)  # the accessibility bus, the settings window's service
        gsettings = [
            ('org.gnome.shell', 'enabled-extensions', str(list(extensions))),
            ('org.gnome.shell', 'welcome-dialog-last-shown-version', "'999'"),
            ('org.gnome.desktop.interface', 'enable-animations', 'false'),
        ]
        monitors = ['1280x800']
        if self.layouts:
            monitors = list(LAYOUT_MONITORS)
            # Logical layout, as fractional scales need: stage coordinates
            # are logical pixels on every monitor.
            gsettings.append(('org.gnome.mutter', 'experimental-features', "['scale-monitor-framebuffer']"))
        for schema, key, value in gsettings:
            # The administrator's lock (admin_lock) may hold enabled-extensions
            # at what a restart wants; a locked key is left as it is.
            writable = subprocess.run(['gsettings', 'writable', schema, key], env=self.env, capture_output=True,
                                      text=True, timeout=20).stdout.strip()
            if writable == 'false':
                continue
            subprocess.run(['gsettings', 'set', schema, key, value], env=self.env, check=True, timeout=20)
        self.shell = subprocess.Popen(
            ['gnome-shell', '--headless', '--wayland'] + [arg for size in monitors for arg in ('--virtual-monitor', size)],
            env=self.env, stdout=open(f'{self.work}/logs/{log_name}', 'w'), stderr=subprocess.STDOUT,
            start_new_session=True)
        self.remember_group(self.shell.pid)

        def ready():
            if self.shell.poll() is not None:
                raise RuntimeError(f'gnome-shell exited with {self.shell.returncode}; see {self.work}/logs/shell.log')
            try:
                shell = self.bus.get_object('org.gnome.Shell', '/org/gnome/Shell', introspect=False)
                self.shell_iface = dbus.Interface(shell, 'org.gnome.Shell')
                ok, answer = self.shell_iface.Eval('global._gaShell.Main.layoutManager._startingUp', timeout=5)
                return ok and answer == 'false'
            except dbus.DBusException:
                return False
        wait_for(ready, 60, 0.05, 'gnome-shell to start and allow Eval')
        self.js(SHELL_HELPERS)
        if not settle:
            return
        # The shell opens the overview as it starts (GNOME 50: a moment after
        # startup is complete).
        self.close_overview(settle=1.5)
        self.park_pointer()

    def park_pointer(self):
        """The pointer to the middle of the screen, where a person's rests.
        It starts in the top left corner, and GNOME 50 holds the first jump
        away from there at y = 0 (the first click would land on the top
        bar): moved until it is there."""
        def parked():
            self.js('global._ga.move(640, 400)')
            time.sleep(0.1)
            return self.js('global.get_pointer().slice(0, 2)') == [640, 400]
        wait_for(parked, 3, what='the pointer in the middle of the screen')

    def close_overview(self, settle=0.3):
        """Hides the overview until it has stayed hidden `settle` s (GNOME 50
        ignores a hide() while it is still opening)."""
        closed_since = [None]

        def closed():
            if self.js('global._gaShell.Main.overview.visible'):
                self.js('global._gaShell.Main.overview.hide()')
                closed_since[0] = None
                return False
            closed_since[0] = closed_since[0] or time.monotonic()
            return time.monotonic() - closed_since[0] >= settle
        wait_for(closed, 15, 0.05, what='the overview to close and stay closed')

    def screenshot(self, name):
        """With SCREENSHOTS=DIR set, saves the screen as NAME.png (the
        pictures of the README and docs/; main() copies them to DIR), through the shell's
        own Screenshot API, which a shell in unsafe mode lets this harness call."""
        if not os.environ.get('SCREENSHOTS'):
            return
        shot = f'{self.work}/shots/{name}.png'  # written by the shell, as nobody
        screenshot = self.dbus.Interface(
            self.bus.get_object('org.gnome.Shell.Screenshot', '/org/gnome/Shell/Screenshot', introspect=False),
            'org.gnome.Shell.Screenshot')
        ok, _ = screenshot.Screenshot(False, False, shot, timeout=10)
        if not ok:
            raise RuntimeError(f'the shell could not save {shot}')

    def set_outlines(self, shown):
        """The extension's own setting that draws disabled regions."""
        schemas = f'{self.work}/data/gnome-shell/extensions/{UUID}/schemas'
        subprocess.run(['gsettings', '--schemadir', schemas, 'set', 'org.gnome.shell.extensions.guided-access',
                        'show-region-outlines', 'true' if shown else 'false'], env=self.env, check=True, timeout=20)

    def js(self, code, timeout=10):
        ok, answer = self.shell_iface.Eval(code, timeout=timeout)
        if not ok:
            raise RuntimeError(f'Eval failed: {answer}\n  code: {code[:200]}')
        return json.loads(answer) if answer not in ('', 'undefined') else None

    # -- the test apps --------------------------------------------------------

    def launch_app(self, name, x11_overlay=False, windows=1):
        """Starts test app `name` (tests/app.py, with its own interpreter
        copy, so its own app id) with `windows` windows; an `overlay` is an
        X11 override-redirect window over the screen, through the shell's Xwayland."""
        log_path = f'{self.work}/logs/{name}.log'
        program = 'app-c' if x11_overlay else name
        env = {**self.env, 'WAYLAND_DISPLAY': 'wayland-0', 'GDK_BACKEND': 'wayland'}
        if x11_overlay:
            display, xauthority = self.js('[imports.gi.GLib.getenv("DISPLAY"), imports.gi.GLib.getenv("XAUTHORITY")]')
            env.update(GDK_BACKEND='x11', DISPLAY=display, XAUTHORITY=xauthority or '')
        process = subprocess.Popen(
            [f'{self.work}/bin/{program}', f'{self.work}/bin/app.py', name, log_path]
            + (['overlay'] if x11_overlay else []) + ([str(windows)] if windows > 1 else []),
            env=env, stdout=open(f'{self.work}/logs/{name}.out', 'w'), stderr=subprocess.STDOUT,
            start_new_session=True)
        self.remember_group(process.pid)
        self.apps[name] = (process, log_path)
        return process

    def stop_app(self, name):
        if name in self.apps:
            stop_group(self.apps.pop(name)[0].pid, 2)
            wait_for(lambda: self.window(name) is None, 5, what=f'the window of {name} to go')

    def wait_for_window(self, name, timeout=20):
        wait_for(lambda: self.window(name), timeout, what=f'the window of {name}')

    def start_app(self, name):
        process = self.launch_app(name)
        self.wait_for_window(name)
        self.activate(name)
        return process

    def run_as_app(self, argv):
        """Runs a command as the locked app would (same user, same session)."""
        subprocess.run(argv, env=self.env, capture_output=True, timeout=20)

    # -- what is on screen ----------------------------------------------------

    def wait_enabled(self):
        wait_for(lambda: (self.js('global._ga.extensionState()') or {}).get('state') == 1, 10,
                 what='the extension to be enabled')

    def wait_locked(self, regions=0):
        wait_for(lambda: self.locked_on_screen('app-b', regions), 5, what='the lock')

    def wait_released(self):
        wait_for(lambda: self.released_on_screen('app-b'), 5, what='the release after End')

    def wait_unreachable(self, name):
        """Asks the shell to bring `name` forward; it must stay minimized and
        without the focus."""
        self.js(f'global._ga.activate("{name}")')
        time.sleep(0.3)
        wait_for(lambda: self.window(name)['minimized'] and not self.window(name)['focused'], 3,
                 what=f'{name} to stay unreachable')

    def activate(self, name):
        """Brings `name`'s window forward, asking again each second: a window
        that was just restored (after End) can take the focus once more."""
        asked = [0.0]

        def focused():
            if self.window(name)['focused']:
                return True
            if time.monotonic() - asked[0] >= 1:
                self.js(f'global._ga.activate("{name}")')
                asked[0] = time.monotonic()
            return False
        wait_for(focused, 5, what=f'{name} to have the focus')

    def window(self, name):
        return self.js(f'global._ga.windowState("{name}")')

    def keys(self, name):
        """The keys the app received: (timestamp, key name) of each press."""
        with open(self.apps[name][1]) as f:
            return sorted({tuple(line.split()[1:3]) for line in f if line.startswith('key ')})

    def typed(self, name, character, timeout=1.5):
        """Types `character` with the virtual keyboard; True once `name` logged it."""
        before = len(self.keys(name))
        self.js(f'global._ga.tap([], {ord(character)})')
        try:
            wait_for(lambda: len(self.keys(name)) > before, timeout, what=f'the key to reach {name}')
            return True
        except TimeoutError:
            return False

    def clicks(self, name):
        # GTK reports a click twice, with one timestamp and place: count
        # distinct ones (not by the timestamp alone: two clicks at two places
        # may share one when the shell is loaded).
        with open(self.apps[name][1]) as f:
            return len({tuple(line.split()[1:4]) for line in f if line.startswith('click ')})

    def locked_on_screen(self, other, regions=0):
        state = self.window(other)
        return state['minimized'] and self.js('global._ga.regions()') == regions

    def released_on_screen(self, other):
        return not self.window(other)['minimized'] and self.js('global._ga.regions()') == 0

    # -- holding and stopping -------------------------------------------------

    def hold(self):
        """HOLD=1 keeps the shell running for poking at it by hand until
        WORK/hold is removed (the bus address is in WORK/address)."""
        if not os.environ.get('HOLD'):
            return
        with open(f'{self.work}/address', 'w') as f:
            f.write(self.env['DBUS_SESSION_BUS_ADDRESS'] + '\n')
        open(f'{self.work}/hold', 'w').close()
        log(f'HOLD: shell running; session bus in {self.work}/address; rm {self.work}/hold to stop')
        while os.path.exists(f'{self.work}/hold'):
            time.sleep(0.5)

    def stop(self):
        for process, _ in self.apps.values():
            stop_group(process.pid, 2)
        if getattr(self, 'shell', None) is not None:
            # SIGTERM may crash the shell (exit 139); its status is not checked.
            stop_group(self.shell.pid, 5)

    def shell_rss(self):
        with open(f'/proc/{self.shell.pid}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
        return 0
