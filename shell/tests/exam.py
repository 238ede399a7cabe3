# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in exam app for the on-screen suites (shell/gnome/tests/run's
assessment cases, shell/kde/tests/run's): run with a test app's own
interpreter copy (bin/app-a), so that the daemon gives the calls it makes
from its own process that app's id, as it gives the app's window. It takes
one command a line on stdin and appends what came of it to the log file
named by its first argument, one line each, which begins with the
command's word:

    begin JSON        BeginAssessment(a{sv}) with JSON's keys (a list is
                      sent as `as`, a boolean as `b`, a number as `t`):
                      first 'called US' (the monotonic clock's µs just
                      before the call), then 'begin ok'
    end               EndAssessment(): 'end ok'
    screenshot FILE   GNOME Shell's org.gnome.Shell.Screenshot.Screenshot
                      into FILE: 'screenshot ok'
    kwin-screenshot   KWin's ScreenShot2 CaptureWorkspace, as any app may
                      try: 'kwin-screenshot ok WIDTHxHEIGHT'
    screencast        CreateSession and Start on org.gnome.Mutter.ScreenCast,
                      as the portal does (without streams: no PipeWire in
                      the suites): 'screencast started PATH', and 'closed
                      PATH' when mutter closes that session
    stopcasts         Stop on every screencast it started that is still
                      open: 'stopcasts ok'

A call that fails answers 'WORD error NAME MESSAGE' instead (NAME: the
D-Bus error's name); an unknown command 'WORD error unknown command'. It
listens to the daemon's AssessmentBegan, AssessmentEnded and
AssessmentInterrupted(reason) all along: 'signal NAME' and the signal's
arguments, if any. It writes 'ready' once it listens, and quits when stdin
closes. Run: exam.py LOG BUS_NAME OBJECT_PATH INTERFACE (the daemon's
names, as the harness reads them from contract.js), with
DBUS_SESSION_BUS_ADDRESS."""

import json
import os
import select
import sys
import time

from gi.repository import Gio, GLib

BUS_NAME, PATH, SESSION = sys.argv[2:5]
SCREENCAST = 'org.gnome.Mutter.ScreenCast'
TIMEOUT_MS = 30000

log = open(sys.argv[1], 'a', buffering=1)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
open_casts = set()


def call(name, path, interface, method, args, reply=None, fds=None):
    reply_type = GLib.VariantType.new(reply) if reply else None
    if fds is None:
        return bus.call_sync(name, path, interface, method, args, reply_type, Gio.DBusCallFlags.NONE, TIMEOUT_MS, None)
    result, _ = bus.call_with_unix_fd_list_sync(name, path, interface, method, args, reply_type,
                                                Gio.DBusCallFlags.NONE, TIMEOUT_MS, fds, None)
    return result


def failure(error):
    if isinstance(error, GLib.Error):
        name = Gio.DBusError.get_remote_error(error) or f'{error.domain}.{error.code}'
        # The message without GDBus's 'GDBus.Error:NAME: ' prefix.
        message = error.message.split(': ', 1)[1] if error.message.startswith('GDBus.Error:') else error.message
    else:  # this side's own failure (a reply without a field it reads)
        name, message = type(error).__name__, str(error)
    return f'error {name} {message}'


def variant(value):
    if isinstance(value, bool):
        return GLib.Variant('b', value)
    if isinstance(value, int):
        return GLib.Variant('t', value)
    if isinstance(value, str):
        return GLib.Variant('s', value)
    return GLib.Variant('as', list(value))


def closed(_connection, _sender, path, _interface, _signal, _parameters, _data=None):
    open_casts.discard(path)
    log.write(f'closed {path}\n')


def kwin_screenshot():
    """WIDTHxHEIGHT of KWin's capture of the workspace. The image comes
    through a pipe whose write end goes with the call; it is read to its
    size (stride × height) or to its end, within the call's timeout, so a
    KWin that writes nothing cannot hang the suite."""
    read, write = os.pipe()
    fds = Gio.UnixFDList()
    try:
        fds.append(write)  # a duplicate: the list closes its own
    finally:
        os.close(write)
    try:
        [result] = call('org.kde.KWin', '/org/kde/KWin/ScreenShot2', 'org.kde.KWin.ScreenShot2', 'CaptureWorkspace',
                        GLib.Variant('(a{sv}h)', ({}, 0)), '(a{sv})', fds).unpack()
        del fds  # its end of the pipe closed: the read below sees the end
        size = int(result['stride']) * int(result['height']) if 'stride' in result else None
        got, deadline = 0, time.monotonic() + TIMEOUT_MS / 1000
        while size is None or got < size:
            if not select.select([read], [], [], max(0.0, deadline - time.monotonic()))[0]:
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            got += len(chunk)
    finally:
        os.close(read)
    return f'{int(result["width"])}x{int(result["height"])}'


def command(line):
    word, _, rest = line.strip().partition(' ')
    if not word:
        return
    try:
        if word == 'begin':
            configuration = {key: variant(value) for key, value in json.loads(rest).items()}
            log.write(f'called {time.monotonic_ns() // 1000}\n')
            call(BUS_NAME, PATH, SESSION, 'BeginAssessment', GLib.Variant('(a{sv})', (configuration,)))
        elif word == 'end':
            call(BUS_NAME, PATH, SESSION, 'EndAssessment', None)
        elif word == 'screenshot':
            call('org.gnome.Shell.Screenshot', '/org/gnome/Shell/Screenshot', 'org.gnome.Shell.Screenshot',
                 'Screenshot', GLib.Variant('(bbs)', (False, False, rest)), '(bs)')
        elif word == 'kwin-screenshot':
            log.write(f'{word} ok {kwin_screenshot()}\n')
            return
        elif word == 'screencast':
            [path] = call(SCREENCAST, '/org/gnome/Mutter/ScreenCast', SCREENCAST, 'CreateSession',
                          GLib.Variant('(a{sv})', ({},)), '(o)').unpack()
            bus.signal_subscribe(SCREENCAST, f'{SCREENCAST}.Session', 'Closed', path, None,
                                 Gio.DBusSignalFlags.NONE, closed)
            open_casts.add(path)
            call(SCREENCAST, path, f'{SCREENCAST}.Session', 'Start', None)
            log.write(f'screencast started {path}\n')
            return
        elif word == 'stopcasts':
            for path in list(open_casts):
                try:
                    call(SCREENCAST, path, f'{SCREENCAST}.Session', 'Stop', None)
                except GLib.Error:
                    pass  # closed meanwhile
        else:
            log.write(f'{word} error unknown command\n')
            return
        log.write(f'{word} ok\n')
    except Exception as error:  # noqa: BLE001 (every failure is an answer: the suite waits for one)
        log.write(f'{word} {failure(error)}\n')


def heard(_connection, _sender, _path, _interface, name, parameters, _data=None):
    log.write(' '.join(['signal', name, *(str(value) for value in parameters.unpack())]) + '\n')


def main():
    for name in ('AssessmentBegan', 'AssessmentEnded', 'AssessmentInterrupted'):
        bus.signal_subscribe(None, SESSION, name, PATH, None, Gio.DBusSignalFlags.NONE, heard)
    loop = GLib.MainLoop()
    pending = [b'']

    # Whole lines only: a command may come in two reads.
    def readable(fd, _condition):
        data = os.read(fd, 4096)
        if not data:
            loop.quit()
            return False
        *lines, pending[0] = (pending[0] + data).split(b'\n')
        for line in lines:
            command(line.decode())
        return True
    GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, readable)
    log.write('ready\n')
    loop.run()


if __name__ == '__main__':
    main()
