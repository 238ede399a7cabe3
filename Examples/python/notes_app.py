#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A note-taking app that opts in to Guided Access, in Python with PyGObject.

It registers two custom restrictions (sharing and deleting notes), follows
their state through RestrictionChanged and the session through
StatusChanged, and reads the accessibility features it adapts to. It talks
to org.guidedaccess.GuidedAccess1 with Gio.DBusProxy only: no library of
ours is needed. Each thing it learns is printed as one line.

    notes_app.py [--address ADDRESS] [--events N]

--address (or $GUIDED_ACCESS_BUS_ADDRESS) picks the bus, else the session
bus; --events N exits after N changes, for tests.
"""
import argparse
import os
import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.guidedaccess.GuidedAccess1"
OBJECT_PATH = "/org/guidedaccess/GuidedAccess1"
RESTRICTIONS = [
    ("org.example.notes.share", "Sharing", "Sending notes to other apps"),
    ("org.example.notes.delete", "Deleting notes", "Removing notes for good"),
]
FEATURES = ["ReduceMotion", "BoldText"]


def connect(address):
    if not address:
        return Gio.bus_get_sync(Gio.BusType.SESSION, None)
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def proxy(connection, interface):
    # A proxy follows the name's owner: signals from anyone else never reach it.
    return Gio.DBusProxy.new_sync(connection, Gio.DBusProxyFlags.NONE, None, BUS_NAME, OBJECT_PATH, interface, None)


def main():
    parser = argparse.ArgumentParser(description="A note-taking app that opts in to Guided Access.")
    parser.add_argument("--address", default=os.environ.get("GUIDED_ACCESS_BUS_ADDRESS"))
    parser.add_argument("--events", type=int, default=0, help="exit after this many changes")
    args = parser.parse_args()

    connection = connect(args.address)
    session = proxy(connection, "org.guidedaccess.GuidedAccess1")
    restrictions = proxy(connection, "org.guidedaccess.Restrictions1")
    features = proxy(connection, "org.guidedaccess.Features1")
    loop = GLib.MainLoop()
    seen = 0
    mine = {identifier for identifier, _, _ in RESTRICTIONS}

    def changed(text):
        nonlocal seen
        print(text, flush=True)
        seen += 1
        if args.events and seen >= args.events:
            loop.quit()

    def on_signal(_proxy, _sender, signal, parameters):
        if signal == "RestrictionChanged":
            identifier, state = parameters.unpack()
            if identifier in mine:
                changed(f"restriction {identifier}: {state}")
        elif signal == "StatusChanged":
            (enabled,) = parameters.unpack()
            changed("guided access: " + ("on" if enabled else "off"))

    session.connect("g-signal", on_signal)
    restrictions.connect("g-signal", on_signal)
    try:
        paths = restrictions.call_sync("Register", GLib.Variant("(a(sss))", (RESTRICTIONS,)),
                                       Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
    except GLib.Error as error:
        print(f"notes: cannot register with Guided Access: {error.message}", file=sys.stderr)
        return 1
    print(f"registered {len(paths)} restrictions", flush=True)
    for identifier, _, _ in RESTRICTIONS:
        state = restrictions.call_sync("GetState", GLib.Variant("(s)", (identifier,)),
                                       Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        print(f"restriction {identifier}: {state}", flush=True)
    for name in FEATURES:
        value = features.get_cached_property(name)
        print(f"feature {name}: {'on' if value is not None and value.unpack() else 'off'}", flush=True)
    enabled = session.get_cached_property("Enabled")
    print("guided access: " + ("on" if enabled is not None and enabled.unpack() else "off"), flush=True)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
