# SPDX-License-Identifier: GPL-2.0-or-later
"""A process of the assessment cases (assessmentcases.py): run with a test
app's interpreter copy (so the daemon gives it that app's id), it takes
one command a line on stdin and appends what came of it to the log file
named by its argument, one line each:

    begin JSON    BeginAssessment with JSON's keys ('as' for lists, 't' for
                  numbers, 'b' for booleans): 'called US' (the monotonic
                  clock's µs just before the call), then 'begin ok' or
                  'begin error NAME MESSAGE'
    end           EndAssessment: 'end ok' or 'end error ...'
    screenshot F  org.gnome.Shell.Screenshot.Screenshot into file F
    screencast    CreateSession and Start on org.gnome.Mutter.ScreenCast, as
                  the portal does (without streams: no PipeWire here):
                  'screencast started PATH' or 'screencast error ...', and
                  'closed PATH' when mutter closes that session
    stopcasts     Stop on every session it started that is still open

and 'signal NAME ARGS' for each of the daemon's Assessment* signals."""

import json
import sys
import time

from gi.repository import Gio, GLib

BUS_NAME = 'org.guidedaccess.GuidedAccess1'
PATH = '/org/guidedaccess/GuidedAccess1'
SCREENCAST = 'org.gnome.Mutter.ScreenCast'

log = open(sys.argv[1], 'a', buffering=1)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
open_casts = set()


def call(name, path, interface, method, args, reply=None):
    return bus.call_sync(name, path, interface, method, args, GLib.VariantType.new(reply) if reply else None,
                         Gio.DBusCallFlags.NONE, 10000, None)


def failure(error):
    name = Gio.DBusError.get_remote_error(error) or str(error.code)
    # The message without GDBus's 'GDBus.Error:NAME: ' prefix.
    message = error.message.split(': ', 1)[1] if error.message.startswith('GDBus.Error:') else error.message
    return f'error {name} {message}'


def variant(value):
    if isinstance(value, bool):
        return GLib.Variant('b', value)
    if isinstance(value, int):
        return GLib.Variant('t', value)
    return GLib.Variant('as', list(value))


def closed(_connection, _sender, path, _interface, _signal, _parameters, _data=None):
    open_casts.discard(path)
    log.write(f'closed {path}\n')


def command(line):
    word, _, rest = line.strip().partition(' ')
    try:
        if word == 'begin':
            configuration = {key: variant(value) for key, value in json.loads(rest).items()}
            log.write(f'called {time.monotonic_ns() // 1000}\n')
            call(BUS_NAME, PATH, BUS_NAME, 'BeginAssessment', GLib.Variant('(a{sv})', (configuration,)))
        elif word == 'end':
            call(BUS_NAME, PATH, BUS_NAME, 'EndAssessment', None)
        elif word == 'screenshot':
            call('org.gnome.Shell.Screenshot', '/org/gnome/Shell/Screenshot', 'org.gnome.Shell.Screenshot',
                 'Screenshot', GLib.Variant('(bbs)', (False, False, rest)), '(bs)')
        elif word == 'screencast':
            [path] = call(SCREENCAST, '/org/gnome/Mutter/ScreenCast', SCREENCAST, 'CreateSession',
                          GLib.Variant('(a{sv})', ({},)), '(o)').unpack()
            bus.signal_subscribe(SCREENCAST, f'{SCREENCAST}.Session', 'Closed', path, None,
                                 Gio.DBusSignalFlags.NONE, closed)
            open_casts.add(path)
            call(SCREENCAST, path, f'{SCREENCAST}.Session', 'Start', None)
            log.write(f'screencast started {path}\n')
            return True
        elif word == 'stopcasts':
            for path in list(open_casts):
                try:
                    call(SCREENCAST, path, f'{SCREENCAST}.Session', 'Stop', None)
                except GLib.Error:
                    pass
        else:
            log.write(f'{word} error unknown command\n')
            return True
        log.write(f'{word} ok\n')
    except GLib.Error as error:
        log.write(f'{word} {failure(error)}\n')
    return True


def on_stdin(channel, condition):
    if condition & GLib.IOCondition.HUP and not condition & GLib.IOCondition.IN:
        loop.quit()
        return False
    line = channel.readline()
    if not line:
        loop.quit()
        return False
    return command(line)


for signal in ('AssessmentBegan', 'AssessmentEnded', 'AssessmentInterrupted'):
    bus.signal_subscribe(None, BUS_NAME, signal, PATH, None, Gio.DBusSignalFlags.NONE,
                         lambda _c, _s, _p, _i, name, parameters, *_: log.write(
                             f'signal {name} {" ".join(str(v) for v in parameters.unpack())}\n'))
loop = GLib.MainLoop()
channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_stdin)
log.write('ready\n')
loop.run()
