#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The session-bus services shell/kde/tests/run owns, in a process of their
own (a GLib main loop) so that the cases can call them synchronously:

- org.guidedaccess.tests.KWinProbe: receives the probe script's reports
  (Report), keeps them with the time (CLOCK_MONOTONIC, shared with the
  test) they arrived; the test reads them with Latest and Since.
- org.freedesktop.Notifications: a notification server in place of
  plasmashell's (not installed here): it records Notify, Inhibit and
  UnInhibit, and shows each notification as Plasma would, in a banner
  window of the notification type (banner.py, through KWin's Xwayland,
  whose display the test gives it with SetDisplay), until
  CloseNotification.
- org.kde.plasmashell /PlasmaShell: records activateLauncherMenu, which
  KWin calls when Meta alone is pressed (kwinrc [ModifierOnlyShortcuts]),
  and opens or closes the launcher as Kickoff does (launcher.py, a Wayland
  client of KWin, logging to logs/launcher.log beside READY_FILE).
  CloseLauncher closes it.
- A KRunner stand-in: the kglobalaccel component "org.kde.krunner.desktop"
  with Alt+Space, registered over D-Bus as KRunner registers it
  (RegisterKRunner, again after KWin restarts). kglobalaccel runs a
  ".desktop" component's shortcut by its desktop file (the run writes one,
  DBusActivatable, into KWin's XDG_DATA_HOME/applications): it calls
  org.freedesktop.Application.Activate on org.kde.krunner, owned here,
  which records it (and globalShortcutPressed, should it be emitted).

- org.kde.klipper /klipper: a stand-in for Klipper, Plasma's clipboard
  (in plasmashell, not installed here): clearClipboardContents empties
  KWin's clipboard as Klipper does, through the wlr data-control protocol
  (wl-copy --clear), and records the call; clearClipboardHistory records it.

- Capture: the screen or an area of it, through KWin's ScreenShot2, for
  the test (KWin authorizes ScreenShot2 by the caller's executable and a
  desktop file naming it: this interpreter's, which the run writes).

Events reads what was recorded (JSON). Run: services.py BUS_ADDRESS READY_FILE.
"""

import json
import os
import signal
import subprocess
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PROBE = 'org.guidedaccess.tests.KWinProbe'
PROBE_PATH = '/org/guidedaccess/tests/KWinProbe'
KRUNNER = ['org.kde.krunner.desktop', '_launch', 'KRunner', 'KRunner']
QT_ALT, QT_KEY_SPACE = 0x08000000, 0x20
# plasma-pa's Volume Up, in the component it keeps kmix's name for.
KMIX_VOLUME_UP = ['kmix', 'increase_volume', 'Audio Volume', 'Increase Volume']
QT_KEY_VOLUME_UP = 0x01000072
KEEP = 3000  # reports kept (5 minutes at 10 a second)

display = {}  # DISPLAY, XAUTHORITY of KWin's Xwayland (SetDisplay)
events = {'notify': [], 'inhibit': [], 'uninhibit': [], 'launcher': [], 'krunner': [], 'krunner-registered': [],
          'klipper': [], 'volume': [], 'compositing': []}


class Probe(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PROBE_PATH)
        self.reports = []

    @dbus.service.method(PROBE, in_signature='s', out_signature='')
    def Report(self, report):
        self.reports.append((time.monotonic(), report))
        del self.reports[:-KEEP]

    @dbus.service.method(PROBE, in_signature='', out_signature='ds')
    def Latest(self):
        return self.reports[-1] if self.reports else (0.0, 'null')

    @dbus.service.method(PROBE, in_signature='d', out_signature='s')
    def Since(self, since):
        """The reports that arrived after SINCE, as a JSON list of [time, report]."""
        return '[' + ','.join(f'[{t!r},{r}]' for t, r in self.reports if t > since) + ']'

    @dbus.service.method(PROBE, in_signature='', out_signature='s')
    def Events(self):
        return json.dumps(events)

    @dbus.service.method(PROBE, in_signature='iiii', out_signature='uuuay')
    def Capture(self, x, y, width, height):
        """The pixels of an area (the whole workspace when WIDTH is 0) as
        ScreenShot2 gives them (QImage::Format_ARGB32: B, G, R, A bytes).
        Asked again when KWin cancels it (seen on a loaded machine, while
        another shell's suite ran beside this one)."""
        for attempt in range(3):
            try:
                return self.capture_once(x, y, width, height)
            except dbus.DBusException as error:
                if error.get_dbus_name() != 'org.kde.KWin.ScreenShot2.Error.Cancelled' or attempt == 2:
                    raise
                time.sleep(0.2)

    def capture_once(self, x, y, width, height):
        screenshot = dbus.Interface(self.connection.get_object('org.kde.KWin', '/org/kde/KWin/ScreenShot2'),
                                    'org.kde.KWin.ScreenShot2')
        read, write = os.pipe()
        try:
            options = dbus.Dictionary({}, signature='sv')
            if width:
                result = screenshot.CaptureArea(dbus.Int32(x), dbus.Int32(y), dbus.UInt32(width),
                                                dbus.UInt32(height), options, dbus.types.UnixFd(write), timeout=20)
            else:
                result = screenshot.CaptureWorkspace(options, dbus.types.UnixFd(write), timeout=20)
        finally:
            os.close(write)
        chunks = []
        with os.fdopen(read, 'rb') as f:
            while chunk := f.read(1 << 20):
                chunks.append(chunk)
        return (result['width'], result['height'], result['stride'],
                dbus.ByteArray(b''.join(chunks)))

    @dbus.service.method(PROBE, in_signature='ss', out_signature='')
    def SetDisplay(self, name, xauthority):
        display.update(DISPLAY=str(name), XAUTHORITY=str(xauthority))

    @dbus.service.method(PROBE, in_signature='', out_signature='s')
    def RegisterKRunner(self):
        """Registers the stand-in's shortcut with KWin's kglobalaccel; returns the keys it got."""
        accel = dbus.Interface(self.connection.get_object('org.kde.kglobalaccel', '/kglobalaccel'),
                               'org.kde.KGlobalAccel')
        accel.doRegister(KRUNNER, timeout=10)
        given = accel.setShortcut(KRUNNER, [QT_ALT | QT_KEY_SPACE], dbus.UInt32(0x2 | 0x4), timeout=10)
        events['krunner-registered'].append([int(key) for key in given])
        return json.dumps([int(key) for key in given])

    @dbus.service.method(PROBE, in_signature='', out_signature='s')
    def RegisterVolumeKeys(self):
        """Registers Volume Up as plasma-pa does (component kmix) with KWin's
        kglobalaccel; returns the keys it got."""
        accel = dbus.Interface(self.connection.get_object('org.kde.kglobalaccel', '/kglobalaccel'),
                               'org.kde.KGlobalAccel')
        accel.doRegister(KMIX_VOLUME_UP, timeout=10)
        given = accel.setShortcut(KMIX_VOLUME_UP, [QT_KEY_VOLUME_UP], dbus.UInt32(0x2 | 0x4), timeout=10)
        return json.dumps([int(key) for key in given])

    @dbus.service.method(PROBE, in_signature='', out_signature='s')
    def VolumeKeys(self):
        """The keys kglobalaccel has for kmix's Volume Up now."""
        accel = dbus.Interface(self.connection.get_object('org.kde.kglobalaccel', '/kglobalaccel'),
                               'org.kde.KGlobalAccel')
        return json.dumps([int(key) for key in accel.shortcut(KMIX_VOLUME_UP, timeout=10)])


class Notifications(dbus.service.Object):
    INTERFACE = 'org.freedesktop.Notifications'

    def __init__(self, bus):
        super().__init__(bus, '/org/freedesktop/Notifications')
        self.next_id = 1
        self.banners = {}

    @dbus.service.method(INTERFACE, in_signature='susssasa{sv}i', out_signature='u')
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        events['notify'].append([time.monotonic(), str(app), str(summary), str(body)])
        self.next_id += 1
        if display:
            env = {**os.environ, **display, 'GDK_BACKEND': 'x11'}
            env.pop('WAYLAND_DISPLAY', None)
            self.banners[self.next_id] = subprocess.Popen(
                [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'banner.py'),
                 str(summary), str(body)], env=env)
        return self.next_id

    @dbus.service.method(INTERFACE, in_signature='u', out_signature='')
    def CloseNotification(self, notification):
        banner = self.banners.pop(int(notification), None)
        if banner is not None:
            banner.send_signal(signal.SIGTERM)
            banner.wait()

    @dbus.service.method(INTERFACE, in_signature='', out_signature='as')
    def GetCapabilities(self):
        return ['body', 'inhibitions']

    @dbus.service.method(INTERFACE, in_signature='', out_signature='ssss')
    def GetServerInformation(self):
        return ('guided-access test notifications', 'guidedaccess.org', '1', '1.2')

    @dbus.service.method(INTERFACE, in_signature='ssa{sv}', out_signature='u')
    def Inhibit(self, desktop_entry, reason, hints):
        self.next_id += 1
        events['inhibit'].append([time.monotonic(), str(desktop_entry), str(reason), self.next_id])
        return self.next_id

    @dbus.service.method(INTERFACE, in_signature='u', out_signature='')
    def UnInhibit(self, cookie):
        events['uninhibit'].append([time.monotonic(), int(cookie)])


class KRunner(dbus.service.Object):
    INTERFACE = 'org.freedesktop.Application'

    def __init__(self, bus):
        super().__init__(bus, '/org/kde/krunner')

    @dbus.service.method(INTERFACE, in_signature='a{sv}', out_signature='')
    def Activate(self, platform_data):
        events['krunner'].append([time.monotonic(), 'Activate'])

    @dbus.service.method(INTERFACE, in_signature='sava{sv}', out_signature='')
    def ActivateAction(self, action, parameters, platform_data):
        events['krunner'].append([time.monotonic(), f'ActivateAction {action}'])

    @dbus.service.method(INTERFACE, in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform_data):
        events['krunner'].append([time.monotonic(), 'Open'])


class KRunnerApp(dbus.service.Object):
    """What KWin calls when a screen edge is set to KRunner."""

    def __init__(self, bus):
        super().__init__(bus, '/App')

    @dbus.service.method('org.kde.krunner.App', in_signature='', out_signature='')
    def display(self):
        events['krunner'].append([time.monotonic(), 'display'])


class Klipper(dbus.service.Object):
    INTERFACE = 'org.kde.klipper.klipper'

    def __init__(self, bus):
        super().__init__(bus, '/klipper')

    @dbus.service.method(INTERFACE, in_signature='', out_signature='')
    def clearClipboardContents(self):
        cleared = subprocess.run(['wl-copy', '--clear'], capture_output=True, text=True, timeout=5)
        events['klipper'].append([time.monotonic(), 'clearClipboardContents', cleared.returncode])

    @dbus.service.method(INTERFACE, in_signature='', out_signature='')
    def clearClipboardHistory(self):
        events['klipper'].append([time.monotonic(), 'clearClipboardHistory', 0])


class PlasmaShell(dbus.service.Object):
    def __init__(self, bus, log_path):
        super().__init__(bus, '/PlasmaShell')
        self.log_path = log_path
        self.launcher = None

    def launcher_open(self):
        return self.launcher is not None and self.launcher.poll() is None

    @dbus.service.method('org.kde.PlasmaShell', in_signature='', out_signature='')
    def activateLauncherMenu(self):
        """As Kickoff: opens the launcher, or closes it when it is open."""
        events['launcher'].append(time.monotonic())
        if self.launcher_open():
            self.close()
            return
        env = {**os.environ, 'GDK_BACKEND': 'wayland'}
        self.launcher = subprocess.Popen(
            [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'launcher.py'),
             self.log_path], env=env)

    def close(self):
        if self.launcher is not None:
            if self.launcher.poll() is None:
                self.launcher.send_signal(signal.SIGTERM)
            self.launcher.wait()
            self.launcher = None

    @dbus.service.method(PROBE, in_signature='', out_signature='b')
    def CloseLauncher(self):
        """Closes the launcher; whether it was still open."""
        was_open = self.launcher_open()
        self.close()
        return was_open


def main():
    address, ready = sys.argv[1], sys.argv[2]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    log_path = os.path.join(os.path.dirname(os.path.abspath(ready)), 'logs/launcher.log')
    keep = [Probe(bus), Notifications(bus), PlasmaShell(bus, log_path), KRunner(bus), KRunnerApp(bus), Klipper(bus)]
    names = [dbus.service.BusName(name, bus, do_not_queue=True)
             for name in (PROBE, 'org.freedesktop.Notifications', 'org.kde.plasmashell', 'org.kde.krunner',
                          'org.kde.klipper')]
    bus.add_signal_receiver(
        lambda component, action, timestamp: events['krunner'].append([time.monotonic(), str(action)]),
        signal_name='globalShortcutPressed', dbus_interface='org.kde.kglobalaccel.Component',
        path='/component/org_kde_krunner_desktop')
    bus.add_signal_receiver(
        lambda component, action, timestamp: events['volume'].append([time.monotonic(), str(action)]),
        signal_name='globalShortcutPressed', dbus_interface='org.kde.kglobalaccel.Component', path='/component/kmix')
    bus.add_signal_receiver(
        lambda active: events['compositing'].append([time.monotonic(), bool(active)]),
        signal_name='compositingToggled', dbus_interface='org.kde.kwin.Compositing', path='/Compositor')
    with open(ready, 'w') as f:
        f.write('ready\n')
    GLib.MainLoop().run()
    del keep, names


if __name__ == '__main__':
    main()
