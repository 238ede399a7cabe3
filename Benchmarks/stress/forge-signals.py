#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Forges the signals of org.guidedaccess.GuidedAccess1 from a plain client.

    forge-signals.py ADDRESS TARGET ROUNDS

Each round emits a PropertiesChanged (session enabled), a StatusChanged, a
RestrictionChanged and an InterfacesAdded that look like the service's, each
both broadcast and addressed to TARGET (a unique bus name). Every forged
payload carries the word "forged". Prints how many signals it sent.
Run by the stress suite (scripts/stress), case "forged signals".
"""
import sys

import dbus
from dbus.lowlevel import SignalMessage

address, target, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = dbus.bus.BusConnection(address)
PATH = "/org/guidedaccess/GuidedAccess1"
sent = 0


def emit(path, interface, member, signature, arguments, destination):
    global sent
    message = SignalMessage(path, interface, member)
    if destination:
        message.set_destination(destination)
    message.append(*arguments, signature=signature)
    bus.send_message(message)
    sent += 1


def forged(value):
    return dbus.String(value, variant_level=1)


for _ in range(rounds):
    for destination in (None, target):
        emit(PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
             ["org.guidedaccess.GuidedAccess1",
              {"Enabled": dbus.Boolean(True, variant_level=1), "State": forged("forged")}, []], destination)
        emit(PATH, "org.guidedaccess.GuidedAccess1", "StatusChanged", "b", [True], destination)
        emit(PATH, "org.guidedaccess.Restrictions1", "RestrictionChanged", "ss",
             ["org.stress.forged", "deny"], destination)
        emit(PATH, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}",
             [PATH + "/restrictions/forged",
              {"org.guidedaccess.Restriction1": {"Identifier": forged("org.stress.forged")}}], destination)
bus.flush()
print(sent)
