#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An exam app that runs an assessment, in Python with PyGObject.

It asks guided-accessd to lock the desktop to itself and a calculator
(BeginAssessment), shows the test while the assessment lasts, hides it the
moment the assessment is interrupted (AssessmentInterrupted: an
administrator ended it, the desktop's enforcer left), and ends it itself
when the test-taker hands in (EndAssessment). The administrator lists the
app in managed.json's AssessmentApplications. No library of ours is needed;
each thing that happens is printed as one line.

    exam_app.py [--address ADDRESS] [--hand-in-after SECONDS]

--address (or $GUIDED_ACCESS_BUS_ADDRESS) picks the bus, else the session
bus; --hand-in-after ends the assessment after that long (for tests: 0
hands in as soon as it began).
"""
import argparse
import os
import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.guidedaccess.GuidedAccess1"
OBJECT_PATH = "/org/guidedaccess/GuidedAccess1"
SESSION = "org.guidedaccess.GuidedAccess1"
CONFIGURATION = {
    "participants": GLib.Variant("as", ["org.gnome.Calculator"]),
    "allows-accessibility-speech": GLib.Variant("b", False),
    "time-limit": GLib.Variant("t", 3600),
}


def connect(address):
    if not address:
        return Gio.bus_get_sync(Gio.BusType.SESSION, None)
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def main():
    parser = argparse.ArgumentParser(description="An exam app that runs an assessment.")
    parser.add_argument("--address", default=os.environ.get("GUIDED_ACCESS_BUS_ADDRESS"))
    parser.add_argument("--hand-in-after", type=float, default=None, help="end the assessment after this many seconds")
    args = parser.parse_args()

    connection = connect(args.address)
    # A proxy follows the name's owner: signals from anyone else never reach it.
    session = Gio.DBusProxy.new_sync(connection, Gio.DBusProxyFlags.NONE, None, BUS_NAME, OBJECT_PATH, SESSION, None)
    loop = GLib.MainLoop()

    def on_signal(_proxy, _sender, signal, parameters):
        if signal == "AssessmentInterrupted":
            print(f"interrupted: {parameters.unpack()[0]}; the test is hidden", flush=True)
        elif signal == "AssessmentEnded":
            print("ended", flush=True)
            loop.quit()

    session.connect("g-signal", on_signal)

    try:
        session.call_sync("BeginAssessment", GLib.Variant("(a{sv})", (CONFIGURATION,)), Gio.DBusCallFlags.NONE, -1, None)
    except GLib.Error as error:
        print(f"could not begin: {Gio.DBusError.get_remote_error(error)}: {Gio.DBusError.strip_remote_error(error) or error.message}",
              flush=True)
        return 1
    print(f"began: locked to this app and {', '.join(CONFIGURATION['participants'].unpack())}", flush=True)
    # What the daemon says the assessment switched off (read now: the proxy's cache may lag the reply).
    reply = connection.call_sync(BUS_NAME, OBJECT_PATH, "org.freedesktop.DBus.Properties", "Get",
                                 GLib.Variant("(ss)", (SESSION, "Assessment")), None, Gio.DBusCallFlags.NONE, -1, None)
    allowed = reply.unpack()[0]
    print("off: " + ", ".join(sorted(key for key, value in allowed.items() if key.startswith("allows-") and not value)), flush=True)

    def hand_in():
        session.call_sync("EndAssessment", None, Gio.DBusCallFlags.NONE, -1, None)
        print("handed in", flush=True)
        return GLib.SOURCE_REMOVE

    if args.hand_in_after is not None:
        GLib.timeout_add(int(args.hand_in_after * 1000), hand_in)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
