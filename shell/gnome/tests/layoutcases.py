# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's monitor layouts (run --layouts, mixed into run's
Cases): two monitors, HiDPI and fractional scaling, each case beside its
control.

The shell starts with two virtual monitors, a 1280×800 one and a 2560×1600
one, in mutter's logical layout (so stage coordinates, disabled regions
included, are logical pixels at any scale). Each layout is then applied
through org.gnome.Mutter.DisplayConfig, as GNOME Settings applies one:

    two        the 1280×800 one at scale 1 (primary, with the top bar) and,
               to its right, the 2560×1600 one at scale 2 (a laptop beside
               a HiDPI screen: both 1280×800 logical)
    scale2     the 2560×1600 one alone at scale 2
    scale1.25  the 2560×1600 one alone at scale 1.25 (2048×1280 logical)

A monitor switched off through DisplayConfig during a session stands for
one unplugged (mutter reports both the same way: monitors-changed, and the
windows moved to the monitors left).

Each layout prints `LAYOUT name: N passed, M failed; red team X of Y
closed` (the red team's pointer, gesture and other-process ways, on two
monitors: the keyboard's do not depend on the layout and run in the
one-monitor suite).
"""

import os
import time

from harness import PASSCODE, log
from shellinfo import END_SHORTCUT
from waiting import wait_for

LAYOUT_MONITORS = ('1280x800', '2560x1600')

# name → [(x, y, scale, the monitor's size)], the first one primary.
LAYOUTS = {
    'two': [(0, 0, 1.0, (1280, 800)), (1280, 0, 2.0, (2560, 1600))],
    'scale2': [(0, 0, 2.0, (2560, 1600))],
    'scale1.25': [(0, 0, 1.25, (2560, 1600))],
}

HELPERS = r"""
(function () {
    const ga = global._ga;
    const Main = global._gaShell.Main;
    const plain = r => ({x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width),
                         height: Math.round(r.height)});
    ga.monitors = () => Main.layoutManager.monitors.map(plain);
    ga.extents = actor => {
        const box = actor.get_transformed_extents();
        return plain({x: box.origin.x, y: box.origin.y, width: box.size.width, height: box.size.height});
    };
    // The visible box of the open modal dialog (end dialog, start sheet), or null.
    ga.dialogBox = () => {
        const dialog = Main.layoutManager.modalDialogGroup.get_children().find(a => a.visible);
        return dialog ? ga.extents(dialog.dialogLayout) : null;
    };
    ga.namedExtents = name => {
        const actor = ga.find(global.stage, name);
        return actor && actor.mapped && actor.has_allocation() ? ga.extents(actor) : null;
    };
    // The name of the reactive actor a click at x, y would reach ('' for a window).
    ga.pickedAt = (x, y) => global.stage.get_actor_at_pos(imports.gi.Clutter.PickMode.REACTIVE, x, y)?.name ?? '';
    ga.toMonitor = (title, index) => ga.win(title).move_to_monitor(index);
    ga.monitorOf = title => ga.win(title).get_monitor();
    return true;
})()
"""


def inside(box, rect):
    return (box is not None and box['x'] >= rect['x'] and box['y'] >= rect['y']
            and box['x'] + box['width'] <= rect['x'] + rect['width']
            and box['y'] + box['height'] <= rect['y'] + rect['height'])


def centre(rect):
    return rect['x'] + rect['width'] // 2, rect['y'] + rect['height'] // 2


class LayoutCases:
    def run_layouts(self):
        self.js(HELPERS)
        self.case('extension enables; daemon knows it as enforcer', self.enable_extension)
        self.start_app('app-a')
        self.start_app('app-b')
        rows = []
        for name in LAYOUTS:
            first = len(self.results)
            self.layout = name
            self.red_team_summary = '-'
            self.case(f'[{name}] layout applied: the monitors as DisplayConfig was asked',
                      lambda name=name: self.apply_layout(name))
            self.case(f'[{name}] the app\'s monitor open, every other one shielded; another app unreachable '
                      f'(control: reachable without a session)', self.other_monitors_shielded)
            self.case(f'[{name}] a disabled region on each monitor swallows clicks where it was drawn, '
                      f'one outside reaches the app (control: no session)', self.regions_on_each_monitor)
            self.case(f'[{name}] the end dialog opens whole on the app\'s monitor (the pointer on another, if any)',
                      self.end_dialog_on_app_monitor)
            self.case(f'[{name}] the start sheet opens whole on the app\'s monitor', self.sheet_on_app_monitor)
            self.case(f'[{name}] the time left and the time-up message show whole on the app\'s monitor',
                      self.time_on_app_monitor)
            self.case(f'[{name}] a full-screen presentation fills the app\'s monitor', self.fullscreen_fills_monitor)
            if len(LAYOUTS[name]) > 1:
                self.case(f'[{name}] the app moved to the other monitor: the shield follows',
                          self.shield_follows_app)
                self.case(f'[{name}] a monitor switched off and on during a session: every monitor stays locked',
                          self.monitor_unplugged)
                self.case(f'[{name}] red team on two monitors: the pointer, gesture and other-process ways',
                          self.red_team_two_monitors)
            results = self.results[first:]
            failed = len([ok for _, ok in results if not ok])
            rows.append(f'LAYOUT {name}: {len(results) - failed} passed, {failed} failed; '
                        f'red team {self.red_team_summary}')
        self.hold()
        self.stop()
        for row in rows:
            log(row)
        return self.summary()

    # -- the layout ------------------------------------------------------------

    def display_config(self):
        return self.dbus.Interface(
            self.bus.get_object('org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig',
                                introspect=False), 'org.gnome.Mutter.DisplayConfig')

    def apply_monitors(self, placed):
        """placed: [(x, y, scale, (width, height))], the first one primary;
        the monitors not named are switched off."""
        dbus = self.dbus
        config = self.display_config()
        serial, monitors, _, _ = config.GetCurrentState(timeout=10)
        by_size = {}
        for (connector, *_), modes, _ in monitors:
            for mode in modes:
                by_size[(int(mode[1]), int(mode[2]))] = (str(connector), str(mode[0]))
        logical = []
        for index, (x, y, scale, size) in enumerate(placed):
            connector, mode = by_size[size]
            logical.append(dbus.Struct((dbus.Int32(x), dbus.Int32(y), dbus.Double(scale), dbus.UInt32(0),
                                        dbus.Boolean(index == 0),
                                        dbus.Array([dbus.Struct((connector, mode, dbus.Dictionary({}, 'sv')))],
                                                   '(ssa{sv})')), signature=None))
        config.ApplyMonitorsConfig(serial, dbus.UInt32(1), dbus.Array(logical, '(iiduba(ssa{sv}))'),
                                   dbus.Dictionary({}, 'sv'), timeout=10)
        expected = [{'x': x, 'y': y, 'width': round(size[0] / scale), 'height': round(size[1] / scale)}
                    for x, y, scale, size in placed]
        wait_for(lambda: self.js('global._ga.monitors()') == expected, 10,
                 what=f'the monitors to be {expected}')
        return expected

    def apply_layout(self, name):
        self.monitors = self.apply_monitors(LAYOUTS[name])
        for app in ('app-a', 'app-b'):
            self.js(f'global._ga.toMonitor("{app}", 0)')
        self.park_pointer_on(0)
        self.activate('app-a')
        return ', '.join(f'{m["width"]}×{m["height"]} at {m["x"]},{m["y"]} (scale {scale})'
                         for m, (_, _, scale, _) in zip(self.monitors, LAYOUTS[name]))

    def park_pointer_on(self, index):
        x, y = centre(self.monitors[index])
        self.js(f'global._ga.move({x}, {y})')
        time.sleep(0.1)

    def place(self, app, index):
        """Puts `app`'s window on monitor `index`, gives it the focus and
        waits until it has settled there: a window moved to a monitor of
        another scale is drawn again at that scale, and a click before that
        may reach nothing."""
        self.js(f'global._ga.toMonitor("{app}", {index})')
        wait_for(lambda: self.js(f'global._ga.monitorOf("{app}")') == index, 5, what=f'{app} on monitor {index}')
        self.activate(app)
        seen = []

        def settled():
            seen.append(self.window(app))
            return len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]
        wait_for(settled, 5, 0.15, what=f'{app} to settle on monitor {index}')
        x, y = centre(seen[-1])
        self.js(f'global._ga.move({x}, {y})')
        time.sleep(0.2)

    @property
    def last(self):
        """The last monitor's index: the other one with two, the only one else."""
        return len(self.monitors) - 1

    def shields(self):
        """The monitors (as rects) a click lands on a monitor shield at the centre of."""
        return [m for m in self.monitors if self.js(f'global._ga.pickedAt({centre(m)[0]}, {centre(m)[1]})')
                == 'guided-access-monitor-shield']

    def clicked(self, app, point, timeout=1.5):
        before = self.clicks(app)
        self.js(f'global._ga.click({point[0]}, {point[1]})')
        try:
            wait_for(lambda: self.clicks(app) > before, timeout, what=f'the click to reach {app}')
            return True
        except TimeoutError:
            return False

    # -- cases -----------------------------------------------------------------

    def other_monitors_shielded(self):
        """app-a on the last monitor, app-b on the first: without a session
        a click reaches app-b; during one app-b is minimized, every monitor
        without app-a is dimmed and takes the clicks, app-a's is not."""
        self.place('app-b', 0)
        self.place('app-a', self.last)
        b = self.window('app-b')
        spot = (b['x'] + b['width'] // 2, b['y'] + b['height'] // 2)
        self.activate('app-b')
        if not self.clicked('app-b', spot):
            raise AssertionError('control: a click did not reach app-b without a session')
        if self.shields():
            raise AssertionError('control: a monitor is shielded without a session')
        self.activate('app-a')
        self.start_session('app-a')
        try:
            self.wait_locked()
            expected = self.monitors[:-1]
            wait_for(lambda: self.shields() == expected, 5, what=f'shields on {expected}')
            reached = self.clicked('app-b', spot, timeout=1)
            a_point = centre(self.window('app-a'))
            a_reached = self.clicked('app-a', a_point)
        finally:
            self.end_session()
        self.wait_released()
        wait_for(lambda: not self.shields(), 5, what='the shields to go after End')
        if reached:
            raise AssertionError('a click on the other monitor reached app-b')
        if not a_reached:
            raise AssertionError('a click on app-a\'s own monitor did not reach it')
        return f'{len(expected)} monitor(s) shielded, app-a on {self.monitors[-1]} reachable'

    def regions_on_each_monitor(self):
        checked = []
        for index in range(len(self.monitors)):
            self.place('app-a', index)
            checked.append(f'monitor {index}: {self.disabled_region()}')
        return '; '.join(checked)

    def dialog_on(self, index, what):
        wait_for(lambda: self.js('global._ga.dialogBox()'), 5, what=what)
        # The dialog fades in and is laid out over a frame or two.
        time.sleep(0.3)
        box = self.js('global._ga.dialogBox()')
        if not inside(box, self.monitors[index]):
            raise AssertionError(f'{what} at {box}, not inside monitor {index} {self.monitors[index]}')
        return box

    def end_dialog_on_app_monitor(self):
        self.place('app-a', self.last)
        self.start_session('app-a')
        try:
            self.wait_locked()
            self.park_pointer_on(0)
            self.js('; '.join([END_SHORTCUT] * 3))
            wait_for(lambda: self.stage_has('guided-access-passcode'), 5, what='the end dialog')
            box = self.dialog_on(self.last, 'the end dialog')
            self.type_text(PASSCODE)
            wait_for(lambda: not self.prop('Enabled'), 10, what='the passcode to end the session')
        finally:
            if self.prop('Enabled'):
                self.end_session()
        self.wait_released()
        return f'dialog {box["width"]}×{box["height"]} at {box["x"]},{box["y"]}'

    def sheet_on_app_monitor(self):
        self.place('app-a', self.last)
        self.park_pointer_on(0)
        self.sheet.open_sheet('app-a')
        try:
            box = self.dialog_on(self.last, 'the start sheet')
        finally:
            self.js('global._ga.closeSheet()')
            self.sheet.wait_closed()
        return f'sheet {box["width"]}×{box["height"]} at {box["x"]},{box["y"]}'

    def time_on_app_monitor(self):
        self.place('app-a', self.last)
        monitor = self.monitors[self.last]
        beside_bar = self.last != 0  # the first monitor is primary: the top bar shows the time there
        self.start_session('app-a', time_limit=4)
        try:
            self.wait_locked()
            if beside_bar:
                pill = wait_for(lambda: self.js('global._ga.namedExtents("guided-access-time-pill")'), 5,
                                what='the time left beside the app')
                top_right = (pill['x'] + pill['width'] >= monitor['x'] + monitor['width'] - 48
                             and pill['y'] <= monitor['y'] + 48)
                if not inside(pill, monitor) or not top_right:
                    raise AssertionError(f'the time left at {pill}, not at the top right of {monitor}')
            elif self.js('global._ga.namedExtents("guided-access-time-pill")'):
                raise AssertionError('a second time left on the monitor with the top bar')
            wait_for(lambda: self.prop('State') == 'expired', 10, what='State expired')
            message = wait_for(lambda: self.js('global._ga.namedExtents("guided-access-shield-message")'), 5,
                               what='the time-up message')
            label = self.js('global._ga.extents(global._ga.find(global.stage, "guided-access-shield-message")'
                            '.get_child())')
            if not inside(label, monitor):
                raise AssertionError(f'the time-up message at {label}, not inside {monitor}')
        finally:
            self.end_session()
        self.wait_released()
        return (f'time left {"at " + str(pill) if beside_bar else "in the top bar"}; '
                f'message {label["width"]}×{label["height"]} inside {message}')

    def fullscreen_fills_monitor(self):
        self.place('app-a', self.last)
        monitor = self.monitors[self.last]
        before = self.window('app-a')
        self.start_session('app-a', presentation='fullscreen')
        try:
            self.wait_locked()
            geometry = ('x', 'y', 'width', 'height')
            wait_for(lambda: {k: self.window('app-a')[k] for k in geometry} == monitor, 5,
                     what=f'app-a filling {monitor}')
        finally:
            self.end_session()
        self.wait_released()
        wait_for(lambda: all(self.window('app-a')[k] == before[k] for k in geometry), 5,
                 what='app-a back where it was')
        return f'{monitor["width"]}×{monitor["height"]} at {monitor["x"]},{monitor["y"]}'

    def shield_follows_app(self):
        self.place('app-a', 0)
        self.start_session('app-a')
        try:
            self.wait_locked()
            wait_for(lambda: self.shields() == [self.monitors[1]], 5, what='the shield on monitor 1')
            # As the app itself would move its window (a window has no say
            # on Wayland; mutter moves it for it).
            self.js('global._ga.toMonitor("app-a", 1)')
            wait_for(lambda: self.shields() == [self.monitors[0]], 5, what='the shield moved to monitor 0')
            reached = self.clicked('app-a', centre(self.window('app-a')))
        finally:
            self.end_session()
        self.wait_released()
        if not reached:
            raise AssertionError('app-a did not get a click on its new monitor')
        return 'shield moved from monitor 1 to monitor 0; app-a reachable on monitor 1'

    def monitor_unplugged(self):
        self.place('app-a', 0)
        self.start_session('app-a')
        try:
            self.wait_locked()
            wait_for(lambda: self.shields() == [self.monitors[1]], 5, what='the shield on monitor 1')
            self.monitors = self.apply_monitors(LAYOUTS[self.layout][:1])
            wait_for(lambda: not self.js('global._ga.namedExtents("guided-access-monitor-shield")'), 5,
                     what='no monitor shield left over with one monitor')
            if not self.locked_on_screen('app-b'):
                raise AssertionError('app-b came back when a monitor went')
            self.monitors = self.apply_monitors(LAYOUTS[self.layout])
            wait_for(lambda: self.shields() == [self.monitors[1]], 5, what='the added monitor shielded')
            b_back = not self.window('app-b')['minimized']
        finally:
            self.end_session()
        self.wait_released()
        if b_back:
            raise AssertionError('app-b came back when a monitor was added')
        return 'one monitor: no shield left; added again: shielded at once; app-b minimized throughout'

    def red_team_two_monitors(self):
        self.place('app-a', 0)
        try:
            summary = self.redteam.run(kinds=('pointer', 'gesture', 'other processes'),
                                       other_monitor=self.monitors[1])
        finally:
            self.red_team_summary = getattr(self.redteam, 'summary', 'not run').split(' (')[0]
        if os.environ.get('SCREENSHOTS'):
            # app-a on the HiDPI monitor with a region over a part of it;
            # the first monitor shielded.
            self.place('app-a', 1)
            a = self.window('app-a')
            self.start_session('app-a', regions=[(a['x'], a['y'], a['width'] // 2, a['height'] // 2)], time_limit=3600)
            try:
                self.wait_locked(regions=1)
                self.set_outlines(True)
                time.sleep(0.5)
                self.screenshot('gnome-two-monitors')
                self.set_outlines(False)
            finally:
                self.end_session()
            self.wait_released()
        return summary
