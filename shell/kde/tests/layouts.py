# SPDX-License-Identifier: GPL-2.0-or-later
"""The monitor cases of shell/kde/tests/run --layouts: the KWin enforcer on
two monitors and at scales 2 and 1.25, each layout in its own headless
`kwin_wayland --virtual` (--output-count, --scale).

What they prove, as a person would see it: the other monitor is shielded (a
click on a panel there reaches nothing) and the shield follows the app to
the other monitor; disabled regions take the clicks exactly where they were
drawn, in logical pixels, on either monitor and at each scale; the start
and end dialogs, the time left, the warning and the time-up message lie
whole on the locked app's monitor (their painted extent, through
ScreenShot2; where KWin cannot capture, KWin's own windows in its window
list); `presentation` fills the app's monitor; and the red team's ways out
stay closed. Each beside its control (the same action without a session).

A mixin of run's Cases (it uses its KWin, probe, input and session
helpers): `class LayoutRun(LayoutCases, Cases)` there.
"""

import math
import os
import re
import subprocess
import time

from harness import log
from kwin import middle
from waiting import wait_for

# name → (outputs, scale). Every output is 1280x800 logical pixels: KWin's
# virtual backend makes each output --width x --height times --scale
# pixels (2560x1600 at scale 2), side by side from the left.
LAYOUTS = (
    ('two', 2, 1.0),
    ('scale2', 1, 2.0),
    ('scale1.25', 1, 1.25),
)
OUTPUT_WIDTH, OUTPUT_HEIGHT = 1280, 800
# LAYOUTS=NAME,...: only those layouts (scripts/test runs each scale in one
# KWin: each layout starts a KWin of its own, some 50 s of CI time).
CHOSEN_LAYOUTS = [name for name in os.environ.get('LAYOUTS', '').split(',') if name]


def rect(x, y, width, height):
    return {'x': x, 'y': y, 'width': width, 'height': height}


def as_rect(window):
    return rect(window['x'], window['y'], window['width'], window['height'])


def overlap(a, b):
    width = min(a['x'] + a['width'], b['x'] + b['width']) - max(a['x'], b['x'])
    height = min(a['y'] + a['height'], b['y'] + b['height']) - max(a['y'], b['y'])
    return max(0, width) * max(0, height)


def inside(inner, outer):
    return (inner['x'] >= outer['x'] and inner['y'] >= outer['y']
            and inner['x'] + inner['width'] <= outer['x'] + outer['width']
            and inner['y'] + inner['height'] <= outer['y'] + outer['height'])


def text(r):
    return f'{r["width"]}x{r["height"]} at {r["x"]},{r["y"]}' if r else 'nothing'


def bright_extent(before, after, mask=()):
    """The bounding box, in the image's pixels, of the pixels that differ
    between two captures of one area (width, height, stride, BGRA bytes) and
    are bright in AFTER (a channel ≥ 200: white text, a light dialog): what
    appeared that a person reads, outside the rectangles of MASK (image
    pixels). None when nothing did."""
    width, height, stride, pixels = after
    old = before[3]
    masked = [(max(0, m['x']), max(0, m['y']), min(width, m['x'] + m['width']), min(height, m['y'] + m['height']))
              for m in mask]
    try:
        import numpy
        a = numpy.frombuffer(pixels, dtype=numpy.uint8)[:height * stride].reshape(height, stride)[:, :width * 4]
        b = numpy.frombuffer(old, dtype=numpy.uint8)[:height * stride].reshape(height, stride)[:, :width * 4]
        a = a.reshape(height, width, 4)[:, :, :3]
        b = b.reshape(height, width, 4)[:, :, :3]
        hit = (a != b).any(axis=2) & (a.max(axis=2) >= 200)
        for left, top, right, bottom in masked:
            hit[top:bottom, left:right] = False
        rows, columns = numpy.nonzero(hit)
        if len(rows) == 0:
            return None
        return rect(int(columns.min()), int(rows.min()), int(columns.max() - columns.min() + 1),
                    int(rows.max() - rows.min() + 1))
    except ImportError:
        pass
    xs, ys = [], []
    for y in range(height):
        row, was = pixels[y * stride:y * stride + width * 4], old[y * stride:y * stride + width * 4]
        if row == was:
            continue
        for x in range(width):
            i = x * 4
            if row[i:i + 3] != was[i:i + 3] and max(row[i:i + 3]) >= 200 and \
                    not any(left <= x < right and top <= y < bottom for left, top, right, bottom in masked):
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return rect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


class LayoutCases:
    layout = None  # (name, outputs, scale) while a layout runs

    def run(self):
        return self.run_layouts()

    def write_output_config(self):
        """KWin 6 keeps each output's scale in kwinoutputconfig.json and, for
        an output it has not seen, picks one from its physical size: 1 for
        a virtual output, whatever --scale says (seen in 6.3: 2560x1600
        logical pixels at scale 1). So the layout's scale is written there
        first, as System Settings would have saved it; KWin 5.27 does not
        read the file."""
        import json
        _, count, scale = self.layout
        outputs = [{
            'connectorName': f'Virtual-{i}', 'mode': {'width': round(OUTPUT_WIDTH * scale),
                                                    'height': round(OUTPUT_HEIGHT * scale), 'refreshRate': 60000},
            'scale': scale, 'transform': 'Normal', 'overscan': 0, 'rgbRange': 'Automatic', 'vrrPolicy': 'Never',
            'highDynamicRange': False, 'sdrBrightness': 200, 'wideColorGamut': False, 'autoRotation': 'InTabletMode',
            'iccProfilePath': '', 'colorProfileSource': 'sRGB', 'brightness': 1, 'allowSdrSoftwareBrightness': True,
            'colorPowerTradeoff': 'PreferEfficiency'} for i in range(count)]
        setup = {'lidClosed': False, 'outputs': [
            {'enabled': True, 'outputIndex': i, 'position': {'x': i * OUTPUT_WIDTH, 'y': 0}, 'priority': i}
            for i in range(count)]}
        with open(f'{self.work}/config/kwinoutputconfig.json', 'w') as f:
            json.dump([{'name': 'outputs', 'data': outputs}, {'name': 'setups', 'data': [setup]}], f, indent=4)

    def kwin_layout_arguments(self):
        if self.layout is None:
            return []
        _, outputs, scale = self.layout
        return ['--output-count', str(outputs), '--scale', f'{scale:g}']

    # -- monitors --------------------------------------------------------------

    def outputs(self):
        return self.report().get('outputs') or []

    def desktop_rect(self):
        outputs = self.outputs()
        right = max(o['x'] + o['width'] for o in outputs)
        bottom = max(o['y'] + o['height'] for o in outputs)
        return rect(0, 0, right, bottom)

    def output_of(self, r):
        """The output with the largest part of R (as geometry.js decides)."""
        return max(self.outputs(), key=lambda o: overlap(o, r))

    def target_output(self):
        """Where the cases put the locked app: the last output (on two
        monitors the one that is not KWin's first, where a message placed on
        the whole desktop or the first monitor would be wrong)."""
        return self.outputs()[-1]

    def place(self, name, output, dx=100, dy=80):
        """Moves NAME's window to DX, DY inside OUTPUT (as a person drags
        it), keeping its size; waits until KWin reports it there."""
        x, y = output['x'] + dx, output['y'] + dy
        script = self.run_script(
            'const kwin6 = typeof workspace.windowList === "function";\n'
            'for (const w of kwin6 ? workspace.windowList() : workspace.clientList())\n'
            f'    if (w.caption === {name!r}) {{\n'
            '        const g = w.frameGeometry;\n'
            f'        w.frameGeometry = {{x: {x}, y: {y}, width: g.width, height: g.height}};\n'
            '    }\n')
        try:
            wait_for(lambda: (self.window(name) or {}).get('x') == x and self.window(name).get('y') == y, 5, 0.05,
                     f'{name} at {x},{y}')
        finally:
            self.unload_script(script)
        return as_rect(self.window(name))

    def whole_on(self, what, extent, area):
        """Fails unless EXTENT lies whole inside AREA (the app's monitor)
        and touches no other monitor."""
        if extent is None:
            raise AssertionError(f'{what}: nothing seen')
        if not inside(extent, area):
            raise AssertionError(f'{what} is {text(extent)}, not whole inside the app\'s monitor {text(area)}')
        others = [o for o in self.outputs() if o != area and overlap(o, extent)]
        if others:
            raise AssertionError(f'{what} ({text(extent)}) reaches the other monitor {text(others[0])}')

    def whole_screen(self):
        return self.capture(0, 0, 0, 0)

    def capture(self, *area):
        """screen_area, asked again while KWin has no ScreenShot2 for a
        moment: seen at scale 2 and 1.25, where KWin 5.27 sets up its
        compositing again during a session (its effects, the screenshot
        one among them, are loaded anew)."""
        def taken():
            try:
                return self.screen_area(*area)
            except self.dbus.DBusException as error:
                if error.get_dbus_name().endswith(('.UnknownObject', '.Cancelled', '.UnknownMethod')):
                    return None
                raise
        return wait_for(taken, 10, 0.2, 'a screenshot (ScreenShot2)')

    def shown_extent(self, before, match, mask=()):
        """What appeared on screen since BEFORE (a whole_screen() capture),
        in logical pixels: its bright pixels' bounding box (outside the
        rectangles of MASK: an app's window that moved); where KWin cannot
        capture, the place of KWin's own windows whose title MATCH accepts
        (the dialog, the pill, a message, as its window list has them).
        None when nothing appeared."""
        if self.capturing:
            now = self.whole_screen()
            # ScreenShot2 captures at the outputs' scale: logical pixels to
            # the image's and back.
            factor = now[0] / self.desktop_rect()['width']
            box = bright_extent(before, now, [rect(int(m['x'] * factor), int(m['y'] * factor),
                                                   math.ceil(m['width'] * factor), math.ceil(m['height'] * factor))
                                              for m in mask])
            if box is None:
                return None
            left, top = int(box['x'] / factor), int(box['y'] / factor)
            return rect(left, top, -(-(box['x'] + box['width']) // factor) - left,
                        -(-(box['y'] + box['height']) // factor) - top)
        shown = [as_rect(w) for w in self.report()['internal']
                 if w['opacity'] > 0 and not w['hidden'] and match(w['caption'])]
        if not shown:
            return None
        left, top = min(r['x'] for r in shown), min(r['y'] for r in shown)
        right = max(r['x'] + r['width'] for r in shown)
        bottom = max(r['y'] + r['height'] for r in shown)
        return rect(left, top, right - left, bottom - top)

    def reference(self):
        return self.whole_screen() if self.capturing else None

    def wait_extent(self, before, match, what, timeout=5):
        return wait_for(lambda: self.shown_extent(before, match), timeout, 0.2, what)

    def launch_dock(self, output):
        """A panel stand-in (dock.py) along the bottom of OUTPUT."""
        name = 'dock'
        log_path = f'{self.work}/logs/{name}.log'
        env = {**self.env, 'GDK_BACKEND': 'x11', 'DISPLAY': self.display, 'XAUTHORITY': self.xauthority}
        env.pop('WAYLAND_DISPLAY', None)
        process = subprocess.Popen(
            [f'{self.work}/bin/dock', f'{self.work}/source/dock.py', name, log_path, str(output['x']),
             str(output['y'] + output['height'] - 48), str(output['width']), '48'],
            env=env, stdout=open(f'{self.work}/logs/dock.out', 'a'), stderr=subprocess.STDOUT, start_new_session=True)
        self.remember_group(process.pid)
        self.apps[name] = (process, log_path)
        wait_for(lambda: self.window(name), 20, 0.1, 'the dock\'s window')
        wait_for(lambda: overlap(as_rect(self.window(name)), output) > 0, 5, 0.1, 'the dock on its monitor')
        return as_rect(self.window(name))

    # -- the cases ---------------------------------------------------------------

    def layout_shown(self):
        """KWin made the layout asked for: its outputs as the probe sees them."""
        name, count, scale = self.layout
        outputs = self.outputs()
        if len(outputs) != count:
            raise AssertionError(f'KWin shows {len(outputs)} output(s), not {count}: {outputs}')
        for output in outputs:
            if (output['width'], output['height']) != (OUTPUT_WIDTH, OUTPUT_HEIGHT):
                raise AssertionError(f'an output is {text(output)} logical pixels, not {OUTPUT_WIDTH}x{OUTPUT_HEIGHT}')
        # KWin's own account of its outputs (what System Settings' support
        # information shows): each one's scale.
        info = str(self.kwin_call('/KWin', 'org.kde.KWin', 'supportInformation', timeout=20))
        scales = [float(value) for value in re.findall(r'^Scale: *([0-9.]+)', info, re.M)]
        if scales and any(abs(found - scale) > 0.001 for found in scales):
            raise AssertionError(f'KWin says its outputs are at scale {scales}, not {scale:g}')
        pixels = ', '.join(f'{o["width"] * scale:g}x{o["height"] * scale:g}' for o in outputs)
        return (f'{len(outputs)} output(s) of 1280x800 logical pixels at scale '
                + (f'{", ".join(f"{found:g}" for found in scales)} (KWin\'s support information), {pixels} pixels: '
                   if scales else f'{scale:g} asked (KWin\'s support information names none): ')
                + ', '.join(text(o) for o in outputs))

    def other_monitor_shielded(self):
        """Two monitors: the app on the first, a panel on the second. Without
        a session a click reaches the panel; in the session the second
        monitor is dimmed and the click reaches nothing (the panel, app-a);
        app-b activated there bounces back. The app moved to the second
        monitor takes the shield's hole and the time left with it."""
        first, second = self.outputs()[0], self.outputs()[1]
        self.start_app('app-a')
        self.start_app('app-b')
        dock = self.launch_dock(second)
        try:
            a = self.place('app-a', first)
            self.place('app-b', second, 300, 200)
            on_dock = middle(dock)
            on_b = (second['x'] + 500, second['y'] + 300)
            self.activate('app-a')
            # (A newly mapped Xwayland window may lose the first clicks:
            # asked again, as redteam.py's override_redirect does.)
            for name, point in (('dock', on_dock), ('app-b', on_b)):
                try:
                    wait_for(lambda: self.click_reaches(name, point, 0.5), 10, 0.5, f'a click to reach {name}')
                except TimeoutError:
                    raise AssertionError(f'control: without a session a click at {point} did not reach {name} on the '
                                         f'second monitor ({text(as_rect(self.window(name)))})')
            self.activate('app-a')
            # A patch of the panel: it stays (the lock minimizes no panel),
            # under the shield's shade. (The desktop behind is black here.)
            patch = (dock['x'] + 40, dock['y'] + 8, 200, 32)
            plain = self.capture(*patch) if self.capturing else None
            before = self.reference()
            clicks_a = self.clicks('app-a')
            self.start_session('app-a', time_limit=3600)
            try:
                self.wait_locked(('app-b',))
                time.sleep(0.5)
                dimmed = self.dimmed(second, patch, plain)
                panel = self.click_reaches('dock', on_dock)
                b = self.click_reaches('app-b', on_b)
                self.activate_once('app-b')
                # (KWin 6.7 may then leave no window active rather than
                # app-a: what matters here is that app-b is not reachable.)
                wait_for(lambda: self.locked(('app-b',)) and self.active() in ('app-a', None), 5, 0.05,
                         'app-b minimized again, the focus not on it, after activating it')
                if self.clicks('app-a') != clicks_a:
                    raise AssertionError('a click on the second monitor reached app-a')
                if not self.click_reaches('app-a', middle(a)):
                    raise AssertionError('a click on app-a on its own monitor did not reach it')
                self.screenshot('kde-two-monitors')
                is_pill = (lambda caption: caption.endswith(' left'))
                pill_first = self.wait_extent(before, is_pill, 'the time left')
                # The app moved to the second monitor: the shield's hole and
                # the time left follow it; the first monitor is shielded now.
                moved = self.place('app-a', second)
                time.sleep(0.4)  # the shield follows within its 100 ms
                moved_click = self.click_reaches('app-a', middle(moved))
                left_click = self.click_reaches('app-a', middle(a))
                # What appeared outside app-a's old and new places: the pill.
                pill_moved = wait_for(
                    lambda: (lambda e: e if e and overlap(e, second) else None)(
                        self.shown_extent(before, is_pill, (a, moved))),
                    5, 0.2, 'the time left to move to the second monitor')
            finally:
                self.end_session()
            self.wait_released()
        finally:
            self.stop_app('dock')
        if panel or b:
            raise AssertionError(f'during the session a click on the second monitor reached {"the panel" if panel else "app-b"}')
        if not moved_click or left_click:
            raise AssertionError('after the move a click on app-a ' + ('did not reach it' if not moved_click else
                                 'at its old place on the first monitor still reached it'))
        self.whole_on('the time left', pill_first, first)
        self.whole_on('the time left after the move', pill_moved, second)
        self.way('a panel on the other monitor', 'closed')
        self.way('another app on the other monitor', 'closed')
        return (f'control: the panel and app-b took clicks; in the session the second monitor was {dimmed}, the '
                f'panel and app-b took no click, app-b bounced back; the time left at {text(pill_first)}; app-a moved '
                f'to the second monitor took clicks there and not at its old place, the time left followed to '
                f'{text(pill_moved)}')

    def dimmed(self, output, patch, plain):
        """How the monitor OUTPUT looks: a patch darker than before the
        session (captured), or KWin's shield windows covering it all."""
        if self.capturing:
            now = self.capture(*patch)
            brightness = sum(now[3][i] for i in range(0, len(now[3]), 4)) / max(1, len(now[3]) // 4)
            before = sum(plain[3][i] for i in range(0, len(plain[3]), 4)) / max(1, len(plain[3]) // 4)
            if not brightness < before * 0.5:
                raise AssertionError(f'the panel on the second monitor is not dimmed (brightness {before:.0f} → '
                                     f'{brightness:.0f})')
            return f'dimmed (the panel\'s brightness {before:.0f} → {brightness:.0f})'
        shields = [as_rect(w) for w in self.report()['internal']
                   if 'shield' in w['caption'] and w['opacity'] > 0 and not w['hidden']]
        covered = sum(overlap(s, output) for s in shields)
        if covered < output['width'] * output['height']:
            raise AssertionError(f'the shield covers {covered} of {output["width"] * output["height"]} px² of the '
                                 f'second monitor: {shields}')
        return 'covered by the shield\'s windows'

    def regions_on_monitors(self):
        """A disabled region over the left half of app-a, on each monitor:
        a click inside reaches nothing, one outside reaches app-a (control:
        both reach it without a session)."""
        self.start_app('app-a')
        self.start_app('app-b')
        done = []
        for output in self.outputs():
            a = self.place('app-a', output)
            self.activate('app-a')
            # Whole logical pixels, as a person draws a region (at scale
            # 1.25 KWin 6.7 gives the window a fractional height).
            a = {key: int(value) for key, value in a.items()}
            region = (a['x'], a['y'], a['width'] // 2, a['height'])
            inside_point = (a['x'] + a['width'] // 4, a['y'] + a['height'] // 2)
            outside_point = (a['x'] + 3 * a['width'] // 4, a['y'] + a['height'] // 2)
            # (Just moved: asked again while the app takes its new place.)
            try:
                wait_for(lambda: self.click_reaches('app-a', inside_point, 0.5), 5, 0.2, 'a click inside')
                wait_for(lambda: self.click_reaches('app-a', outside_point, 0.5), 5, 0.2, 'a click outside')
            except TimeoutError:
                raise AssertionError(f'control: clicks did not reach app-a on {text(output)} without a session')
            # The region's edges: a click 3 px inside its right edge is taken,
            # 3 px beyond it reaches the app (exactly where it was drawn).
            edge_in = (a['x'] + a['width'] // 2 - 3, a['y'] + a['height'] // 2)
            edge_out = (a['x'] + a['width'] // 2 + 3, a['y'] + a['height'] // 2)
            self.start_session('app-a', regions=[region])
            try:
                self.wait_locked(('app-b',))
                time.sleep(0.5)
                reached = {point: self.click_reaches('app-a', point)
                           for point in (inside_point, outside_point, edge_in, edge_out)}
            finally:
                self.end_session()
            self.wait_released()
            if reached[inside_point] or reached[edge_in]:
                raise AssertionError(f'a click inside the region {region} on {text(output)} reached the app')
            if not (reached[outside_point] and reached[edge_out]):
                raise AssertionError(f'a click outside the region {region} on {text(output)} did not reach the app')
            done.append(f'{region} on {text(output)}')
        return 'inside (and 3 px in from its edge) taken, outside (and 3 px beyond) reached: ' + '; '.join(done)

    def dialogs_on_app_monitor(self):
        """The start dialog (no session: the control) and the end dialog
        open whole on app-a's monitor, at their full width."""
        self.start_app('app-a')
        self.start_app('app-b')
        area = self.target_output()
        self.place('app-a', area)
        self.activate('app-a')
        time.sleep(0.3)
        is_dialog = (lambda caption: caption == 'Guided Access')
        before = self.reference()
        self.end_gesture()
        start = self.wait_extent(before, is_dialog, 'the start dialog')
        time.sleep(0.7)  # it asks the daemon for the app's id, and grows
        start = self.shown_extent(before, is_dialog)
        self.screenshot(f'kde-{self.layout[0]}-start-dialog')
        self.input.key('escape')
        wait_for(lambda: self.shown_extent(before, is_dialog) is None, 5, 0.2, 'the start dialog to close')
        self.whole_on('the start dialog', start, area)
        self.start_session('app-a')
        try:
            self.wait_locked(('app-b',))
            time.sleep(0.5)
            before = self.reference()
            self.end_gesture()
            self.wait_extent(before, is_dialog, 'the end dialog')
            time.sleep(0.5)
            end = self.shown_extent(before, is_dialog)
            self.whole_on('the end dialog', end, area)
            self.passcode_ends()
        finally:
            if self.prop('Enabled'):
                self.end_session()
        self.wait_released()
        # Readable: at its full width (420 logical pixels, drawn at the
        # output's scale), not squeezed. A capture sees the light body.
        for what, extent in (('start', start), ('end', end)):
            if extent['width'] < 300:
                raise AssertionError(f'the {what} dialog is {text(extent)}: narrower than its 420 px')
        return f'start dialog {text(start)}, end dialog {text(end)}, whole on app-a\'s monitor {text(area)}'

    def time_on_app_monitor(self):
        """The time left, the 10 s warning and the time-up message lie whole
        on app-a's monitor (control: none of them in a session without a
        limit); at time-up a click on app-a reaches nothing."""
        self.start_app('app-a')
        self.start_app('app-b')
        area = self.target_output()
        a = self.place('app-a', area)
        centre = middle(a)
        self.activate('app-a')
        is_pill = (lambda caption: caption.endswith(' left') and not caption.startswith('Guided Access'))
        is_warning = (lambda caption: caption.startswith('Guided Access: ') and caption.endswith(' left'))
        is_message = (lambda caption: caption.startswith('Time is up'))
        self.start_session('app-a')
        try:
            self.wait_locked(('app-b',))
            time.sleep(0.7)
            before = self.reference()
            time.sleep(0.5)
            # Control: nothing appears in a session without a limit.
            idle = self.shown_extent(before, lambda caption: is_pill(caption) or is_warning(caption) or is_message(caption))
        finally:
            self.end_session()
        self.wait_released()
        if idle is not None:
            raise AssertionError(f'control: in a session without a limit something appeared at {text(idle)}')
        self.activate('app-a')
        self.start_session('app-a', time_limit=13)
        try:
            self.wait_locked(('app-b',))
            pill = self.wait_extent(before, is_pill, 'the time left')
            # Captured, the warning is what appears beyond the pill's box.
            warning = wait_for(lambda: (lambda e: e if e and self.prop('TimeRemaining') <= 10
                                        and not (self.capturing and inside(e, pill)) else None)(
                self.shown_extent(before, lambda c: is_pill(c) or is_warning(c))), 8, 0.2, 'the 10 s warning')
            if not self.capturing:
                warning = self.shown_extent(before, is_warning) or warning
            wait_for(lambda: self.prop('State') == 'expired', 10, 0.1, 'State expired')
            time.sleep(0.6)
            message = self.wait_extent(before, is_message, 'the time-up message')
            self.screenshot(f'kde-{self.layout[0]}-expired')
            shielded = not self.click_reaches('app-a', centre)
        finally:
            self.end_session()
        self.wait_released()
        self.whole_on('the time left', pill, area)
        self.whole_on('the warning (with the time left)', warning, area)
        self.whole_on('the time-up message', message, area)
        if not shielded:
            raise AssertionError('at time-up a click reached app-a (no shield)')
        return (f'on app-a\'s monitor {text(area)}: the time left {text(pill)}, the warning '
                f'{text(warning)}, the time-up message {text(message)}; at time-up app-a took no click')

    def presentation_fills(self):
        """`presentation` fullscreen and maximized: app-a fills its monitor,
        and is back as it was after End (control: as-is leaves it)."""
        self.start_app('app-a')
        self.start_app('app-b')
        area = self.target_output()
        placed = self.place('app-a', area)
        self.activate('app-a')
        self.start_session('app-a', presentation='as-is')
        try:
            self.wait_locked(('app-b',))
            time.sleep(0.8)
            as_is = as_rect(self.window('app-a'))
        finally:
            self.end_session()
        self.wait_released()
        if as_is != placed:
            raise AssertionError(f'control: as-is moved app-a from {text(placed)} to {text(as_is)}')
        seen = {}
        for presentation in ('fullscreen', 'maximized'):
            self.activate('app-a')
            self.start_session('app-a', presentation=presentation)
            try:
                self.wait_locked(('app-b',))
                wait_for(lambda: as_rect(self.window('app-a')) == area, 5, 0.1, f'app-a {presentation} on {text(area)}')
                seen[presentation] = as_rect(self.window('app-a'))
                time.sleep(0.3)  # the shield's hole follows the window within 100 ms
                full = self.window('app-a').get('fullScreen')
                if (presentation == 'fullscreen') != bool(full):
                    raise AssertionError(f'app-a {presentation}: KWin says fullScreen is {full}')
                centre = middle(area)
                if not self.click_reaches('app-a', centre):
                    raise AssertionError(f'app-a {presentation}: a click in the middle of its monitor did not reach it')
            finally:
                self.end_session()
            self.wait_released()
            wait_for(lambda: as_rect(self.window('app-a')) == placed, 5, 0.1, f'app-a back at {text(placed)} after End')
        return (f'as-is left app-a at {text(placed)}; fullscreen and maximized filled its monitor '
                f'({text(seen["fullscreen"])}, {text(seen["maximized"])}) and took clicks there; back after End')

    # -- the run -----------------------------------------------------------------

    def layout_cases(self, name):
        cases = [('KWin shows the layout (outputs as the probe sees them)', self.layout_shown)]
        if name == 'two':
            cases.append(('the other monitor is shielded for the whole session: a click on a panel or app-b there '
                          'reaches nothing, app-b bounces back; the app moved to the other monitor takes the '
                          'shield\'s hole and the time left with it (control: the panel and app-b take clicks '
                          'without a session)', self.other_monitor_shielded))
        cases += [
            ('a disabled region on ' + ('each monitor' if name == 'two' else 'the monitor') + ' takes clicks exactly '
             'where drawn, in logical pixels (control: no session)', self.regions_on_monitors),
            ('the start and end dialogs open whole on the app\'s monitor (the start dialog is the control: no '
             'session)', self.dialogs_on_app_monitor),
            ('the time left, the 10 s warning and the time-up message lie whole on the app\'s monitor (control: '
             'nothing in a session without a limit)', self.time_on_app_monitor),
            ('presentation fullscreen and maximized fill the app\'s monitor, put back after End (control: as-is '
             'leaves it)', self.presentation_fills),
            ('red team: another app (activated, or shown again by another script), its new window and an Xwayland app are '
             'unreachable (control: reachable '
             'without a session)', self.other_apps_unreachable),
        ]
        if name == 'two':
            # Over both monitors: Xwayland's root window spans the desktop.
            cases.append(('red team: an X11 override-redirect window of another app over the locked app takes no '
                          'click (control: without a session it does)', self.override_redirect))
        return [(f'[{name}] {title}', function) for title, function in cases]

    def run_layouts(self):
        failed_layouts = 0
        totals = [0, 0]  # passed, failed: the closing line every suite prints
        chosen = os.environ.get('CASES')
        for layout in LAYOUTS:
            name = layout[0]
            if CHOSEN_LAYOUTS and name not in CHOSEN_LAYOUTS:
                continue
            cases = [(title, function) for title, function in self.layout_cases(name)
                     if not chosen or re.search(chosen, title)]
            if not cases:
                continue
            self.layout = layout
            self.results = []
            self.ways = {}
            started = time.monotonic()
            try:
                # services.py says it is ready with this file: not the last layout's.
                if os.path.exists(f'{self.work}/services.ready'):
                    os.unlink(f'{self.work}/services.ready')
                self.write_output_config()
                self.start()
            except Exception as error:
                log(f'FAIL [{name}] setup: {error}')
                self.results.append((f'[{name}] setup', False))
                cases = []
            for title, function in cases:
                self.case(title, function)
            self.stop()
            for app in list(self.apps):
                self.stop_app(app)
            failed = sum(1 for _, ok in self.results if not ok)
            closed = sum(1 for state in self.ways.values() if state == 'closed')
            self.red_team_tally(f' ({name})')
            log(f'NOTE layout {name} took {time.monotonic() - started:.0f} s (KWin started and stopped)')
            log(f'LAYOUT {name}: {len(self.results) - failed} passed, {failed} failed; red team {closed} of '
                f'{len(self.ways)} closed')
            failed_layouts += failed > 0
            totals[0] += len(self.results) - failed
            totals[1] += failed
        self.layout = None
        log(f'{totals[0]} passed, {totals[1]} failed')
        return 1 if failed_layouts else 0
