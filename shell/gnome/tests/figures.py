# SPDX-License-Identifier: GPL-2.0-or-later
"""The GNOME suite's figures (mixed into run's Cases; printed as FIGURE
lines, not asserted): the latency from Start and End returning to the lock
in place and the desktop restored, with 2, 10 and 50 other windows open,
each beside a reference from the same run (one Eval that minimizes or
restores the same windows, as the lock does: what any code in the shell
can do at best when told over the bus), each until the first frame
painted so, with where its time went; where one
Start's time goes, from the daemon's reply to the frame (TRACE_HELPERS);
the start sheet's (measured by sheet.py) and
gnome-shell's RSS with and without the extension (measured by
resiliencecases.py)."""

import os
import random
import re
import statistics
import time

from harness import OTHER_WINDOWS, WINDOW_COUNTS, beside_reference, log, percentiles, quantile
from waiting import wait_for

SESSIONS_MEASURED = 20

# A trace of the extension's work on each Start, defined in the shell by
# Eval (the suite's shell runs in unsafe mode): the enforcer's _sync and
# _apply, the SessionLock's apply and each of its parts are wrapped to stamp
# their begin and end, and the stage stamps each frame it lays out and
# paints; all on the monotonic clock the suite reads too. remove() puts
# every wrapped method back.
TRACE_HELPERS = r"""
(function () {
    const OTHER_WINDOWS = /%s/;
    const {GLib} = imports.gi;
    const Main = global._gaShell.Main;
    const now = () => GLib.get_monotonic_time();
    const PARTS = {
        _presentation: ['setMode'], _appLock: ['lock'], _monitors: ['update'], _lockdown: ['apply'],
        _panel: ['apply'], _blockers: ['setDesktopBlocked', 'setRegions', 'setTouchBlocked'],
        _keyboards: ['setBlocked'],
    };
    const trace = {
        stamps: [],
        undo: [],
        stamp(name) {
            trace.stamps.push([name, now()]);
        },
        wrap(object, method, name) {
            const original = object[method];
            const own = Object.prototype.hasOwnProperty.call(object, method);
            object[method] = function (...args) {
                trace.stamp(`${name} begins`);
                try {
                    return original.apply(this, args);
                } finally {
                    trace.stamp(name);
                }
            };
            trace.undo.push(() => {
                if (own)
                    object[method] = original;
                else
                    delete object[method];
            });
        },
        // During a session (its SessionLock's classes are reached through it).
        install() {
            const enforcer = Main.extensionManager.lookup('guided-access@guidedaccess.org').stateObj._enforcer;
            const lock = enforcer._lock;
            trace.wrap(enforcer, '_sync', 'sync');
            // The start sheet's call; its reply is a promise.
            const daemon = enforcer._service.daemon;
            const start = daemon.start;
            daemon.start = function (...args) {
                trace.stamp('Start called');
                return start.apply(this, args).then(result => {
                    trace.stamp('Start replied');
                    return result;
                });
            };
            trace.undo.push(() => delete daemon.start);
            // The start sheet's opening: the daemon's answers it waits for,
            // its dialog made (added to the modal dialog group) and shown.
            for (const [method, name] of [['restrictionRows', 'rows answered'], ['lastOptions', 'last options answered']]) {
                const original = daemon[method];
                daemon[method] = function (...args) {
                    return original.apply(this, args).finally(() => trace.stamp(name));
                };
                trace.undo.push(() => delete daemon[method]);
            }
            trace.wrap(Object.getPrototypeOf(enforcer._ui), 'openStartSheet', 'openStartSheet');
            const dialogs = Main.layoutManager.modalDialogGroup;
            const dialogAdded = (_group, dialog) => {
                trace.stamp('sheet made');
                const id = dialog.connect('notify::mapped', () => {
                    dialog.disconnect(id);
                    trace.stamp('sheet shown');
                });
            };
            let added;
            try {
                added = dialogs.connect('child-added', dialogAdded);
            } catch (_error) { // before GNOME 44
                added = dialogs.connect('actor-added', dialogAdded);
            }
            trace.undo.push(() => dialogs.disconnect(added));
            trace.wrap(Object.getPrototypeOf(enforcer._guard), 'apply', 'AssessmentGuard.apply');
            trace.wrap(Object.getPrototypeOf(enforcer._ui), 'setSession', 'SessionUI.setSession');
            trace.wrap(Object.getPrototypeOf(enforcer._keeper), 'follow', 'AppKeeper.follow');
            trace.wrap(Object.getPrototypeOf(lock), 'apply', 'SessionLock.apply');
            for (const [part, methods] of Object.entries(PARTS)) {
                for (const method of methods)
                    trace.wrap(Object.getPrototypeOf(lock[part]), method, `${lock[part].constructor.name}.${method}`);
            }
            // Blockers in place for input right after the apply, before any frame?
            const shield = enforcer._showShield;
            enforcer._showShield = function (...args) {
                const result = shield.apply(this, args);
                trace.stamp(`picked ${global._ga.regions()}`);
                return result;
            };
            for (const signal of ['before-update', 'before-paint', 'after-paint']) {
                const id = global.stage.connect(signal, () => trace.stamp(signal));
                trace.undo.push(() => global.stage.disconnect(id));
            }
            trace.undo.push(() => delete enforcer._showShield);
            return true;
        },
        // Records the monotonic time of the first frame painted with
        // check() holding: when the screen shows it.
        watchFrame(check) {
            global._ga.watched = null;
            trace.unwatchFrame();
            trace.frameWatch = global.stage.connect('after-paint', () => {
                if (!check())
                    return;
                global._ga.watched = now();
                trace.unwatchFrame();
            });
        },
        unwatchFrame() {
            if (trace.frameWatch)
                global.stage.disconnect(trace.frameWatch);
            trace.frameWatch = 0;
        },
        take() {
            const stamps = trace.stamps;
            trace.stamps = [];
            return stamps;
        },
        remove() {
            trace.unwatchFrame();
            for (const undo of trace.undo.reverse())
                undo();
            trace.undo = [];
        },
        // Whether all `count` other windows (app-b's and the crowd's) are
        // minimized (or all restored).
        othersMinimized(count, minimized) {
            const others = global.display.list_all_windows().filter(w => OTHER_WINDOWS.test(w.get_title()));
            return others.length === count && others.every(w => w.minimized === minimized);
        },
        // As the lock does: a window minimized goes at once, without the
        // shell's animation (which would leave it on screen for its length).
        minimizeOthers(minimized) {
            for (const w of global.display.list_all_windows().filter(w => OTHER_WINDOWS.test(w.get_title()))) {
                if (minimized) {
                    Main.wm.skipNextEffect?.(w.get_compositor_private());
                    w.minimize();
                }
                else {
                    w.unminimize();
                }
            }
            trace.stamp('sync');
        },
    };
    global._ga.trace = trace;
    return true;
})()
""" % OTHER_WINDOWS

# A frame's layout and paint, from its before-update (every breakdown ends so).
FRAME_SEGMENTS = (
    ('  → laid out, its paint begins (before-paint)', 'before-update', 'before-paint'),
    ('  → painted (after-paint)', 'before-paint', 'after-paint'),
)

# The trace's segments: (label, from stamp, to stamp), each the first such
# stamp after the Start call was sent; 'returned' is the reply's arrival.
SEGMENTS = (
    ('reply → the signal handled (_sync begins)', 'returned', 'sync begins'),
    ('_sync begins → SessionLock.apply begins', 'sync begins', 'SessionLock.apply begins'),
    ('  AssessmentGuard.apply', 'AssessmentGuard.apply begins', 'AssessmentGuard.apply'),
    ('  SessionUI.setSession (the top bar\'s indicator, the time left)', 'SessionUI.setSession begins',
     'SessionUI.setSession'),
    ('  AppKeeper.follow', 'AppKeeper.follow begins', 'AppKeeper.follow'),
    ('  the SessionLock made', 'AppKeeper.follow', 'SessionLock.apply begins'),
    ('SessionLock.apply:', None, None),
    ('  Presentation.setMode', 'Presentation.setMode begins', 'Presentation.setMode'),
    ('  AppLock.lock (windows minimized)', 'AppLock.lock begins', 'AppLock.lock'),
    ('  AppMonitors.update', 'AppMonitors.update begins', 'AppMonitors.update'),
    ('  ShellLockdown.apply', 'ShellLockdown.apply begins', 'ShellLockdown.apply'),
    ('  PanelLockdown.apply', 'PanelLockdown.apply begins', 'PanelLockdown.apply'),
    ('  Blockers.setRegions', 'Blockers.setRegions begins', 'Blockers.setRegions'),
    ('  KeyboardLock.setBlocked', 'KeyboardLock.setBlocked begins', 'KeyboardLock.setBlocked'),
    ('SessionLock.apply ends → _sync ends (the shield)', 'SessionLock.apply', 'sync'),
    ('_sync ends → the next frame begins (before-update)', 'sync', 'before-update'),
    *FRAME_SEGMENTS,
    ('reply → the first frame painted with the lock in place', 'returned', 'seen'),
)

# The same for an End, from the reply to the frame with the windows restored.
END_SEGMENTS = (
    ('reply → the signal handled (_sync begins)', 'returned', 'sync begins'),
    ('  SessionUI.setSession (the indicator and the time left taken away)', 'SessionUI.setSession begins',
     'SessionUI.setSession'),
    ('_sync begins → _sync ends (the lock taken away)', 'sync begins', 'sync'),
    ('_sync ends → the next frame begins (before-update)', 'sync', 'before-update'),
    *FRAME_SEGMENTS,
    ('reply → the first frame painted with the windows restored', 'returned', 'seen'),
)

# The reference's minimize (the Eval's, 'sync' its end), to the frame.
REFERENCE_SEGMENTS = (
    ('the Eval called → its minimize ends', 'returned', 'sync'),
    ('its minimize ends → the next frame begins (before-update)', 'sync', 'before-update'),
    *FRAME_SEGMENTS,
    ('the Eval called → the first frame painted with the windows minimized', 'returned', 'seen'),
)

# The start sheet's opening, from the triple press to its first frame.
SHEET_OPEN_SEGMENTS = (
    ('press → the gesture handled (openStartSheet begins)', 'pressed', 'openStartSheet begins'),
    ('  → the daemon\'s rows answered (Restrictions1.List)', 'openStartSheet begins', 'rows answered'),
    ('  → the last options answered (GetLastOptions)', 'openStartSheet begins', 'last options answered'),
    ('press → the sheet\'s dialog made', 'pressed', 'sheet made'),
    ('  → built and shown', 'sheet made', 'sheet shown'),
    ('  → the next frame begins (before-update)', 'sheet shown', 'before-update'),
    *FRAME_SEGMENTS,
    ('press → the sheet\'s first frame', 'pressed', 'shown'),
)

# The same for a Start pressed on the start sheet ('pressed': the button's
# press), where the daemon's call is part of the path.
SHEET_SEGMENTS = (
    ('press → Start called', 'pressed', 'Start called'),
    ('Start called → the signal handled (_sync begins): the daemon\'s polkit check and write', 'Start called',
     'sync begins'),
    ('Start called → its reply', 'Start called', 'Start replied'),
    ('_sync begins → _sync ends', 'sync begins', 'sync'),
    ('_sync ends → the next frame painted', 'sync', 'after-paint'),
    ('press → lock seen', 'pressed', 'seen'),
)


class Figures:
    def figures(self):
        if os.environ.get('CASES') and not re.search(os.environ['CASES'], 'figures'):
            return
        try:
            for name in ('app-a', 'app-b'):
                if self.window(name) is None:
                    self.start_app(name)
            self.install_trace()
            for count in WINDOW_COUNTS:
                self.open_crowd(count - 1, lambda n: self.js(f'global._ga.trace.othersMinimized({n}, false)'))
                self.activate('app-a')
                reference_traces = {True: [], False: []}
                reference = self.latencies(count, self.minimize_by_eval, reference_traces)
                traces = {True: [], False: []}
                ours = self.latencies(count, self.start_traced, traces, regions=1)
                log(f'FIGURE GNOME, {count} other windows, {SESSIONS_MEASURED} sessions, seen in the shell (its '
                    'monotonic clock, the suite\'s); reference: an Eval minimizes or restores the same windows')
                for name, values, floor in (('Start returned → lock in place', ours[True], reference[True]),
                                            ('End returned → restored', ours[False], reference[False])):
                    log(f'FIGURE   {name}: {beside_reference(values, floor)}')
                self.print_breakdown(f'{count} other windows: one Start, from the daemon\'s reply to the frame',
                                     SEGMENTS, traces[True])
                self.print_breakdown(f'{count} other windows: one End', END_SEGMENTS, traces[False])
                self.print_breakdown(f'{count} other windows: the reference\'s minimize', REFERENCE_SEGMENTS,
                                     reference_traces[True])
        except Exception as error:
            self.figures_failed(error)
        finally:
            self.close_crowd()
        if getattr(self, '_sheet', None) is not None:
            try:
                shown, opened, locked, open_traces, traces = self._sheet.figures(self.take_trace)
                log(f'FIGURE triple-press → the start sheet\'s first frame (its fade-in begun) ({len(shown)} runs): '
                    f'{percentiles(shown)}')
                log(f'FIGURE triple-press → start sheet painted (its fade-in done) ({len(opened)} runs): '
                    f'{percentiles(opened)}')
                log(f'FIGURE Start pressed on the sheet → lock in place ({len(locked)} runs): {percentiles(locked)}')
                self.print_breakdown('the start sheet opened, from the triple press to its first frame',
                                     SHEET_OPEN_SEGMENTS, open_traces)
                self.print_breakdown('Start pressed on the sheet, from the press to the lock', SHEET_SEGMENTS, traces)
            except Exception as error:
                log(f'FIGURE start sheet: not measured ({error})')
        self.js('global._ga.trace?.remove()')
        if getattr(self, 'rss_with', None):
            log(f'FIGURE gnome-shell RSS: {self.rss_without / 1024:.1f} MB without the extension, '
                f'{self.rss_with / 1024:.1f} MB with it ({(self.rss_with - self.rss_without) / 1024:+.1f} MB)')

    def latencies(self, count, act, traces=None, regions=0):
        """ms from act(True) and act(False) returning (or from the time act
        returns, when it does) to the first frame painted with the `count`
        other windows minimized (with `regions` disabled regions in place
        for input) and with them restored, SESSIONS_MEASURED times each; with
        `traces`, each Start's and End's trace added to traces[True] and traces[False]."""
        measured = {True: [], False: []}
        for _ in range(SESSIONS_MEASURED):
            for start in (True, False):
                self.js(f'global._ga.trace.watchFrame(() => global._ga.trace.othersMinimized({count}, '
                        f'{str(start).lower()}) && global._ga.regions() === {regions if start else 0})')
                returned = act(start) or time.monotonic()
                seen = wait_for(lambda: self.js('global._ga.watched'), 5, 0.01,
                                f'the {count} other windows ' + ('minimized' if start else 'restored'))
                measured[start].append((seen / 1e6 - returned) * 1000)
                if traces is not None:
                    traces[start].append(self.take_trace(returned=returned * 1000, seen=seen / 1000))
                # A pause of random length, so that no cycle falls into step with the frames.
                time.sleep(random.uniform(0.2, 0.45))
        return measured

    def minimize_by_eval(self, minimized):
        """The reference: one Eval minimizes or restores the other windows,
        measured from the call (the reply comes after it has). Returns when
        the call was made."""
        self.js('global._ga.trace.take()')
        called = time.monotonic()
        self.js(f'global._ga.trace.minimizeOthers({str(minimized).lower()})')
        return called

    def install_trace(self):
        """The trace reaches the lock's classes through a session: one is
        started for it, and ended."""
        self.js(TRACE_HELPERS)
        self.start_session('app-a')
        self.wait_locked()
        self.js('global._ga.trace.install()')
        self.end_session()
        self.wait_released()

    def start_traced(self, start):
        """Start (with one disabled region) or End. Returns when the reply
        arrived; latencies() takes the trace once the screen shows it."""
        self.js('global._ga.trace.take()')
        if start:
            self.start_session('app-a', regions=[(0, 400, 200, 200)])
        else:
            self.end_session()
        return time.monotonic()

    def take_trace(self, frames_after='sync', **marks):
        """The trace since the last take: the first time of each stamp (and
        of each frame after the stamp `frames_after`: the lock applied),
        with `marks` (ms) added, the number of _sync calls and whether the
        region blocker was picked before any frame; in ms."""
        stamps = self.js('global._ga.trace.take()')
        trace = {**marks, 'syncs': sum(1 for name, _ in stamps if name == 'sync'),
                 'picked': any(name == 'picked 1' for name, _ in stamps)}
        for name, microseconds in stamps:
            if name in ('before-update', 'before-paint', 'after-paint') and frames_after not in trace:
                continue
            trace.setdefault(name, microseconds / 1000)
        return trace

    def print_breakdown(self, title, segments, traces):
        """Prints where the time of the traced Starts (or Ends) went: p50
        and p99 of each segment, ms."""
        log(f'FIGURE GNOME, {title} (p50 and p99 of {len(traces)} traced; ms)')
        for label, begin, end in segments:
            values = [trace[end] - trace[begin] for trace in traces if begin in trace and end in trace]
            if begin is None:
                log(f'FIGURE   {label}')
            elif values:
                log(f'FIGURE   {label}: {statistics.median(values):.1f}, {quantile(values, 0.99):.1f}')
        if segments is not SEGMENTS and segments is not SHEET_SEGMENTS:
            return
        syncs = [trace['syncs'] for trace in traces]
        picked = sum(1 for trace in traces if trace['picked'])
        log(f'FIGURE   _sync calls per Start: {min(syncs)} to {max(syncs)}; region blocker picked before any '
            f'frame: {picked} of {len(traces)}')
