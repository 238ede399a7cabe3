# SPDX-License-Identifier: GPL-2.0-or-later
"""The desktops whose on-screen suites scripts/test runs, and where: the one
list a new desktop is added to (docs/adding-a-desktop.md). Each desktop's
suite is shell/NAME/tests/run; shell/tests/units makes the units of work
from this list."""

import collections

Desktop = collections.namedtuple('Desktop', 'name title layouts')
Desktop.__doc__ = """NAME: the desktop's directory in shell/; TITLE: how the
tables name it; LAYOUTS: the monitor layouts its suite runs with --layouts,
by release (`host`, or `roots` for every Debian root), each a unit of its
own (`layouts`: all of them in one shell)."""

DESKTOPS = (
    # GNOME Shell reconfigures its virtual monitors through DisplayConfig,
    # so every layout runs in one shell.
    Desktop('gnome', 'GNOME', {'host': ('layouts',), 'roots': ('layouts',)}),
    # Each KWin layout starts a KWin of its own: each scale in one KWin,
    # integer in 5.27 (the host), fractional in 6.x.
    Desktop('kde', 'KDE', {'host': ('two', 'scale2'), 'roots': ('two', 'scale1.25')}),
)
