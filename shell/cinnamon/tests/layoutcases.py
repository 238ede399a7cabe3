# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's monitor layouts (run --layouts, mixed into run's
Cases): Cinnamon on Xorg's dummy driver with two outputs side by side,
arranged with xrandr as a person's display settings would. Each case beside
its control: the monitor without the app dimmed and taking the clicks, the
end dialog and the time left on the app's monitor, the shield following
the app to the other monitor. One LAYOUT line per layout."""

import re
import subprocess
import time

from harness import log
from waiting import wait_for

# The layouts: how many monitors, side by side (each at the mode muffin
# picks for it, as for a new screen).
LAYOUTS = {'two': 2}

LAYOUT_HELPERS = r"""
(function () {
    const Main = imports.ui.main;
    const ga = global._ga;
    // Where each button press lands in Cinnamon (the name of the actor
    // picked), for the clicks the X server gives Cinnamon and not a window.
    ga.presses = [];
    global.stage.connect('captured-event', (stage, event) => {
        if (event.type() === imports.gi.Clutter.EventType.BUTTON_PRESS)
            ga.presses.push(event.get_source().name || event.get_source().toString());
        return imports.gi.Clutter.EVENT_PROPAGATE;
    });
    // The rect of the shown actor called `name` (its first, in stage
    // coordinates), or null.
    ga.placed = name => {
        const actor = ga.find(Main.uiGroup, name);
        if (actor === null || !actor.mapped)
            return null;
        const [x, y] = actor.get_transformed_position();
        const [width, height] = actor.get_transformed_size();
        return [x, y, width, height];
    };
    ga.monitors = () => Main.layoutManager.monitors.map(m => [m.x, m.y, m.width, m.height]);
    ga.shields = () => {
        const found = [];
        const walk = actor => {
            if (actor.name === 'guided-access-monitor-shield' && actor.mapped)
                found.push([actor.x, actor.y, actor.width, actor.height]);
            actor.get_children().forEach(walk);
        };
        walk(Main.uiGroup);
        return found.sort();
    };
    ga.dialogRect = () => {
        const dialog = Main.uiGroup.get_children().find(a => a.accessible_name === 'End Guided Access' && a.visible);
        const box = dialog ? ga.find(dialog, 'guided-access-passcode') : null;
        if (box === null)
            return null;
        const [x, y] = box.get_transformed_position();
        return [x, y, box.width, box.height];
    };
    return true;
})()
"""


def inside(box, rect):
    """Whether BOX (x, y, width, height) lies whole in RECT."""
    x, y, width, height = box
    left, top, rect_width, rect_height = rect
    return left <= x and top <= y and x + width <= left + rect_width and y + height <= top + rect_height


def centre(rect):
    return rect[0] + rect[2] // 2, rect[1] + rect[3] // 2


class LayoutCases:
    def run_layouts(self):
        try:
            self.start(monitors=2)
        except Exception as error:
            log(f'FAIL setup: {error}')
            self.stop()
            return 1
        self.js(LAYOUT_HELPERS)
        self.case('extension enables at Cinnamon\'s start; the daemon lists "cinnamon" in Enforcers; guided-access '
                  'status names it', self.enforcer_registered)
        rows = []
        for name, count in LAYOUTS.items():
            first = len(self.results)
            self.case(f'[{name}] layout applied: Cinnamon has the X server\'s {count} monitors, side by side',
                      lambda count=count: self.layout_applied(count))
            self.case(f'[{name}] the app\'s monitor open, the other dimmed and taking every click (control: without a '
                      'session a click there reaches the other app)', self.other_monitor_shielded)
            self.case(f'[{name}] the end dialog opens whole on the app\'s monitor, the pointer on the other',
                      self.end_dialog_on_app_monitor)
            self.case(f'[{name}] the time left shows whole at the top right of the app\'s monitor',
                      self.time_on_app_monitor)
            self.case(f'[{name}] the app moved to the other monitor: the shield follows', self.shield_follows_app)
            results = self.results[first:]
            failed = len([ok for _, ok in results if not ok])
            rows.append(f'LAYOUT {name}: {len(results) - failed} passed, {failed} failed; red team -')
        self.stop()
        log(f'NOTE Cinnamon {getattr(self, "version", "?")} on Xorg\'s dummy driver')
        for row in rows:
            log(row)
        return self.summary()

    def layout_applied(self, count):
        """Cinnamon's monitors are the X server's (RandR's, as xrandr lists
        them), COUNT of them in a row from the left."""
        def randr():
            listed = subprocess.run(['xrandr', '--listmonitors'], env=self.env, capture_output=True, text=True,
                                    timeout=20, check=True).stdout
            # " 0: +*DUMMY0 1368/361x768/203+0+0  DUMMY0"
            return sorted([int(w), int(h), int(x), int(y)] for w, h, x, y in
                          re.findall(r'(\d+)/\d+x(\d+)/\d+\+(\d+)\+(\d+)', listed))
        server = randr()
        monitors = wait_for(lambda: self.js('global._ga.monitors()'), 5, 0.1, 'Cinnamon\'s monitors')
        ours = sorted([w, h, x, y] for x, y, w, h in monitors)
        in_a_row = all(m[1] == 0 and m[0] == sum(n[2] for n in monitors[:i]) for i, m in enumerate(monitors))
        if ours != server or len(monitors) != count or not in_a_row:
            raise AssertionError(f'Cinnamon has the monitors {monitors}; RandR has (width, height, x, y) {server}')
        return f'monitors {monitors}, as RandR has them'

    def place(self, name, index):
        """NAME's window moved to monitor INDEX (as a person drags it there),
        with the focus."""
        if self.window(name) is None:
            self.start_app(name)
        self.js(f'global._ga.win("{name}").move_to_monitor({index})')
        monitor = self.js('global._ga.monitors()')[index]
        wait_for(lambda: inside(self.rect(name), monitor), 5, 0.1, f'{name} on monitor {index}')
        self.activate(name)

    def rect(self, name):
        window = self.window(name)
        return window['x'], window['y'], window['width'], window['height']

    def locked_on(self, index):
        """app-a on monitor INDEX, app-b on the other, and a session."""
        self.place('app-b', 1 - index)
        self.place('app-a', index)
        self.start_session('app-a')
        wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')

    def other_monitor_shielded(self):
        monitors = self.js('global._ga.monitors()')
        self.place('app-b', 0)
        self.place('app-a', 1)
        if not self.click_reaches('app-b', *centre(self.rect('app-b'))):
            raise AssertionError('control: without a session a click on app-b did not reach it')
        if self.js('global._ga.shields()'):
            raise AssertionError('control: a monitor shield without a session')
        self.start_session('app-a')
        try:
            wait_for(lambda: self.window('app-b')['minimized'], 5, what='the lock')
            shields = wait_for(lambda: self.js('global._ga.shields()'), 5, 0.1, 'the monitor shield')
            if shields != [monitors[0]]:
                raise AssertionError(f'shields over {shields}, not over the monitor without the app {monitors[0]}')
            self.js('global._ga.presses = []')
            self.xdotool('mousemove', *map(str, centre(monitors[0])), 'click', '1')
            pressed = wait_for(lambda: self.js('global._ga.presses'), 2, 0.05, 'the click to reach Cinnamon')
            if pressed[-1] != 'guided-access-monitor-shield':
                raise AssertionError(f'a click on the shielded monitor landed on {pressed}')
            app_clicked = self.click_reaches('app-a', *centre(self.rect('app-a')))
        finally:
            self.end_session()
        if not app_clicked:
            raise AssertionError('a click on app-a on its monitor did not reach it')
        wait_for(lambda: not self.js('global._ga.shields()'), 5, 0.1, 'the shield gone after End')
        return (f'without a session a click reached app-b on monitor 0; during one the shield covered {shields[0]} and '
                'took the click there, app-a took its own; gone after End')

    def end_dialog_on_app_monitor(self):
        monitors = self.js('global._ga.monitors()')
        self.locked_on(1)
        try:
            self.xdotool('mousemove', *map(str, centre(monitors[0])))
            self.gesture()
            placed = wait_for(lambda: self.js('global._ga.dialogRect()'), 5, 0.05, 'the end dialog')
            time.sleep(0.3)  # its fade-in
            placed = self.js('global._ga.dialogRect()')
            if not inside(placed, monitors[1]):
                raise AssertionError(f'the dialog\'s passcode field at {placed} is not on app-a\'s monitor {monitors[1]}')
            self.type_passcode()
        finally:
            if self.prop('Enabled'):
                self.end_session()
        return f'the pointer on monitor 0, the dialog\'s passcode field at {placed} on monitor 1'

    def time_on_app_monitor(self):
        monitors = self.js('global._ga.monitors()')
        self.place('app-b', 0)
        self.place('app-a', 1)
        self.start_session('app-a', time_limit=60)
        try:
            x, y, width, height = monitors[1]
            seen = []

            def top_right():
                # Shown, it is placed at the next frame: until then it reads as at 0,0.
                seen.append(self.js('global._ga.placed("guided-access-time-pill")'))
                pill = seen[-1]
                return pill is not None and inside(pill, monitors[1]) and pill[0] + pill[2] >= x + width - 40 \
                    and pill[1] <= y + 40 and pill
            try:
                pill = wait_for(top_right, 5, 0.1, 'the time left at the top right of app-a\'s monitor')
            except TimeoutError:
                raise AssertionError(f'the time left at {seen[-1]}, not at the top right of app-a\'s monitor '
                                     f'{monitors[1]}') from None
        finally:
            self.end_session()
        return f'the time left at {pill}, at the top right of monitor 1 with app-a'

    def shield_follows_app(self):
        monitors = self.js('global._ga.monitors()')
        self.locked_on(1)
        try:
            wait_for(lambda: self.js('global._ga.shields()') == [monitors[0]], 5, 0.1, 'the shield on monitor 0')
            self.js('global._ga.win("app-a").move_to_monitor(0)')
            wait_for(lambda: self.js('global._ga.shields()') == [monitors[1]], 5, 0.1,
                     'the shield moved to monitor 1 after app-a moved to monitor 0')
        finally:
            self.end_session()
        return 'the shield over monitor 0, then over monitor 1 once app-a moved to monitor 0'
