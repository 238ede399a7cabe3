# SPDX-License-Identifier: GPL-2.0-or-later
"""The red-team suite of shell/gnome/tests/run: every way out of a locked
session we know of, tried at the screen as a curious child would, each
beside its control (the same action with no session must lead out, or the
check would prove nothing), and over-blocking checks (what the person may
still do in the locked app). Prints one row per way and `N of M closed`.

A way is *open* when, after the action, the shell's own UI is up (the
overview, a switcher, a menu, a dialog, the screenshot UI), the locked app
is minimized, lost the focus or is off the active workspace, the active
workspace changed, or the way's own sign appeared (an accelerator that
gnome-settings-daemon grabbed fired, mutter's VT switch handler ran, an
overlay window took a click, the extension stayed off, the app stayed
gone). The session is started with no system restriction denied, the
loosest kind; run(participants=[...]) makes it an assessment whose
participants are those apps (assessmentcases.py: app-a's own process
begins and ends it), so they are allowed too (AlsoAllowed), where a
switcher that lists only the allowed apps, or the focus on an allowed
app's window, is not a way out.
"""

import os
import signal
import time

from shellinfo import SHELL_MAJOR
from waiting import wait_for

# Shell-side observers and undo, installed once into global._ga.
HELPERS = r"""
(function () {
    const {Clutter, GLib, Meta, Shell} = imports.gi;
    const Main = global._gaShell.Main;
    const SwitcherPopup = global._gaShell.SwitcherPopup;
    const ga = global._ga;
    const now = () => GLib.get_monotonic_time();
    const touch = Clutter.get_default_backend().get_default_seat()
        .create_virtual_device(Clutter.InputDeviceType.TOUCHSCREEN_DEVICE);
    const pointer = ga.pointer; // one pointer device for every move and click

    // Bindings that reach their handler (nothing filtered them): a probe
    // connected after every other filter-keybinding handler.
    ga.reached = [];
    global.window_manager.connect_after('filter-keybinding', (_wm, binding) => {
        ga.reached.push(binding.get_name());
        return false;
    });
    // What gnome-settings-daemon's media keys do: grab an accelerator
    // through the shell (as org.gnome.Shell.GrabAccelerator does for it).
    ga.fired = [];
    ga.grabs = {};
    global.display.connect('accelerator-activated', (_display, action) => ga.fired.push(ga.grabs[action] ?? action));
    ga.grab = accelerator => {
        const action = global.display.grab_accelerator(accelerator, Meta.KeyBindingFlags.NONE);
        Main.wm.allowKeybinding(Meta.external_binding_name_for_action(action), Shell.ActionMode.ALL);
        ga.grabs[action] = accelerator;
        return action !== Meta.KeyBindingAction.NONE;
    };

    // A right-click where the pointer is (move it there first: a client
    // may miss a press that comes in the same frame as the pointer's entry).
    ga.rightClick = () => {
        pointer.notify_button(now(), Clutter.BUTTON_SECONDARY, Clutter.ButtonState.PRESSED);
        pointer.notify_button(now(), Clutter.BUTTON_SECONDARY, Clutter.ButtonState.RELEASED);
    };
    ga.superScroll = () => {
        ga.keys([0xffeb], true);
        pointer.notify_discrete_scroll(now(), Clutter.ScrollDirection.DOWN, Clutter.ScrollSource.WHEEL);
        ga.keys([0xffeb], false);
    };
    // Three fingers swiped from right to left over 300 ms.
    ga.swipe = () => {
        const ys = [300, 400, 500];
        ys.forEach((y, slot) => touch.notify_touch_down(now(), slot, 1000, y));
        let step = 0;
        GLib.timeout_add(GLib.PRIORITY_HIGH, 16, () => {
            step++;
            ys.forEach((y, slot) => touch.notify_touch_motion(now(), slot, 1000 - step * 40, y));
            if (step < 20)
                return GLib.SOURCE_CONTINUE;
            ys.forEach((_y, slot) => touch.notify_touch_up(now(), slot));
            return GLib.SOURCE_REMOVE;
        });
    };
    // Where a top bar item is, for clicking it.
    ga.panelItem = role => {
        if (!Main.panel.statusArea[role])
            return null;
        const actor = Main.panel.statusArea[role].container;
        const [x, y] = actor.get_transformed_position();
        return [Math.round(x + actor.width / 2), Math.round(y + actor.height / 2)];
    };

    // Everything that shows the person left the locked app `title` (or the
    // apps whose titles are in `allowed`: AlsoAllowed).
    ga.escapes = (title, workspace, allowed = []) => {
        const out = [];
        if (Main.overview.visible)
            out.push('overview');
        if (Main.wm._windowMenuManager._manager.activeMenu?.isOpen)
            out.push('window menu');
        // The session's own indicator (its one item ends the session) is not a way out.
        for (const [role, indicator] of Object.entries(Main.panel.statusArea)) {
            if (role !== 'guided-access' && indicator.menu?.isOpen)
                out.push(`${role} menu`);
        }
        for (const manager of Main.layoutManager._bgManagers) {
            if (manager.backgroundActor._backgroundMenu?.isOpen)
                out.push('background menu');
        }
        if (Main.screenshotUI?.visible)
            out.push('screenshot UI');
        const switcher = Main.uiGroup.get_children().find(a => a instanceof SwitcherPopup);
        const listed = switcher?._items.map(item => item.app?.get_name() ?? item.window?.get_title() ?? '?') ?? [];
        if (switcher && listed.some(name => name !== title && !allowed.includes(name)))
            out.push(`switcher (${listed.join(', ')})`);
        else if (switcher)
            ga.note = `a switcher listing only ${listed.join(', ')}`;
        const dialogs = Main.layoutManager.modalDialogGroup.get_children().filter(a => a.visible);
        if (dialogs.length > 0)
            out.push(`dialog ${dialogs.map(d => d.constructor.name).join(',')}`);
        const ownMenuOpen = Main.panel.statusArea['guided-access']?.menu.isOpen ? 1 : 0;
        // A switcher among the allowed apps is a modal of the shell's too.
        const allowedModals = ownMenuOpen + (switcher && ga.note ? 1 : 0);
        if (Main.modalCount > allowedModals && out.length === 0)
            out.push(`shell modal (${Main.modalCount})`);
        const active = global.workspace_manager.get_active_workspace();
        if (active.index() !== workspace)
            out.push(`workspace ${workspace} → ${active.index()}`);
        const window = ga.win(title);
        if (window === null) {
            out.push(`${title} has no window`);
        } else {
            if (window.minimized)
                out.push(`${title} minimized`);
            else if (!window.located_on_workspace(active))
                out.push(`${title} off the active workspace`);
            const focus = global.display.focus_window;
            if (focus !== window && focus?.get_pid() !== window.get_pid() && !allowed.includes(focus?.get_title()))
                out.push(`focus on ${focus?.get_title() ?? 'nothing'}`);
        }
        return out;
    };

    // Closes whatever an attempt opened and brings `title` back.
    ga.undo = title => {
        Main.overview.hide();
        Main.wm._windowMenuManager._manager.activeMenu?.close();
        for (const indicator of Object.values(Main.panel.statusArea))
            indicator.menu?.close();
        for (const manager of Main.layoutManager._bgManagers)
            manager.backgroundActor._backgroundMenu?.close();
        if (Main.screenshotUI?.visible)
            Main.screenshotUI.close(true);
        for (const popup of Main.uiGroup.get_children().filter(a => a instanceof SwitcherPopup))
            popup.destroy();
        for (const dialog of Main.layoutManager.modalDialogGroup.get_children())
            dialog.close?.();
        ga.keys([0xffe9, 0xffeb, 0xffe3, 0xffe1], false);
        const first = global.workspace_manager.get_workspace_by_index(0);
        first.activate(global.get_current_time());
        const window = ga.win(title);
        if (window !== null) {
            if (window.minimized)
                window.unminimize();
            if (!window.located_on_workspace(first))
                window.change_workspace(first);
            Main.activateWindow(window);
        }
        ga.reached = [];
        ga.fired = [];
        return true;
    };
    return true;
})()
"""

# Keys gnome-settings-daemon's media keys grab by default: log out, lock.
GRABBED = ('<Control><Alt>Delete', '<Super>l')

KEYS = {
    'Super': 0xffeb, 'Alt': 0xffe9, 'Control': 0xffe3, 'Shift': 0xffe1, 'space': 0x20, 'a': 0x61, 'h': 0x68,
    'l': 0x6c, 'v': 0x76, '1': 0x31, 'grave': 0x60, 'Tab': 0xff09, 'Page_Down': 0xff56, 'Delete': 0xffff,
    'Print': 0xff61, 'F1': 0xffbe, 'F2': 0xffbf, 'F3': 0xffc0, 'F4': 0xffc1, 'F5': 0xffc2, 'F6': 0xffc3,
    'F10': 0xffc7,
}


def chord(text):
    """'Super+Shift+Page_Down' → JS that taps it with the virtual keyboard."""
    *modifiers, key = text.split('+')
    return f'global._ga.tap([{", ".join(str(KEYS[m]) for m in modifiers)}], {KEYS[key]})'


class RedTeam:
    def __init__(self, cases):
        self.t = cases
        self.rows = []  # (kind, way, control, during, verdict)
        self.kinds = None  # the kinds of way run() tries; None for all
        self.participants = []  # with some, the sessions are assessments that allow them besides app-a
        self.controls = {}  # way → what its control found (kept for a run with participants)
        cases.js(HELPERS)
        for accelerator in GRABBED:
            if not cases.js(f'global._ga.grab("{accelerator}")'):
                raise RuntimeError(f'could not grab {accelerator} as gnome-settings-daemon does')

    # -- running a way -------------------------------------------------------

    def escapes(self):
        self.t.js('global._ga.note = null')
        found = self.t.js(f'global._ga.escapes("app-a", 0, {list(self.participants)!r})')
        self.note = self.note or self.t.js('global._ga.note')
        return found

    def undo(self):
        self.t.js('global._ga.undo("app-a")')
        if not self.t.js('global._ga.win("app-a") !== null'):
            self.t.start_app('app-a')
        for name in ('app-b', 'app-c'):
            if name in self.t.apps and self.t.window(name) is None:
                del self.t.apps[name]
        self.t.activate('app-a')
        time.sleep(0.2)

    def way(self, kind, name, attempt, settle=0.6, signs=None, untestable=None, absent=None):
        """Tries `attempt` without a session (control) and during one.
        `signs()` returns the way's own evidence of escape (a list) beside
        the common ones. `absent` says why this shell version has no such
        way (listed, not counted)."""
        if self.kinds is not None and kind not in self.kinds:
            return
        if untestable:
            self.rows.append((kind, name, '-', '-', f'untestable here: {untestable}'))
            return
        if absent:
            self.rows.append((kind, name, '-', '-', f'absent: {absent}'))
            return

        def attempt_and_look():
            self.note = None
            self.undo()
            attempt()
            time.sleep(settle)
            found = self.escapes() + (signs() if signs else [])
            return found

        try:
            # In assessments the controls are those of the run without
            # (the same ways, no session): not run twice.
            control = self.controls.get(name) if self.participants else None
            if control is None:
                control = attempt_and_look()
                self.controls[name] = control
            self.undo()
            if self.participants:
                self.t.begin(participants=self.participants, wait=False)
            else:
                self.t.start_session('app-a')
            try:
                self.t.wait_locked()
                during = attempt_and_look()
            finally:
                if self.t.prop('Enabled'):
                    self.t.end_session()
            self.t.wait_released()
            self.undo()
        except Exception as error:  # a broken attempt is a failure, not a pass
            self.rows.append((kind, name, '?', '?', f'error: {error}'))
            return
        if not control:
            verdict = 'control failed (nothing happened without a session)'
        else:
            verdict = 'OPEN' if during else 'closed' + (f' ({self.note})' if self.note else '')
        self.rows.append((kind, name, '; '.join(control) or '-', '; '.join(during) or '-', verdict))

    def keys(self, text):
        return lambda: self.t.js(chord(text))

    # -- the ways ------------------------------------------------------------

    def run(self, kinds=None, other_monitor=None, participants=None):
        """Tries every way of `kinds` (all by default); with `other_monitor`
        (a rect), also the ways onto a second monitor; with `participants`
        (test apps' names), in assessments whose participants they are."""
        self.kinds = kinds
        self.participants = list(participants or [])
        self.rows = []
        t = self.t
        fired = lambda: [f'accelerator {a} fired' for a in t.js('global._ga.fired')]  # noqa: E731
        reached = lambda: [f'{b} reached its handler' for b in t.js('global._ga.reached')  # noqa: E731
                           if b.startswith('switch-to-session')]

        k = 'keyboard'
        self.way(k, 'Super (overview)', self.keys('Super'))
        self.way(k, 'Super+A (app grid)', self.keys('Super+a'))
        self.way(k, 'Alt+Tab (app switcher, Alt held)', lambda: t.js(
            f'global._ga.keys([{KEYS["Alt"]}, {KEYS["Tab"]}], true); global._ga.keys([{KEYS["Tab"]}], false)'))
        self.way(k, 'Alt+F2 (run dialog)', self.keys('Alt+F2'))
        self.way(k, 'Alt+Space (window menu)', self.keys('Alt+space'))
        no_app_menu = None if t.js('Boolean(global._gaShell.Main.panel.statusArea.appMenu)') else \
            'GNOME 45+ has no app menu'
        self.way(k, 'Super+F10 (app menu)', self.keys('Super+F10'), absent=no_app_menu)
        self.way(k, 'Super+V (message list)', self.keys('Super+v'))
        self.way(k, 'Ctrl+Alt+Tab (keyboard into the top bar)', lambda: t.js(
            f'global._ga.keys([{KEYS["Control"]}, {KEYS["Alt"]}, {KEYS["Tab"]}], true); '
            f'global._ga.keys([{KEYS["Tab"]}], false)'))
        self.way(k, 'Print (screenshot UI)', self.keys('Print'))
        self.way(k, 'Super+Page_Down (next workspace)', self.keys('Super+Page_Down'))
        self.way(k, 'Super+Shift+Page_Down (app to next workspace)', self.keys('Super+Shift+Page_Down'))
        self.way(k, 'Super+H (minimize)', self.keys('Super+h'))
        self.way(k, 'Alt+F4 (close the app)', self.keys('Alt+F4'), settle=1.5)
        self.way(k, 'Ctrl+Alt+F3 (virtual terminal 3)', self.keys('Control+Alt+F3'), signs=reached)
        self.way(k, 'Ctrl+Alt+Delete (log-out dialog, a settings daemon key)', self.keys('Control+Alt+Delete'),
                 signs=fired)
        self.way(k, 'Super+L (screen lock, a settings daemon key)', self.keys('Super+l'), signs=fired)

        p = 'pointer'
        self.way(p, 'right-click on the title bar (window menu)', self.title_bar_right_click)
        for role, what in (('appMenu', 'app menu'), ('dateMenu', 'calendar, message list'),
                           ('quickSettings', 'Settings, Lock, Power Off'), ('activities', 'overview')):
            spot = t.js(f'global._ga.panelItem("{role}")')
            self.way(p, f'click on the top bar\'s {role} ({what})',
                     lambda spot=spot: t.js(f'global._ga.click({spot[0]}, {spot[1]})'),
                     absent=None if spot else f'this shell\'s top bar has no {role}')
        self.way(p, 'right-click on the desktop beside the app (background menu)',
                 lambda: self.right_click(1240, 760))
        if other_monitor is not None:
            spot = (other_monitor['x'] + other_monitor['width'] // 2, other_monitor['y'] + other_monitor['height'] // 2)
            self.way(p, 'right-click on the other monitor\'s desktop (background menu)',
                     lambda: self.right_click(*spot))

        g = 'gesture'
        self.way(g, 'Super + scroll (workspaces)', lambda: t.js('global._ga.superScroll()'))
        self.way(g, 'three-finger touchscreen swipe (workspace or app switch)', lambda: t.js('global._ga.swipe()'),
                 settle=1.2, untestable=None if other_monitor is None else
                 'with two monitors the virtual touchscreen\'s swipe moves nothing, with or without a session '
                 '(no control); it runs in the one-monitor suite')
        self.way(g, 'three/four-finger touchpad swipe (workspaces, overview)', None,
                 untestable='Clutter virtual devices emit no touchpad gestures; the swipe trackers the '
                            'touchscreen row disables are the same objects')

        o = 'other processes'
        self.way(o, 'another app raises itself (as a notification click activates it)',
                 lambda: t.js('global._ga.activate("app-b")'))
        self.way(o, 'another app opens a new window', self.new_app_window, settle=0.3)
        self.way(o, 'an X11 override-redirect window over the whole screen', self.overlay, settle=0.3,
                 signs=self.overlay_signs)

        e = 'the enforcer'
        self.way(e, 'gnome-extensions disable (run by the locked app)', self.disable_with_cli, settle=0,
                 signs=self.extension_off)
        self.way(e, 'org.gnome.Shell.Extensions.DisableExtension over D-Bus', self.disable_over_dbus, settle=0,
                 signs=self.extension_off)

        a = 'the app itself'
        self.way(a, 'its close button', self.close_button, settle=3)
        self.way(a, 'kill -9 of its process', self.kill_app, settle=3)
        return self.report()

    # -- attempts that need more than a key ------------------------------------

    def right_click(self, x, y):
        self.t.js(f'global._ga.move({x}, {y})')
        time.sleep(0.15)
        self.t.js('global._ga.rightClick()')

    def title_bar_right_click(self):
        a = self.t.window('app-a')
        self.right_click(a['x'] + a['width'] // 2, a['y'] + 18)

    def close_button(self):
        a = self.t.window('app-a')
        self.t.js(f'global._ga.click({a["x"] + a["width"] - 22}, {a["y"] + 18})')

    def kill_app(self):
        pid = self.t.js('global._ga.win("app-a").get_pid()')
        os.kill(pid, signal.SIGKILL)

    def new_app_window(self):
        if 'app-c' in self.t.apps:
            self.t.stop_app('app-c')
        self.t.launch_app('app-c')
        self.t.wait_for_window('app-c')

    def overlay(self):
        self.t.stop_app('overlay')
        self.t.launch_app('overlay', x11_overlay=True)
        self.t.wait_for_window('overlay')

    def overlay_signs(self):
        """The overlay is drawn, or a click on the app's centre reaches it."""
        signs = []
        if self.t.js('(() => { const w = global._ga.win("overlay"); '
                     'return w !== null && w.get_compositor_private().visible; })()'):
            signs.append('overlay drawn over the app')
        a = self.t.window('app-a')
        before = self.t.clicks('overlay')
        self.t.js(f'global._ga.click({a["x"] + a["width"] // 2}, {a["y"] + a["height"] // 2})')
        time.sleep(0.5)
        if self.t.clicks('overlay') > before:
            signs.append('overlay took a click meant for the app')
        self.t.stop_app('overlay')
        return signs

    def disable_with_cli(self):
        self.t.run_as_app(['gnome-extensions', 'disable', self.t.uuid])

    def disable_over_dbus(self):
        self.t.run_as_app(['gdbus', 'call', '--session', '--dest', 'org.gnome.Shell', '--object-path',
                           '/org/gnome/Shell', '--method', 'org.gnome.Shell.Extensions.DisableExtension',
                           self.t.uuid])

    def extension_off(self):
        """Off for good: not enabled again within 2 s (the daemon turns it
        back on within a second during a session). Notes how long it was
        off; puts it back on afterwards."""
        started = time.monotonic()
        went_off = None
        while time.monotonic() - started < 2:
            state = (self.t.js('global._ga.extensionState()') or {}).get('state')
            if state != 1 and went_off is None:
                went_off = time.monotonic()
            elif state == 1 and went_off is not None:
                self.note = f'back on {(time.monotonic() - went_off) * 1000:.0f} ms after it went off'
                return []
            time.sleep(0.02)
        if state == 1:
            return []
        self.t.js('global._ga.extension(true)')
        self.t.wait_enabled()
        return [f'extension still off 2 s later (state {state})']

    # -- the table -------------------------------------------------------------

    def report(self):
        width = max(len(row[1]) for row in self.rows)
        self.t.log(f'       {"kind":<16} {"way out":<{width}}  result')
        for kind, name, control, during, verdict in self.rows:
            self.t.log(f'       {kind:<16} {name:<{width}}  {verdict}')
            self.t.log(f'       {"":<16} {"":<{width}}    control: {control}')
            if during != '-':
                self.t.log(f'       {"":<16} {"":<{width}}    during:  {during}')
        testable = [row for row in self.rows if not row[4].startswith(('untestable', 'absent'))]
        closed = [row for row in testable if row[4].startswith('closed')]
        untestable = len([row for row in self.rows if row[4].startswith('untestable')])
        absent = len(self.rows) - len(testable) - untestable
        summary = f'{len(closed)} of {len(testable)} closed'
        if untestable:
            summary += f' ({untestable} untestable here)'
        if absent:
            summary += f' ({absent} not in this shell version)'
        self.summary = summary
        # In assessments, a line of its own (scripts/test takes the last
        # `REDTEAM ` line as the suite's).
        prefix = 'REDTEAM'
        if self.participants:
            prefix = f'ASSESSMENT (participant {", ".join(self.participants)}) REDTEAM'
        self.t.log(f'{prefix} GNOME Shell {SHELL_MAJOR}: {summary}')
        bad = [row[1] for row in testable if not row[4].startswith('closed')]
        if bad:
            raise AssertionError(f'{summary}; not closed: {"; ".join(bad)}')
        return summary

    # -- what the person may still do ------------------------------------------

    def over_blocking(self):
        """During a session (nothing denied) the locked app works: typing,
        clicks, a popup menu, a second window, Alt+` between its windows, a
        dialog."""
        t = self.t
        self.undo()
        t.start_session('app-a')
        checks = []
        try:
            t.wait_locked()
            if not t.typed('app-a', 'q'):
                raise AssertionError('a typed key did not reach the locked app')
            checks.append('typing')
            a = t.window('app-a')
            before = t.clicks('app-a')
            t.js(f'global._ga.click({a["x"] + a["width"] // 2}, {a["y"] + a["height"] // 2})')
            wait_for(lambda: t.clicks('app-a') > before, 5, what='a click to reach the locked app')
            checks.append('clicks')
            x, y = a['x'] + a['width'] // 2, a['y'] + a['height'] // 2
            self.right_click(x, y)
            popup_shown = ('(() => { const {Meta} = imports.gi; const pid = global._ga.win("app-a").get_pid(); '
                           'return global.display.list_all_windows().some(w => w.get_pid() === pid && '
                           '[Meta.WindowType.POPUP_MENU, Meta.WindowType.DROPDOWN_MENU].includes(w.get_window_type()) '
                           '&& !w.minimized && w.get_compositor_private()?.visible); })()')
            wait_for(lambda: t.js(popup_shown), 5, what='its popup menu to show')
            t.js(f'global._ga.move({x + 30}, {y + 15})')
            time.sleep(0.15)  # the pointer enters the popup before it clicks
            t.js(f'global._ga.click({x + 30}, {y + 15})')
            wait_for(lambda: any(line.startswith('menu ') for line in open(t.apps['app-a'][1])), 5,
                     what='the popup menu item to be chosen')
            checks.append('a popup menu')
            t.js(chord('F5'))
            wait_for(lambda: (t.window('app-a 2') or {}).get('focused'), 5,
                     what='its second window (F5) to be focused')
            if t.window('app-a 2')['minimized']:
                raise AssertionError('the app\'s second window was minimized')
            checks.append('a second window')
            t.js(chord('Alt+grave'))
            wait_for(lambda: t.window('app-a')['focused'], 5, what='Alt+` to switch to its first window')
            checks.append('Alt+` between its windows')
            t.js(chord('F6'))
            wait_for(lambda: (t.window('app-a dialog') or {}).get('focused'), 5,
                     what='its dialog (F6) to be focused')
            t.js('global._ga.tap([], 0xff1b)')  # Escape closes the dialog
            wait_for(lambda: t.window('app-a dialog') is None, 5, what='its dialog to close with Escape')
            checks.append('a dialog')
        finally:
            if t.js('global._ga.win("app-a 2") !== null'):
                t.js('global._ga.win("app-a 2").delete(global.get_current_time())')
            if t.prop('Enabled'):
                t.end_session()
        t.wait_released()
        self.undo()
        return 'the locked app kept ' + ', '.join(checks)

    # -- the locked app goes away ----------------------------------------------

    def relaunch(self, closes=10):
        """Closing (alternately its close request and kill -9) brings the
        app back; the 4th time within a minute the shield goes up instead.
        Returns the relaunch times in ms."""
        t = self.t
        times = []
        try:
            for close in range(closes):
                if close % 3 == 0:
                    if t.prop('Enabled'):
                        t.end_session()
                        t.wait_released()
                    self.undo()
                    t.start_session('app-a')
                    t.wait_locked()
                times.append(self.close_and_wait_back(kill=close % 2 == 1))
            # The session of the 10th close has room for two more in its minute.
            while len(times) % 3 != 0:
                times.append(self.close_and_wait_back(kill=False))
            self.close_app(kill=True)
            wait_for(lambda: t.stage_has('guided-access-shield'), 5, what='the shield after the 4th close in a minute')
            time.sleep(2)
            if t.window('app-a') is not None:
                raise AssertionError('the app was launched a 4th time within a minute')
            t.end_session()
            wait_for(lambda: not t.stage_has('guided-access-shield'), 5, what='the shield to go after End')
        finally:
            if t.prop('Enabled'):
                t.end_session()
            t.wait_released()
            if t.window('app-a') is None:
                t.start_app('app-a')
        return times

    def close_app(self, kill):
        t = self.t
        pid = t.js('global._ga.win("app-a").get_pid()')
        if kill:
            os.kill(pid, signal.SIGKILL)
        else:
            t.js('global._ga.win("app-a").delete(global.get_current_time())')
        return pid

    def close_and_wait_back(self, kill):
        t = self.t
        started = time.monotonic()
        pid = self.close_app(kill)
        back = (f'(() => {{ const w = global._ga.win("app-a"); '
                f'return w !== null && w.get_pid() !== {pid} && global.display.focus_window === w; }})()')
        wait_for(lambda: t.js(back), 15, 0.01, what='the app to come back, focused')
        return (time.monotonic() - started) * 1000

    # -- the administrator's lock ----------------------------------------------

    def admin_lock(self):
        """docs/administrators.md's dconf lock, in a real system database: with it in force
        the locked app cannot turn the extension off at all (without it the
        red-team rows show it off until the daemon turns it back on)."""
        t = self.t
        t.root.ask('lock')
        key_writable = lambda key: t.js(  # noqa: E731
            f'imports.gi.Gio.Settings.new("org.gnome.shell").is_writable("{key}")')
        wait_for(lambda: not key_writable('disabled-extensions'), 5, what='the shell to see the lock')
        locked = [key for key in ('enabled-extensions', 'disabled-extensions', 'disable-user-extensions')
                  if not key_writable(key)]
        self.undo()
        t.start_session('app-a')
        try:
            t.wait_locked()
            for attempt in (self.disable_with_cli, self.disable_over_dbus):
                attempt()
                deadline = time.monotonic() + 2
                while time.monotonic() < deadline:
                    state = (t.js('global._ga.extensionState()') or {}).get('state')
                    if state != 1:
                        raise AssertionError(f'{attempt.__name__}: the extension left state 1 ({state}) '
                                             'with the administrator\'s lock in force')
                    time.sleep(0.05)
            if not t.locked_on_screen('app-b'):
                raise AssertionError('the lock is not on screen')
        finally:
            t.end_session()
        t.wait_released()
        return f'locked keys {", ".join(locked)}; gnome-extensions disable and DisableExtension changed nothing'

