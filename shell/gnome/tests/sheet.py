# SPDX-License-Identifier: GPL-2.0-or-later
"""The start sheet's cases for shell/gnome/tests/run: what a person does to
start Guided Access without a terminal, done with the virtual pointer and
keyboard on the real shell, each beside its control. The sheet's widgets are
found by their accessible names, as assistive technology finds them."""
import os
import signal
import shutil
import time

from atspi import Accessibility
from harness import CONTRACT
from shellinfo import UUID
from waiting import wait_for

# Helpers defined in the shell once, on top of gnomeshell.py's SHELL_HELPERS.
SHEET_HELPERS = r"""
(function () {
    const {Clutter, GLib} = imports.gi;
    const Main = global._gaShell.Main;
    const ga = global._ga;
    const now = () => GLib.get_monotonic_time();
    const OPENED = 0, CLOSED = 1;
    const descendants = actor => [actor, ...actor.get_children().flatMap(descendants)];
    Object.assign(ga, {
        sheet() {
            return Main.layoutManager.modalDialogGroup.get_children()
                .find(d => d.accessible_name === 'Start Guided Access' && d.state === OPENED) ?? null;
        },
        // The sheet's widget called `name` (its accessible name), or null.
        named(name) {
            const sheet = ga.sheet();
            return sheet && (descendants(sheet).find(a => a.mapped && a.accessible_name === name) ?? null);
        },
        namedLike(prefix) {
            const sheet = ga.sheet();
            return sheet ? descendants(sheet).filter(a => a.accessible_name?.startsWith(prefix))
                .map(a => a.accessible_name) : [];
        },
        buttons() {
            const sheet = ga.sheet();
            return sheet ? descendants(sheet).filter(a => a.mapped && a.label).map(a => a.label) : [];
        },
        checked(name) {
            const widget = ga.named(name);
            return widget.get_accessible().ref_state_set().contains_state(imports.gi.Atk.StateType.CHECKED);
        },
        message() {
            const sheet = ga.sheet();
            return sheet && (descendants(sheet).find(a => a.has_style_class_name?.('prompt-dialog-error-label'))
                ?.text ?? null);
        },
        focused() {
            return global.stage.get_key_focus()?.accessible_name ?? global.stage.get_key_focus()?.label ?? null;
        },
        focus(name) {
            ga.named(name).grab_key_focus();
        },
        dragging() {
            return global.stage.get_grab_actor?.()?.name === 'guided-access-preview';
        },
        closeSheet() {
            ga.sheet()?.close();
        },
        // Clicks the sheet's button `label`; false (no click) while it is
        // not laid out yet: on GNOME 48 a dialog opened without animations
        // is OPENED before its first allocation, and its buttons' position
        // is NaN until then (a pointer moved there has no monitor: mutter
        // aborts at the next window it places).
        clickButton(label) {
            const sheet = ga.sheet();
            const button = sheet && descendants(sheet).find(a => a.mapped && a.label === label);
            if (!button)
                return false;
            const [x, y] = button.get_transformed_position();
            if (!Number.isFinite(x) || !Number.isFinite(y) || !button.has_allocation())
                return false;
            ga.click(x + button.width / 2, y + button.height / 2);
            return true;
        },
        // Presses the sheet's button `label` at once, as its click does
        // (the click itself comes through the shell's event queue later).
        pressButton(label) {
            descendants(ga.sheet()).find(a => a.label === label).emit('clicked', 1);
        },
        // Where the preview is on the stage and how much smaller than the monitor.
        preview() {
            const preview = ga.find(ga.sheet(), 'guided-access-preview');
            const [x, y] = preview.get_transformed_position();
            const monitor = Main.layoutManager.primaryMonitor;
            return {x, y, width: preview.width, height: preview.height, scale: preview.width / monitor.width,
                    monitorX: monitor.x, monitorY: monitor.y};
        },
        drag(x0, y0, x1, y1) {
            if (![x0, y0, x1, y1].every(Number.isFinite))
                throw new Error(`drag ${x0}, ${y0} → ${x1}, ${y1}`);
            const pointer = ga.pointer;
            pointer.notify_absolute_motion(now(), x0, y0);
            pointer.notify_button(now(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
            for (let step = 1; step <= 10; step++)
                pointer.notify_absolute_motion(now(), x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10);
            pointer.notify_button(now(), Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
        },
        // A drag with one finger on a virtual touchscreen.
        touchDrag(x0, y0, x1, y1) {
            ga.touch ??= Clutter.get_default_backend().get_default_seat()
                .create_virtual_device(Clutter.InputDeviceType.TOUCHSCREEN_DEVICE);
            ga.touch.notify_touch_down(now(), 0, x0, y0);
            for (let step = 1; step <= 10; step++)
                ga.touch.notify_touch_motion(now(), 0, x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10);
            ga.touch.notify_touch_up(now(), 0);
        },
        // Each switch row: its switch's size and look, and whether each of
        // its lines of text gets the height it needs inside the row.
        switchRows() {
            const sheet = ga.sheet();
            const rows = sheet ? descendants(sheet).filter(a => a.mapped &&
                a.has_style_class_name?.('guided-access-row')) : [];
            return rows.map(row => {
                const toggle = descendants(row).find(a => a.has_style_class_name?.('toggle-switch'));
                const [, rowY] = row.get_transformed_position();
                const labels = descendants(row).filter(a => a instanceof imports.gi.St.Label);
                const clipped = labels.filter(label => {
                    const [, natural] = label.get_preferred_height(label.width);
                    const [, y] = label.get_transformed_position();
                    return label.height + 0.5 < natural || y + label.height > rowY + row.height + 0.5;
                }).map(label => label.text);
                return {name: row.accessible_name, width: toggle?.width ?? 0, height: toggle?.height ?? 0,
                    shown: Boolean(toggle?.mapped && toggle.opacity > 0),
                    on: toggle?.has_style_pseudo_class('checked') ?? null, clipped};
            });
        },
        // The focused control of the options column: where it is in the
        // column's view, and whether it is whole and clear of the faded
        // edges (an edge fades where there is more to scroll to); null
        // when the focus is not in the column.
        focusInOptions() {
            const focus = global.stage.get_key_focus();
            const sheet = ga.sheet();
            const view = sheet && descendants(sheet).find(a => a instanceof imports.gi.St.ScrollView);
            let inside = focus;
            while (inside && inside !== view)
                inside = inside.get_parent();
            if (!focus || !view || !inside)
                return null;
            const [, viewY] = view.get_transformed_position();
            const [, y] = focus.get_transformed_position();
            const fade = view.get_theme_node().get_length('-st-vfade-offset');
            const adjustment = view.vadjustment ?? view.vscroll.adjustment;
            const [value, lower, upper, , , page] = adjustment.get_values();
            const top = y - viewY, bottom = top + focus.height;
            const clear = top >= (value > lower ? fade : 0) &&
                bottom <= view.height - (value + page < upper ? fade : 0);
            return {name: focus.accessible_name ?? focus.label, top: Math.round(top), bottom: Math.round(bottom),
                height: Math.round(view.height), fade, clear};
        },
        fullscreen(title) {
            return ga.win(title).is_fullscreen();
        },
        // The sheet on the stage, its fade-in begun (sheet(): done).
        sheetShown() {
            return Main.layoutManager.modalDialogGroup.get_children()
                .some(d => d.accessible_name === 'Start Guided Access' && d.mapped && d.state !== CLOSED);
        },
        // Records in ga[key] when check() first holds and the stage has
        // painted after it.
        watchPainted(check, key = 'watched') {
            ga[key] = null;
            GLib.timeout_add(GLib.PRIORITY_HIGH, 1, () => {
                if (!check())
                    return GLib.SOURCE_CONTINUE;
                const id = global.stage.connect('after-paint', () => {
                    global.stage.disconnect(id);
                    ga[key] = now();
                });
                global.stage.queue_redraw();
                return GLib.SOURCE_REMOVE;
            });
        },
    });
    return true;
})()
"""

def carry(rect, window, to):
    """`rect` (x, y, width, height) on a window at `window` ({x, y, width,
    height}) carried with it to `to`: the same part of it, scaled."""
    kx, ky = to['width'] / window['width'], to['height'] / window['height']
    x, y, width, height = rect
    return (round(to['x'] + (x - window['x']) * kx), round(to['y'] + (y - window['y']) * ky),
            round(width * kx), round(height * ky))


KEYS = {'Delete': 0xffff, 'Tab': 0xff09, 'space': 0x20, 'Return': 0xff0d, 'Escape': 0xff1b, 'Right': 0xff53, 'Down': 0xff54,
        'Shift_L': 0xffe1}
FIGURE_RUNS = 20


class StartSheetCases:
    def __init__(self, cases, end_shortcut, passcode):
        self.c = cases
        self.end_shortcut = end_shortcut
        self.passcode = passcode
        self.c.js(SHEET_HELPERS)

    # -- helpers ------------------------------------------------------------

    def js(self, code):
        return self.c.js(code)

    def key(self, name, modifiers=()):
        self.js(f'global._ga.tap([{", ".join(str(KEYS[m]) for m in modifiers)}], {KEYS[name]})')
        # The shell handles the virtual device's events after Eval returns.
        time.sleep(0.08)

    def settled(self, done, failure, seen=None):
        """Waits up to 3 s for what keys just pressed do (a loaded machine
        handles them later than key()'s pause); AssertionError `failure`
        (with what `seen` returns) when it does not come."""
        try:
            wait_for(done, 3, 0.05, what=failure)
        except TimeoutError:
            raise AssertionError(failure + (f': {seen()}' if seen else '')) from None

    def open_sheet(self, app='app-a'):
        self.c.activate(app)
        if self.js('global._ga.sheet() !== null'):
            raise AssertionError('control: a sheet is open before the shortcut')
        self.js(f'{self.end_shortcut}; {self.end_shortcut}; {self.end_shortcut}')
        try:
            wait_for(lambda: self.js('global._ga.sheet() !== null'), 10, what='the start sheet')
        except TimeoutError as error:
            raise AssertionError(f'{error}; the shell had {self.gesture_state()}') from None

    def gesture_state(self):
        """What the shell had when the gesture came to nothing: the focus,
        the modal dialogs and their states, the action mode, and the
        extension's own (its sheet, end dialog, session and recent presses)."""
        return self.js('(() => { const Main = global._gaShell.Main; const focus = global.display.focus_window; '
                       f'const ui = Main.extensionManager.lookup("{UUID}")?.stateObj?._enforcer?._ui ?? null; '
                       'return {focus: focus ? focus.get_wm_class() + " " + focus.get_title() : null, '
                       'dialogs: Main.layoutManager.modalDialogGroup.get_children().map(d => [d.accessible_name, d.state]), '
                       'modalCount: Main.modalCount, actionMode: Main.actionMode, '
                       'sheet: ui && (typeof ui._sheet === "string" ? ui._sheet : ui._sheet && {closing: ui._sheet.closing}), '
                       'endDialog: ui && (ui._dialog?.state ?? null), session: ui && ui._session !== null, '
                       'pressesAgoMs: ui && ui._triplePress._presses.map(t => Math.round((imports.gi.GLib.get_monotonic_time() - t) / 1000))}; })()')

    def click_button(self, label):
        """Clicks the sheet's button `label` once it is laid out."""
        wait_for(lambda: self.js(f'global._ga.clickButton({label!r})'), 5, what=f'the button {label} laid out')

    def wait_closed(self):
        wait_for(lambda: self.js('global._ga.sheet() === null'), 5, what='the sheet to close')

    def press(self, name):
        """Focuses the control called `name` and presses Space on it."""
        self.js(f'global._ga.focus({name!r})')
        self.key('space')

    def last_options(self, app='app-a'):
        return self.c.service().GetLastOptions(self.c.app_id(app), timeout=10)

    def restriction_log(self, app='app-a'):
        with open(self.c.apps[app][1]) as f:
            return [line.split()[1:] for line in f if line.startswith('restriction ')]

    def stage_region(self, preview, x0, y0, x1, y1):
        """The stage rectangle a drag from (x0, y0) to (x1, y1) on the
        preview covers, from the preview's place and scale."""
        def to_stage(x, origin, monitor):
            return monitor + (x - origin) / preview['scale']
        left, top = to_stage(x0, preview['x'], preview['monitorX']), to_stage(y0, preview['y'], preview['monitorY'])
        right, bottom = to_stage(x1, preview['x'], preview['monitorX']), to_stage(y1, preview['y'], preview['monitorY'])
        return (left, top, right - left, bottom - top)

    def start_and_wait(self, regions=0):
        self.click_button('Start')
        wait_for(lambda: self.c.prop('Enabled'), 30, what='the session to start')
        self.wait_closed()
        self.c.wait_locked(regions)

    def click_reaches(self, point, app='app-a'):
        before = self.c.clicks(app)
        self.js(f'global._ga.click({point[0]}, {point[1]})')
        try:
            wait_for(lambda: self.c.clicks(app) > before, 1.5, what='the click')
            return True
        except TimeoutError:
            return False

    # -- cases --------------------------------------------------------------

    def registered(self, app):
        """Makes sure `app` runs with its restriction registered: an app
        registers once, so one whose daemon was restarted meanwhile (the
        fail-closed and settings cases do that) is started again."""
        identifier = f'org.example.{app.replace("-", "")}.chat'
        rows = self.c.service(CONTRACT['INTERFACES']['restrictions']).List(timeout=10)
        if not any(row[0] == identifier and row[5] for row in rows):
            self.c.stop_app(app)
            self.c.start_app(app)
            wait_for(lambda: any(row[0] == identifier and row[5] for row in
                                 self.c.service(CONTRACT['INTERFACES']['restrictions']).List(timeout=10)),
                     10, what=f'{app} to register its restriction')

    def lists_app_restrictions(self):
        """The sheet is for the focused app: its restrictions, not another's;
        the gesture right after Cancel opens it again; Cancel changes
        nothing."""
        for app in ('app-a', 'app-b'):
            self.registered(app)
        before = (self.last_options(), self.c.service(CONTRACT['INTERFACES']['restrictions']).List(timeout=10))
        self.open_sheet('app-a')
        rows = self.js('global._ga.namedLike("Chat in")')
        if rows != ['Chat in app-a']:
            raise AssertionError(f'the sheet lists {rows}, expected only app-a\'s "Chat in app-a"')
        self.gesture_right_after_cancel()
        self.key('Escape')
        self.wait_closed()
        after = (self.last_options(), self.c.service(CONTRACT['INTERFACES']['restrictions']).List(timeout=10))
        if self.c.prop('Enabled') or before != after:
            raise AssertionError('Cancel changed something: a session, the last options or a restriction')
        return 'lists "Chat in app-a" only; Escape cancels and changes nothing; the gesture right after Cancel opens it again'

    def gesture_right_after_cancel(self):
        """Cancel, and the gesture in the same turn of the shell's main loop:
        the cancelled sheet is closing but still on the stage until the
        shell's next frame (on a loaded machine, a while), and a new sheet
        opens all the same."""
        self.js('global._ga.sheet()._gaFirst = true')
        self.js(f'global._ga.pressButton("Cancel"); {"; ".join([self.end_shortcut] * 3)}')
        try:
            wait_for(lambda: self.js('(s => s !== null && !s._gaFirst)(global._ga.sheet())'), 10, what='a new sheet')
        except TimeoutError:
            raise AssertionError('the gesture pressed right after Cancel opened nothing; '
                                 f'the shell had {self.gesture_state()}') from None

    def laid_out_preview(self):
        """Where the preview is, once the sheet has laid it out: until then
        its position is not a number (null here)."""
        def placed():
            preview = self.js('global._ga.preview()')
            return preview if None not in preview.values() and preview['width'] > 0 else None
        return wait_for(placed, 5, 0.05, what='the preview to be laid out')

    def region_and_restriction(self):
        """A region drawn with the pointer becomes DisabledRegions and blocks
        clicks; an app restriction switched off is denied at Start."""
        self.open_sheet('app-a')
        preview = self.laid_out_preview()
        window = self.c.window('app-a')
        # The left half of the window's client area, drawn on the preview.
        scale, px, py = preview['scale'], preview['x'], preview['y']
        x0 = px + (window['x'] + 10 - preview['monitorX']) * scale
        y0 = py + (window['y'] + 60 - preview['monitorY']) * scale
        x1 = px + (window['x'] + window['width'] // 2 - preview['monitorX']) * scale
        y1 = py + (window['y'] + window['height'] - 20 - preview['monitorY']) * scale
        self.js(f'global._ga.drag({x0}, {y0}, {x1}, {y1})')
        # The new region takes the focus once the drag is handled.
        wait_for(lambda: (self.js('global._ga.focused()') or '').startswith('Switched-off region 1'), 5,
                 what='the drawn region')
        expected = self.stage_region(preview, x0, y0, x1, y1)
        if self.js('global._ga.checked("Chat in app-a")') is not True:
            raise AssertionError('control: "Chat in app-a" is not on (allowed) before it is switched off')
        self.press('Chat in app-a')
        wait_for(lambda: self.js('global._ga.checked("Chat in app-a")') is False, 2,
                 what='Space to switch "Chat in app-a" off')
        self.c.screenshot('start-sheet')
        heard_before = [r for r in self.restriction_log() if r[1] == 'deny']
        self.start_and_wait(regions=1)
        (x, y, width, height), = [tuple(int(v) for v in r) for r in self.c.prop('DisabledRegions')]
        off = max(abs(a - b) for a, b in zip((x, y, width, height), expected))
        wait_for(lambda: [r for r in self.restriction_log() if r[1] == 'deny'], 5,
                 what='the app to hear RestrictionChanged deny')
        inside = (x + width // 2, y + height // 2)
        outside = (x + width + 40, y + height // 2)
        inside_reached, outside_reached = self.click_reaches(inside), self.click_reaches(outside)
        self.c.end_session()
        self.c.wait_released()
        if heard_before:
            raise AssertionError(f'control: the app heard deny before Start: {heard_before}')
        if off > 1:
            raise AssertionError(f'DisabledRegions {(x, y, width, height)} is not the drawn {expected}')
        if inside_reached or not outside_reached:
            raise AssertionError(f'click inside reached: {inside_reached}, outside reached: {outside_reached}')
        return f'drawn {tuple(round(v) for v in expected)} → DisabledRegions {(x, y, width, height)}; ' \
               'inside swallowed, outside reached; the app heard deny'

    def last_options_return(self):
        """The next sheet for the app opens with the last session's options."""
        last = self.last_options()
        regions = [tuple(int(v) for v in r) for r in last.get('disabled-regions', [])]
        if len(regions) != 1 or last.get('restrictions', {}).get('org.example.appa.chat') != 'deny':
            raise AssertionError(f'GetLastOptions is {dict(last)}')
        self.open_sheet('app-a')
        shown = self.js('global._ga.namedLike("Switched-off region")')
        x, y, width, height = regions[0]
        chat = self.js('global._ga.checked("Chat in app-a")')
        # Touch draws like the pointer: a second region, in the preview's lower right.
        preview = self.laid_out_preview()
        right, bottom = preview['x'] + preview['width'], preview['y'] + preview['height']
        self.js(f'global._ga.touchDrag({right - 120}, {bottom - 90}, {right - 20}, {bottom - 20})')
        def drawn_by_touch():
            names = self.js('global._ga.namedLike("Switched-off region")')
            # Drawn (not 0 × 0) and ended: a region too small at the end is removed.
            return len(names) == 2 and ': 0 × ' not in names[1] and not self.js('global._ga.dragging()') and names[1]
        touched = wait_for(drawn_by_touch, 5, what='a region drawn by touch')
        self.key('Escape')
        self.wait_closed()
        if shown != [f'Switched-off region 1: {width} × {height} at {x}, {y}'] or chat is not False:
            raise AssertionError(f'the sheet shows regions {shown}, "Chat in app-a" on: {chat}')
        if self.last_options() != last:
            raise AssertionError('Escape after drawing changed GetLastOptions')
        return f'region {regions[0]} and "Chat in app-a" off came back; touch drew "{touched}"; Escape kept them'

    def fullscreen_presentation(self):
        """Full screen for the session, and the window as it was after End."""
        before = self.c.window('app-a')
        if self.js('global._ga.fullscreen("app-a")'):
            raise AssertionError('control: app-a is full screen before the session')
        self.open_sheet('app-a')
        drawn = self.region_shown()
        self.press('Full Screen')
        wait_for(lambda: self.js('global._ga.checked("Full Screen")'), 2, what='Full Screen chosen')
        # The region goes with the window, over the part of the app it was
        # drawn on (the preview scales the window to the monitor).
        screen = self.js('(({x, y, width, height}) => ({x, y, width, height}))'
                         '(global._gaShell.Main.layoutManager.primaryMonitor)')
        carried = self.region_shown()
        expected = carry(drawn, before, screen)
        if max(abs(a - b) for a, b in zip(carried, expected)) > 3:
            raise AssertionError(f'Full Screen: region {drawn} on the window at {before} became {carried}, '
                                 f'expected {expected} (the same part of the window full screen)')
        # Control: As It Is again puts it back where it was drawn.
        self.press('As It Is')
        back = self.region_shown()
        self.press('Full Screen')
        if max(abs(a - b) for a, b in zip(back, drawn)) > 1:
            raise AssertionError(f'As It Is again: the region is {back}, drawn {drawn}')
        self.start_and_wait(regions=1)
        (x, y, width, height), = [tuple(int(v) for v in r) for r in self.c.prop('DisabledRegions')]
        if max(abs(a - b) for a, b in zip((x, y, width, height), carried)) > 1:
            raise AssertionError(f'DisabledRegions {(x, y, width, height)}, the sheet showed {carried}')
        # Full screen as a person sees it: the window fills the monitor (the
        # state comes first, the client's new size a moment later).
        monitor = self.js('(({width, height}) => [width, height])(global._gaShell.Main.layoutManager.primaryMonitor)')
        wait_for(lambda: self.js('global._ga.fullscreen("app-a")') and
                 [self.c.window('app-a')[k] for k in ('width', 'height')] == monitor, 5,
                 what=f'app-a full screen, {monitor[0]}×{monitor[1]}')
        during = self.c.window('app-a')
        if self.c.prop('Presentation') != 'fullscreen':
            raise AssertionError(f'Presentation is {self.c.prop("Presentation")}')
        self.c.end_session()
        self.c.wait_released()
        wait_for(lambda: not self.js('global._ga.fullscreen("app-a")'), 5, what='app-a out of full screen')
        geometry = ('x', 'y', 'width', 'height')
        wait_for(lambda: all(self.c.window('app-a')[k] == before[k] for k in geometry), 5,
                 what=f'app-a back at {[before[k] for k in geometry]}')
        return f'region {drawn} → {carried} with the window; {during["width"]}×{during["height"]} during, ' \
               f'{before["width"]}×{before["height"]} at {before["x"]},{before["y"]} again after End'

    def region_shown(self):
        """The sheet's one region, (x, y, width, height) in stage pixels, from
        its accessible name ("Switched-off region 1: W × H at X, Y")."""
        names = self.js('global._ga.namedLike("Switched-off region")')
        if len(names) != 1:
            raise AssertionError(f'the sheet shows regions {names}, expected one')
        size, place = names[0].split(': ')[1].split(' at ')
        width, height = (int(v) for v in size.split(' × '))
        x, y = (int(v) for v in place.split(', '))
        return (x, y, width, height)

    def keyboard_only(self):
        """Opened, filled in and started with the keyboard alone: a region
        added and moved, a switch turned, Start."""
        self.open_sheet('app-a')
        # The last options may bring a region and Full Screen; take them away.
        if self.js('global._ga.namedLike("Switched-off region")'):
            self.tab_to('Switched-off region 1')
            self.key('Delete')
            self.settled(lambda: not self.js('global._ga.namedLike("Switched-off region")'),
                         'Delete did not remove the focused region')
        self.tab_to('As It Is')
        self.key('space')
        self.tab_to('Add Region')
        self.key('Return')
        self.settled(lambda: self.js('global._ga.focused()').startswith('Switched-off region 1'),
                     'the new region does not have the focus', lambda: self.js('global._ga.focused()'))
        before = self.js('global._ga.focused()')
        self.key('Right')
        self.key('Down', modifiers=['Shift_L'])
        self.settled(lambda: self.js('global._ga.focused()') != before, f'the arrow keys did not move the region: {before}')
        moved = self.js('global._ga.focused()')
        self.tab_to('Keyboards')
        self.key('space')
        self.tab_to('Start')
        self.key('Return')
        wait_for(lambda: self.c.prop('Enabled'), 30, what='the session to start')
        self.wait_closed()
        self.c.wait_locked(1)
        restrictions = dict(self.c.prop('SystemRestrictions'))
        presentation = self.c.prop('Presentation')
        self.c.end_session()
        self.c.wait_released()
        if restrictions.get('keyboards') != 'deny' or presentation != 'as-is':
            raise AssertionError(f'started with {restrictions}, presentation {presentation}')
        return f'{before} → {moved}; keyboards denied; started with Return'

    def accessible(self):
        """Every control of the sheet found through at-spi by its role and
        name, as a screen reader finds it; a switch focused there and
        pressed with Space, as a screen reader's user does (St buttons
        offer no at-spi action). Then the walk: every control of the sheet
        (with a region drawn, so its parts are there too) and of the end
        dialog has a name a screen reader says, not none or a type name."""
        detail = self.accessible_controls()
        walked = [self.walk_sheet(), self.walk_end_dialog()]
        unnamed = [line for line in walked if 'unnamed: 0' not in line.splitlines()[0]]
        if unnamed:
            raise AssertionError('controls a screen reader cannot name:\n' + '\n'.join(unnamed))
        return f'{detail}; ' + '; '.join(line[len('A11Y '):] for line in walked)

    def walk_sheet(self):
        """The at-spi walk of the sheet, printed as `A11Y start sheet: ...`
        (app-b open, so that "Other Apps Allowed" has a row)."""
        self.c.ensure_app('app-b')
        self.open_sheet('app-a')
        try:
            a11y = Accessibility(self.c.env['DBUS_SESSION_BUS_ADDRESS'])
            shell = a11y.wait_app('gnome-shell', 10)
            sheet = a11y.wait_find(shell, 'dialog', 'Start Guided Access', 10)
            # A region with its remove button, and the time limit's steppers
            # shown, so that every kind of control the sheet has is there.
            if not self.js('global._ga.namedLike("Switched-off region")'):
                self.click_button('Add Region')
                wait_for(lambda: self.js('global._ga.namedLike("Switched-off region")'), 3, what='a region')
            if not self.js('global._ga.named("Fewer Hours")'):
                self.press('Time Limit')
            a11y.wait(lambda: a11y.find(sheet, 'push button', 'Remove this region') is not None, 5,
                      'the region on the accessibility bus')
            line = self.walk(a11y, sheet, 'start sheet',
                             ('Keyboards', 'Full Screen', 'Add Region', 'Remove this region', 'Start',
                              'app-b', 'Screen Reader', 'Sticky Keys'))
            # Down the options with Tab: each control scrolled into view whole,
            # clear of the faded edges.
            self.js('global._ga.focus("Sleep Button")')
            seen, faded = 0, []
            for _ in range(40):
                where = self.js('global._ga.focusInOptions()')
                if where is not None:
                    seen += 1
                    if not where['clear']:
                        faded.append(where)
                self.key('Tab')
            if seen < 15 or faded:
                raise AssertionError(f'of {seen} options focused with Tab, under the fade or cut: {faded}')
            return line
        finally:
            self.key('Escape')
            self.wait_closed()

    def walk_end_dialog(self):
        """The at-spi walk of the end dialog (the passcode one), printed as
        `A11Y end dialog: ...`."""
        self.c.activate('app-a')
        self.c.start_session('app-a')
        try:
            self.c.wait_locked()
            self.js(f'{self.end_shortcut}; {self.end_shortcut}; {self.end_shortcut}')
            a11y = Accessibility(self.c.env['DBUS_SESSION_BUS_ADDRESS'])
            shell = a11y.wait_app('gnome-shell', 10)

            def end_dialog():
                # It has no name of its own to find it by: the dialog with End.
                return next((dialog for dialog in a11y.find_all(shell, 'dialog', showing=True)
                             if a11y.find_labelled(dialog, 'push button', 'End') is not None), None)
            dialog = a11y.wait(end_dialog, 10, 'the end dialog on the accessibility bus')
            line = self.walk(a11y, dialog, 'end dialog', ('End', 'Cancel', 'Screen Reader', 'Zoom', 'Screen Keyboard'))
            self.key('Escape')
            return line
        finally:
            self.c.end_session()
            self.c.wait_released()

    @staticmethod
    def walk(a11y, root, window, expected):
        """Walks `root` as a screen reader reads it and prints the `A11Y
        window: ...` line; `expected`: names the walk must count (the
        control that it sees the controls at all)."""
        controls, unnamed = a11y.audit(root)
        if os.environ.get('A11Y_DUMP'):  # the whole tree, for writing a fix
            print(a11y.describe(root, limit=2000), flush=True)
        named = [name for _role, name in controls.values()]
        missed = [name for name in expected if name not in named]
        if missed:
            raise AssertionError(f'the walk of the {window} missed {missed}:\n{a11y.describe(root, limit=300)}')
        line = a11y.a11y_line(window, controls, unnamed)
        print(line, flush=True)
        return line

    def accessible_controls(self):
        self.open_sheet('app-a')
        try:
            a11y = Accessibility(self.c.env['DBUS_SESSION_BUS_ADDRESS'])
            shell = a11y.wait_app('gnome-shell', 10)
            sheet = a11y.wait_find(shell, 'dialog', 'Start Guided Access', 10)
            wanted = [('check box', name) for name in (
                'Sleep Button', 'Volume Keys', 'Motion', 'Keyboards', 'Touch', 'Notifications',
                'Switching Windows', 'System Menu', 'Chat in app-a', 'Time Limit')]
            wanted += [('radio button', name) for name in (
                'As It Is', 'Maximized', 'Full Screen', 'The Desktop\'s Own', 'Never')]
            wanted += [('push button', name) for name in ('Add Region', 'Cancel', 'Guided Access Settings…', 'Start')]
            wanted += [('spin button', lambda name: name.startswith('Hours: ')),
                       ('spin button', lambda name: name.startswith('Minutes: ')),
                       ('panel', 'Preview of app-a')]
            missing = [f'{role} {name if isinstance(name, str) else "(Hours/Minutes)"}'
                       for role, name in wanted if a11y.find(sheet, role, name) is None]
            if missing:
                raise AssertionError(f'not found through at-spi: {missing}')
            keyboards = a11y.find(sheet, 'check box', 'Keyboards')
            before = a11y.checked(keyboards)
            if before != self.js('global._ga.checked("Keyboards")'):
                raise AssertionError('at-spi and the sheet disagree on "Keyboards"')
            focused = [a.get_name() for a in a11y.focused(sheet)]
            a11y.focus(keyboards)
            wait_for(lambda: a11y.has_state(keyboards, 'focused'), 3, what='"Keyboards" focused through at-spi')
            self.key('space')
            wait_for(lambda: a11y.checked(keyboards) != before, 3, what='at-spi to see "Keyboards" switched')
            shown = self.js('global._ga.checked("Keyboards")')
            if shown == before:
                raise AssertionError('focused through at-spi and pressed, the sheet did not switch "Keyboards"')
            return f'{len(wanted)} controls by role and name; "Keyboards" focused through at-spi and pressed ' \
                   f'{before} → {shown}; focus starts on {focused}'
        finally:
            self.key('Escape')
            self.wait_closed()

    def switches_drawn(self):
        """Every switch row shows a switch a person can see (mapped, with a
        size), its text unclipped, and the switch flips when the row is
        focused and Space pressed (and back)."""
        self.open_sheet('app-a')
        try:
            rows = self.js('global._ga.switchRows()')
            if len(rows) < 8:
                raise AssertionError(f'only {len(rows)} switch rows on the sheet')
            undrawn = [row['name'] for row in rows if not row['shown'] or row['width'] < 8 or row['height'] < 8]
            clipped = [text for row in rows for text in row['clipped']]
            if undrawn or clipped:
                raise AssertionError(f'switches not drawn: {undrawn}; text clipped: {clipped}')
            before = self.js('global._ga.switchRows()')
            self.js('global._ga.focus("Keyboards")')
            wait_for(lambda: self.js('global._ga.focused()') == 'Keyboards', 2, what='"Keyboards" focused')
            flips = []
            for _ in range(2):
                self.key('space')
                was = [row['on'] for row in before if row['name'] == 'Keyboards'][0]
                wait_for(lambda: [row['on'] for row in self.js('global._ga.switchRows()')
                                  if row['name'] == 'Keyboards'][0] is (not was), 2,
                         what='the "Keyboards" switch to flip on Space')
                before = self.js('global._ga.switchRows()')
                flips.append('on' if not was else 'off')
            sizes = sorted({f'{row["width"]:.0f}×{row["height"]:.0f}' for row in rows})
            return f'{len(rows)} switches drawn ({", ".join(sizes)} px), no text clipped; ' \
                   f'Space on "Keyboards" flipped it {" then ".join(flips)}'
        finally:
            self.key('Escape')
            self.wait_closed()

    def tab_to(self, name, limit=80):
        for _ in range(limit):
            focused = self.js('global._ga.focused()')
            if focused is not None and (focused == name or focused.startswith(name)):
                return
            self.key('Tab')
        raise AssertionError(f'Tab never reached "{name}"')

    def first_passcode(self):
        """The first start asks for a passcode twice; where polkit refuses
        to set one, the sheet says so and starts without."""
        self.forget_state()
        if self.c.prop('PasscodeSet'):
            raise AssertionError('control: a passcode is still set')
        self.open_sheet('app-a')
        self.click_button('Start')
        wait_for(lambda: self.js('global._ga.named("New passcode") !== null'), 5, what='the passcode page')
        a11y = Accessibility(self.c.env['DBUS_SESSION_BUS_ADDRESS'])
        sheet = a11y.wait_find(a11y.wait_app('gnome-shell', 10), 'dialog', 'Start Guided Access', 10)
        walked = self.walk(a11y, sheet, 'start sheet, first start', ('Set Passcode and Start', 'Back'))
        self.type_into('New passcode', '1357')
        self.type_into('Confirm passcode', '9999')
        self.click_button('Set Passcode and Start')
        mismatch = wait_for(lambda: 'do not match' in (self.js('global._ga.message()') or ''), 5,
                            what='the sheet to say the passcodes differ')
        if self.c.prop('Enabled') or self.c.prop('PasscodeSet'):
            raise AssertionError('mismatched passcodes started a session or set a passcode')
        self.type_into('New passcode', self.passcode)
        self.type_into('Confirm passcode', self.passcode)
        self.click_button('Set Passcode and Start')
        self.wait_started('the session to start with the new passcode')
        set_then = self.c.prop('PasscodeSet')
        self.c.end_session()
        self.c.wait_released()
        if not (mismatch and set_then):
            raise AssertionError('the passcode was not set by the sheet')

        # Refused: polkit says no to set-passcode while WORK/deny-set-passcode exists.
        self.forget_state()
        deny = f'{self.c.work}/deny-set-passcode'
        open(deny, 'w').close()
        try:
            self.open_sheet('app-a')
            self.click_button('Start')
            wait_for(lambda: self.js('global._ga.named("New passcode") !== null'), 5, what='the passcode page')
            self.type_into('New passcode', '1357')
            self.type_into('Confirm passcode', '1357')
            self.click_button('Set Passcode and Start')
            try:
                wait_for(lambda: 'Start Without Passcode' in self.js('global._ga.buttons()'), 10,
                         what='the offer to start without a passcode')
            except TimeoutError as error:
                said = self.js('global._ga.message()')
                started = bool(self.c.prop('Enabled'))
                if started:  # with the passcode typed: the next cases start from no session
                    self.c.end_session('1357')
                raise AssertionError(f'{error}: the sheet says {said!r}; a session started: {started} '
                                     '(polkitd.log tells whether the rule\'s spawn failed)') from None
            refused = self.js('global._ga.message()')
            self.click_button('Start Without Passcode')
            self.wait_started('the session to start without a passcode')
        finally:
            os.unlink(deny)
        self.c.service().SetPasscode(self.passcode, timeout=30)
        self.c.end_session()
        self.c.wait_released()
        if 'unnamed: 0' not in walked.splitlines()[0]:
            raise AssertionError(f'controls a screen reader cannot name:\n{walked}')
        return f'asked twice, a mismatch refused, set and started; refused by polkit ("{refused.splitlines()[0]}") ' \
               f'→ started without; {walked[len("A11Y "):]}'

    def also_allowed_and_shortcut(self):
        """Opened for app-d with app-a and app-b open: "Other Apps Allowed"
        offers them and not app-d itself; app-b switched on and Screen
        Keyboard off (each focused and Space), Start sends also-allowed and
        accessibility-shortcut (AlsoAllowed, AccessibilityShortcut): app-b
        stays on screen, app-a is minimized; GetLastOptions keeps them and
        the next sheet for app-d shows them. Control: the first sheet for
        app-d has app-b off and the default features on, Sticky Keys off."""
        c = self.c
        for name in ('app-a', 'app-b', 'app-d'):
            c.ensure_app(name)
        try:
            self.open_sheet('app-d')
            try:
                offered = self.js('global._ga.namedLike("app-")')
                if 'app-b' not in offered or 'app-a' not in offered or 'app-d' in offered:
                    raise AssertionError(f'other apps offered: {offered}')
                control = {name: self.js(f'global._ga.checked({name!r})')
                           for name in ('app-b', 'Screen Keyboard', 'Zoom', 'Sticky Keys')}
                if control != {'app-b': False, 'Screen Keyboard': True, 'Zoom': True, 'Sticky Keys': False}:
                    raise AssertionError(f'control: the first sheet for app-d shows {control}')
                self.press('app-b')
                self.press('Screen Keyboard')
                self.click_button('Start')
                self.wait_started('the session to start from the sheet')
            finally:
                if self.js('global._ga.sheet() !== null'):
                    self.key('Escape')
                self.wait_closed()
            try:
                wait_for(lambda: c.window('app-a')['minimized'], 5, what='app-a minimized')
                also = [str(app) for app in c.prop('AlsoAllowed')]
                shortcut = [str(feature) for feature in c.prop('AccessibilityShortcut')]
                if also != [c.app_id('app-b')] or c.window('app-b')['minimized']:
                    raise AssertionError(f'AlsoAllowed {also}; app-b {c.window("app-b")}')
                if shortcut != ['ScreenReader', 'Zoom', 'InvertColors', 'LargeText']:
                    raise AssertionError(f'AccessibilityShortcut {shortcut}')
            finally:
                c.end_session()
            c.wait_released()
            last = self.last_options('app-d')
            if [str(app) for app in last.get(CONTRACT['START_OPTIONS']['alsoAllowed'], [])] != [c.app_id('app-b')]:
                raise AssertionError(f'GetLastOptions: {dict(last)}')
            self.open_sheet('app-d')
            try:
                again = {name: self.js(f'global._ga.checked({name!r})') for name in ('app-b', 'Screen Keyboard')}
            finally:
                self.key('Escape')
                self.wait_closed()
            if again != {'app-b': True, 'Screen Keyboard': False}:
                raise AssertionError(f'the next sheet shows {again}')
        finally:
            c.stop_app('app-d')
        return f'offered {", ".join(sorted(offered))}; AlsoAllowed app-b, AccessibilityShortcut {", ".join(shortcut)}; ' \
               'the next sheet shows them'

    def wait_started(self, what):
        """Waits for the sheet's Start to lock; a timeout says what the sheet shows."""
        try:
            wait_for(lambda: self.c.prop('Enabled'), 30, what=what)
        except TimeoutError as error:
            raise AssertionError(f'{error}; the sheet says {self.js("global._ga.message()")!r}') from None

    def type_into(self, name, text):
        self.js(f'global._ga.focus({name!r}); global._ga.named({name!r}).set_text("")')
        for character in text:
            self.js(f'global._ga.tap([], {ord(character)})')
        wait_for(lambda: self.js(f'global._ga.named({name!r}).get_text().length') == len(text), 5,
                 what=f'{name} typed')

    def forget_state(self):
        """The daemon as on a new machine: stopped, its state removed, and
        activated again by the next call."""
        work = self.c.work
        open(f'{work}/hold-daemon', 'w').close()
        pid = self.c.daemon_pid()
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not self.c.bus.name_has_owner('org.guidedaccess.GuidedAccess1'), 5, what='the daemon to go')
        shutil.rmtree(f'{work}/state/guided-access', ignore_errors=True)
        os.unlink(f'{work}/hold-daemon')
        wait_for(lambda: self.c.prop('Version'), 10, what='the daemon to come back')
        # The extension has seen the new daemon (and its PasscodeSet false)
        # once it registered again: a sheet opened before that may still
        # think a passcode is set and start without asking (seen on GNOME 48
        # with the at-spi walk slowing the shell).
        wait_for(lambda: 'gnome-shell' in dict(self.c.prop('Enforcers')), 10, what='the extension to register again')
        # The apps register again only when restarted; the sheet needs none here.

    # -- figures --------------------------------------------------------------

    def figures(self, take_trace):
        """The start sheet's figures: ms from the triple press to the first
        frame with the sheet (its fade-in begun) and to the sheet painted
        whole (the fade-in done), and from Start's press to the lock, with
        each run's traces of both taken with `take_trace` (figures.py)."""
        shown, opened, locked, open_traces, traces = [], [], [], [], []
        for _ in range(FIGURE_RUNS):
            self.c.activate('app-a')
            take_trace()
            self.js("global._ga.watchPainted(() => global._ga.sheetShown(), 'shown')")
            self.js('global._ga.watchPainted(() => global._ga.sheet() !== null)')
            pressed = self.js(f'(() => {{ const t = imports.gi.GLib.get_monotonic_time(); '
                              f'{self.end_shortcut}; {self.end_shortcut}; {self.end_shortcut}; return t; }})()')
            done = wait_for(lambda: self.js('global._ga.watched'), 10, 0.01, 'the sheet painted')
            shown_at = self.js('global._ga.shown')
            shown.append((shown_at - pressed) / 1000)
            opened.append((done - pressed) / 1000)
            open_traces.append(take_trace('sheet shown', pressed=pressed / 1000, shown=shown_at / 1000))
            # The other app minimized is the lock in place; regions are whatever
            # app-a's last options hold, which earlier cases decide.
            self.js("global._ga.watch(() => global._ga.win('app-b').minimized)")
            # From the press, once the button is laid out (the click moves
            # the pointer there first, and presses 50 ms later).
            take_trace()
            wait_for(lambda: self.js("global._ga.clickButton('Start')"), 5, 0.01, 'the Start button laid out')
            done = wait_for(lambda: self.js('global._ga.watched'), 10, 0.01, 'the lock')
            pressed = self.js('global._ga.pressedAt')
            locked.append((done - pressed) / 1000)
            traces.append(take_trace(pressed=pressed / 1000, seen=done / 1000))
            self.c.end_session()
            self.c.wait_released()
        return shown, opened, locked, open_traces, traces
