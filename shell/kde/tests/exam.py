#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in exam app for shell/kde/tests/run: run with a test app's own
interpreter copy (bin/app-a), so that the daemon gives its calls that app's
id, as it gives the app's window. It takes commands on stdin, one a line,
makes the call from its own process and appends what happened to the log
file named by its first argument:

    begin JSON   BeginAssessment(a{sv}) with JSON's keys: a list is sent as
                 `as`, a boolean as `b`, a number as `t`
                 → "began" or "begin-failed ERROR MESSAGE"
    end          EndAssessment() → "ended" or "end-failed ERROR MESSAGE"
    screenshot   KWin's ScreenShot2 CaptureWorkspace, as any app may try
                 → "screenshot-taken WIDTHxHEIGHT" or "screenshot-failed ERROR"

It listens to the daemon's AssessmentBegan, AssessmentEnded and
AssessmentInterrupted(reason) all along: "signal NAME [REASON]". It
quits when stdin closes. Run: exam.py LOG (with DBUS_SESSION_BUS_ADDRESS).
"""

import json
import os
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

BUS_NAME = 'org.guidedaccess.GuidedAccess1'
OBJECT_PATH = '/org/guidedaccess/GuidedAccess1'

log = open(sys.argv[1], 'a', buffering=1)


def wire(value):
    if isinstance(value, bool):
        return dbus.Boolean(value)
    if isinstance(value, int):
        return dbus.UInt64(value)
    if isinstance(value, list):
        return dbus.Array(value, signature='s')
    return dbus.String(value)


def failed(what, error):
    name = error.get_dbus_name() if isinstance(error, dbus.DBusException) else type(error).__name__
    message = error.get_dbus_message() if isinstance(error, dbus.DBusException) else str(error)
    log.write(f'{what}-failed {name} {message}\n')


def screenshot(bus):
    proxy = bus.get_object('org.kde.KWin', '/org/kde/KWin/ScreenShot2', introspect=False)
    read, write = os.pipe()
    try:
        result = proxy.CaptureWorkspace(dbus.Dictionary({}, signature='sv'), dbus.types.UnixFd(write),
                                        dbus_interface='org.kde.KWin.ScreenShot2', timeout=20)
    finally:
        os.close(write)
    with os.fdopen(read, 'rb') as f:
        while f.read(1 << 20):
            pass
    return f'{int(result["width"])}x{int(result["height"])}'


def command(bus, service, line):
    verb, _, argument = line.strip().partition(' ')
    try:
        if verb == 'begin':
            configuration = dbus.Dictionary({key: wire(value) for key, value in json.loads(argument).items()},
                                            signature='sv')
            service.BeginAssessment(configuration, timeout=30)
            log.write('began\n')
        elif verb == 'end':
            service.EndAssessment(timeout=30)
            log.write('ended\n')
        elif verb == 'screenshot':
            log.write(f'screenshot-taken {screenshot(bus)}\n')
        elif verb:
            log.write(f'unknown-command {verb}\n')
    except Exception as error:
        failed(verb, error)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    service = dbus.Interface(bus.get_object(BUS_NAME, OBJECT_PATH, introspect=False), BUS_NAME)
    for name in ('AssessmentBegan', 'AssessmentEnded', 'AssessmentInterrupted'):
        bus.add_signal_receiver(lambda *args, name=name: log.write(' '.join(['signal', name, *map(str, args)]) + '\n'),
                                signal_name=name, dbus_interface=BUS_NAME, path=OBJECT_PATH)
    loop = GLib.MainLoop()

    pending = [b'']

    def readable(fd, _condition):
        data = os.read(fd, 4096)
        if not data:
            loop.quit()
            return False
        *lines, pending[0] = (pending[0] + data).split(b'\n')
        for line in lines:
            command(bus, service, line.decode())
        return True
    GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, readable)
    log.write('ready\n')
    loop.run()


if __name__ == '__main__':
    main()
